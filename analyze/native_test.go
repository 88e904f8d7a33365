package analyze

import (
	"reflect"
	"testing"

	"github.com/heapscope/heapscope/heap"
	"github.com/heapscope/heapscope/internal/heaptest"
)

const nativeGraph = `
runtime python
root module m app
m module 100 -> .a=x .weakly=q __dict__=md
md dict 30
x Foo 10 -> .buf=y internal:__class__=k
y bytes 1000
z Bar 20 -> .data=w
w bytes 500
q Holder 10 -> weak:ref=z
t type 400
k Weird 300
s str 30
n int 28
big int 28
value n 7
value big 100000
refcount m 1
refcount md 3
refcount x 3
refcount y 1
refcount z 2
refcount w 1
refcount q 1
refcount t 50
refcount k 9
refcount s 2
refcount n 40
refcount big 2
`

func TestNativeHeld(t *testing.T) {
	g := heaptest.MustParse(t, nativeGraph)
	held := NativeHeld(g)
	// x: 3 references, 1 edge. z: 2 references, only a weak edge.
	// big: an int outside the small-int cache, held by nothing we see.
	// Noise left out: md (a module's dict), t (type), k (a class, it is
	// the target of __class__), s (str with 2 unexplained: interned),
	// n (small int).
	want := []NativeObject{{Object: 2, Refcount: 3, Edges: 1}, {Object: 4, Refcount: 2, Edges: 0}, {Object: 11, Refcount: 2, Edges: 0}}
	if !reflect.DeepEqual(held, want) {
		t.Fatalf("NativeHeld = %+v, want %+v", held, want)
	}
	if held[0].Excess() != 2 {
		t.Errorf("Excess = %d", held[0].Excess())
	}

	plain := Dominators(g, DomOptions{})
	if plain.Reachable(4) {
		t.Error("z reachable without extra roots")
	}
	dt := Dominators(g, DomOptions{ExtraRoots: NativeRoots(held)})
	if dt.Idom(2) != SuperRoot || dt.Retained(4) != 520 {
		t.Errorf("with native roots: Idom(x) = %d, Retained(z) = %d", dt.Idom(2), dt.Retained(4))
	}
	groups := NativeByType(dt, held)
	wantGroups := []NativeGroup{
		// x, y and class k; what x keeps where its memory is, the bytes y
		{Type: "Foo", Count: 1, Excess: 2, Retained: 1310, Sample: 2,
			Keeps: []KeptGroup{{Type: "bytes", Count: 1, Retained: 1000, Least: 1000, Most: 1000, Example: 3}}},
		{Type: "Bar", Count: 1, Excess: 2, Retained: 520, Sample: 4,
			Keeps: []KeptGroup{{Type: "bytes", Count: 1, Retained: 500, Least: 500, Most: 500, Example: 5}}},
		{Type: "int", Count: 1, Excess: 2, Retained: 28, Sample: 11},
	}
	if !reflect.DeepEqual(groups, wantGroups) {
		t.Errorf("NativeByType = %+v", groups)
	}
	p, ok := ShortestPaths(g, PathOptions{ExtraRoots: NativeRoots(held)}).Path(5)
	if !ok || p.RootKind != heap.RootNative || p.RootName != NativeRootName || len(p.Steps) != 2 {
		t.Errorf("path to w = %+v, %v", p, ok)
	}
}

func TestNativeHeldImmortalAndNoRefcounts(t *testing.T) {
	b := heap.NewBuilder(heap.ByID)
	ty := b.Type("Foo")
	b.Object(1, ty, 10)
	b.Object(2, ty, 10)
	b.SetRefcount(0, 5)
	b.SetRefcount(1, 5)
	b.SetFlags(0, heap.FlagImmortal)
	b.SetMeta(heap.Meta{Runtime: "python"})
	g, err := b.Build()
	if err != nil {
		t.Fatal(err)
	}
	if got := NativeHeld(g); len(got) != 1 || got[0].Object != 1 {
		t.Errorf("NativeHeld = %+v, want only object 1", got)
	}
	g = heaptest.MustParse(t, "a Foo 1")
	if got := NativeHeld(g); got != nil {
		t.Errorf("NativeHeld without refcounts = %+v", got)
	}
}
