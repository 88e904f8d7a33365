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
	old := analyze.NewMatcher(before, mode, nil).Matches(after)
	want := []bool{
		true,  // m: the module
		true,  // c: the cache dict, grown, still held by .cache
		false, // e: an entry at a reused address, under another key
		true,  // l: held in the same slot (.values) of an object at the same address: taken for the old one
		false, // s: a str at a reused address with other content
		false, // x: a new entry
	}
	for i, w := range want {
		if old[i] != w {
			t.Errorf("object %d: matched %v, want %v", i, old[i], w)
		}
	}
}
