package analyze

import (
	"reflect"
	"strings"
	"testing"

	"github.com/heapscope/heapscope/heap"
	"github.com/heapscope/heapscope/internal/heaptest"
)

func TestWhyThroughCache(t *testing.T) {
	g := heaptest.MustParse(t, cacheGraph)
	r := ShortestPaths(g, PathOptions{})
	p, ok := r.Path(cB2)
	if !ok {
		t.Fatal("no path to b2")
	}
	want := Path{RootKind: heap.RootModule, RootName: "app", Steps: []Step{
		{Object: cM, Type: "module"},
		{Object: cC, Type: "dict", Edge: ".CACHE"},
		{Object: cL2, Type: "Leak", Edge: "['b']"},
		{Object: cB2, Type: "bytes", Edge: ".buf"},
	}}
	if !reflect.DeepEqual(p, want) {
		t.Errorf("Path(b2) =\n%+v\nwant\n%+v", p, want)
	}
	if _, ok := r.Path(cO); ok {
		t.Error("a path leads to unreachable o")
	}
	if p, _ := r.Path(cSh); len(p.Steps) != 2 {
		t.Errorf("Path(sh) is not the shortest: %+v", p)
	}

	leaks := Select(g, Selector{Type: "Leak"})
	if !reflect.DeepEqual(leaks, []heap.ObjectID{cL1, cL2}) {
		t.Fatalf("Select(Leak) = %v", leaks)
	}
	dt := Dominators(g, DomOptions{})
	groups, unreached := MergePaths(r, dt, leaks)
	if unreached != 0 || len(groups) != 1 {
		t.Fatalf("MergePaths = %+v, %d unreached", groups, unreached)
	}
	grp := groups[0]
	wantSig := []SigStep{{Type: "module"}, {Type: "dict", Edge: ".CACHE"}, {Type: "Leak", Edge: "[*]"}}
	if grp.Count != 2 || grp.Retained != 14000 || !reflect.DeepEqual(grp.Signature, wantSig) ||
		grp.RootName != "app" || grp.Sample.Steps[2].Object != cL2 {
		t.Errorf("group = %+v", grp)
	}
}

func TestSelect(t *testing.T) {
	g := heaptest.MustParse(t, `
root global r
r Root 1 -> a b c
a str 10
b str 10
c int 10
value a hello world
value b goodbye
value c 42
`)
	cases := []struct {
		s    Selector
		want []heap.ObjectID
	}{
		{Selector{Type: "str"}, []heap.ObjectID{1, 2}},
		{Selector{Value: "o"}, []heap.ObjectID{1, 2}},
		{Selector{Value: "world"}, []heap.ObjectID{1}},
		{Selector{Value: "4", Type: "str"}, nil},
		{Selector{Addr: 0x1000 + 16*3, HasAddr: true}, []heap.ObjectID{3}},
		{Selector{Addr: 0x1000 + 16*3, HasAddr: true, Type: "str"}, nil},
		{Selector{Addr: 0x1, HasAddr: true}, nil},
		{Selector{}, nil},
	}
	for _, c := range cases {
		if got := Select(g, c.s); !reflect.DeepEqual(got, c.want) {
			t.Errorf("Select(%+v) = %v, want %v", c.s, got, c.want)
		}
	}
}

// Index edges collapse, runs of equal steps collapse, different fields
// stay apart; groups come biggest first.
func TestMergePathsCollapse(t *testing.T) {
	g := heaptest.MustParse(t, `
root module m mod
m module 1 -> .items=l .other=o .head=n1
l list 1 -> [0]=x1 [1]=x2 [2]=x3
o Holder 1 -> .x=x4
n1 Node 1 -> .val=x5 .next=n2
n2 Node 1 -> .val=x6 .next=n3
n3 Node 1 -> .val=x7
x1 X 100
x2 X 100
x3 X 100
x4 X 500
x5 X 10
x6 X 10
x7 X 10
`)
	r := ShortestPaths(g, PathOptions{})
	dt := Dominators(g, DomOptions{})
	groups, _ := MergePaths(r, dt, Select(g, Selector{Type: "X"}))
	type short struct {
		count    int
		retained uint64
		sig      []SigStep
	}
	var got []short
	for _, grp := range groups {
		got = append(got, short{grp.Count, grp.Retained, grp.Signature})
	}
	want := []short{
		{1, 500, []SigStep{{Type: "module"}, {Type: "Holder", Edge: ".other"}, {Type: "X", Edge: ".x"}}},
		{3, 300, []SigStep{{Type: "module"}, {Type: "list", Edge: ".items"}, {Type: "X", Edge: "[*]"}}},
		// x6 and x7 hang off runs of one and two ".next" steps: one group.
		// x5 hangs off the head itself.
		{2, 20, []SigStep{{Type: "module"}, {Type: "Node", Edge: ".head"}, {Type: "Node", Edge: ".next", Repeated: true}, {Type: "X", Edge: ".val"}}},
		{1, 10, []SigStep{{Type: "module"}, {Type: "Node", Edge: ".head"}, {Type: "X", Edge: ".val"}}},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("groups:\n%+v\nwant\n%+v", got, want)
	}
}

