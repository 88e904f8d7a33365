package analyze_test

import (
	"testing"

	"github.com/heapscope/heapscope/analyze"
	"github.com/heapscope/heapscope/internal/heaptest"
)

// TestIdentitiesReuse checks how Python objects are matched across
// snapshots when addresses are reused: an object that keeps its address,
// type and holder is the same; a new object at the old address under
// another key, or with other content, is not.
func TestIdentitiesReuse(t *testing.T) {
	before := heaptest.MustParse(t, `
runtime python
root module m m
m@0x100 module 72 -> .cache=c
c@0x200 dict 100 -> ['k1']=e ['k2']=s
e@0x300 app.Entry 48 -> .values=l
l@0x400 list 120
s@0x500 str 60
value s hello
`)
	after := heaptest.MustParse(t, `
runtime python
root module m m
m@0x100 module 72 -> .cache=c
c@0x200 dict 200 -> ['k9']=e ['k2']=s ['k3']=x
e@0x300 app.Entry 48 -> .values=l
l@0x400 list 120
s@0x500 str 60
x@0x600 app.Entry 48
value s goodbye
`)
	mode := analyze.Identify(after)
	kb, ka := analyze.Identities(before, mode), analyze.Identities(after, mode)
	same := func(i int) bool { return kb[i] == ka[i] }
	if !same(0) || !same(1) {
		t.Error("the module and its cache dict (grown) should keep their identity")
	}
	if same(2) || same(3) {
		t.Error("an entry at a reused address under another key, and what it holds, should be new")
	}
	if same(4) {
		t.Error("a str at a reused address with other content should be new")
	}
}