func TestPathsWeak(t *testing.T) {
	g := heaptest.MustParse(t, `
root global r
r Root 1 -> weak:ref=x
x X 10
`)
	if _, ok := ShortestPaths(g, PathOptions{}).Path(1); ok {
		t.Error("weak edge followed by default")
	}
	p, ok := ShortestPaths(g, PathOptions{IncludeWeak: true}).Path(1)
	if !ok || p.Steps[1].Kind != heap.Weak || p.Steps[1].Edge != "ref" {
		t.Errorf("IncludeWeak: %+v, %v", p, ok)
	}
}

// transientGraph is V8's shape when a snapshot is written while an
// optimizing compiler job is in flight: the job's handles, under
// "(Handle scope)", hold the module's Map one step below the sub-root,
// nearer than the program's path (the module function's context, on the
// stack). The handle scope also holds an object nothing else holds.
const transientGraph = `
root vm r
r (synthetic) 0 -> [1]=gc
gc (synthetic) 0 -> [7]=stack [11]=hs
stack (synthetic) 0 -> internal:[1]=ctx
hs (synthetic) 0 -> internal:[1]=m internal:[2]=only
ctx Context 10 -> contexts=m
m Map 10 -> table=t
t (array) 10 -> [0]=item
item Item 10
only Only 10 -> x=deep
deep Deep 10
flags r synthetic
flags gc synthetic
flags stack synthetic
`

// TestPathsTransient: a path goes through a transient object only to
// what nothing else holds, however much shorter it would be.
func TestPathsTransient(t *testing.T) {
	steps := func(p Path) string {
		var s []string
		for _, st := range p.Steps[1:] {
			s = append(s, st.Edge+" "+st.Type)
		}
		return strings.Join(s, " -> ")
	}
	// Without the flag the handle scope's path is the shorter: the
	// graph sets up what the flag must change.
	g := heaptest.MustParse(t, transientGraph+"flags hs synthetic\n")
	p, _ := ShortestPaths(g, PathOptions{}).Path(7) // item
	if want := "[1] (synthetic) -> [11] (synthetic) -> [1] Map -> table (array) -> [0] Item"; steps(p) != want {
		t.Fatalf("without the flag: %s\nwant %s", steps(p), want)
	}
	g = heaptest.MustParse(t, transientGraph+"flags hs synthetic,transient\n")
	r := ShortestPaths(g, PathOptions{})
	for _, c := range []struct {
		id   heap.ObjectID
		want string
	}{
		{7, "[1] (synthetic) -> [7] (synthetic) -> [1] Context -> contexts Map -> table (array) -> [0] Item"},
		{5, "[1] (synthetic) -> [7] (synthetic) -> [1] Context -> contexts Map"},
		{8, "[1] (synthetic) -> [11] (synthetic) -> [2] Only"},
		{9, "[1] (synthetic) -> [11] (synthetic) -> [2] Only -> x Deep"},
		{3, "[1] (synthetic) -> [11] (synthetic)"},
	} {
		p, ok := r.Path(c.id)
		if !ok {
			t.Errorf("no path to %d", c.id)
		} else if steps(p) != c.want {
			t.Errorf("path to %d: %s\nwant %s", c.id, steps(p), c.want)
		}
	}
}

// TestPathsPreferProgramRoots: an object a module reaches gets the
// module's path, however much shorter a path from the interpreter's
// state or from outside the heap is; those roots give paths only to what
// the program's roots leave unreached.
func TestPathsPreferProgramRoots(t *testing.T) {
	g := heaptest.MustParse(t, `
runtime python
root module m app
root vm interp interpreter
m module 100 -> __dict__=md
md dict 50 -> .cache=c
c dict 50 -> ['k']=x
x Item 10
interp (state) 0 -> codecs=x codecs2=y
y list 10 -> [0]=z
z Item 10
w Item 10 -> [0]=v
v bytes 100
refcount x 3
refcount w 1
`)
	// x (three references, two seen) and w (one, none seen) are held
	// outside the heap.
	extra := NativeRoots(NativeHeld(g))
	if !reflect.DeepEqual(extra, []heap.ObjectID{3, 7}) {
		t.Fatalf("held outside the heap: %v", extra)
	}
	r := ShortestPaths(g, PathOptions{ExtraRoots: extra})
	want := map[heap.ObjectID]string{
		3: "module app: module > __dict__ dict > .cache dict > ['k'] Item", // not from outside, nor from the interpreter
		6: "vm interpreter: (state) > codecs2 list > [0] Item",             // only the interpreter reaches z
		8: "native held outside the heap: Item > [0] bytes",                // only w, held outside, reaches v
	}
	for id, w := range want {
		p, ok := r.Path(id)
		if !ok {
			t.Fatalf("no path to %d", id)
		}
		got := p.RootKind.String() + " " + p.RootName + ": " + p.Steps[0].Type
		for _, s := range p.Steps[1:] {
			got += " > " + s.Edge + " " + s.Type
		}
		if got != w {
			t.Errorf("Path(%d) = %q, want %q", id, got, w)
		}
	}
}
