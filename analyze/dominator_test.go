package analyze

import (
	"reflect"
	"testing"

	"github.com/heapscope/heapscope/heap"
	"github.com/heapscope/heapscope/internal/heaptest"
)

// named returns the ID of the object the DSL declared as the i-th (from
// 0), which is what heaptest gives it.
func named(i int) heap.ObjectID { return heap.ObjectID(i) }

// A module-level cache holding two leaks with their buffers, and an
// object they share with the module: retained sizes are planted.
const cacheGraph = `
runtime python
root module m app
m module 100 -> .CACHE=c .shared=sh internal:__class__=mt
c dict 40 -> <key>=k1 ['a']=l1 <key>=k2 ['b']=l2
k1 str 50
k2 str 50
l1 Leak 1000 -> .buf=b1
b1 bytes 5000
l2 Leak 1000 -> .buf=b2 .peer=sh weak:.back=c
b2 bytes 7000
sh Obj 10
o Obj 20 -> sh
mt type 400
`

const (
	cM, cC, cK1, cK2, cL1, cB1, cL2, cB2, cSh, cO, cMt = 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10
)

func TestDominatorsPlanted(t *testing.T) {
	g := heaptest.MustParse(t, cacheGraph)
	dt := Dominators(g, DomOptions{})
	want := map[heap.ObjectID]struct {
		idom     heap.ObjectID
		retained uint64
	}{
		cM:  {SuperRoot, 100 + 40 + 100 + 14000 + 10 + 400},
		cC:  {cM, 40 + 100 + 14000},
		cL1: {cC, 6000},
		cL2: {cC, 8000},
		cB2: {cL2, 7000},
		cSh: {cM, 10}, // held by m and by l2: only m dominates it
		cMt: {cM, 400},
		cO:  {Unreachable, 0},
		cK1: {cC, 50},
	}
	for id, w := range want {
		if got := dt.Idom(id); got != w.idom {
			t.Errorf("Idom(%d) = %d, want %d", id, got, w.idom)
		}
		if got := dt.Retained(id); got != w.retained {
			t.Errorf("Retained(%d) = %d, want %d", id, got, w.retained)
		}
	}
	if got := dt.Retained(SuperRoot); got != g.TotalSize()-20 {
		t.Errorf("Retained(SuperRoot) = %d, want %d", got, g.TotalSize()-20)
	}
	if got := dt.Children(cC); !reflect.DeepEqual(got, []heap.ObjectID{cL2, cL1, cK1, cK2}) {
		t.Errorf("Children(c) = %v", got)
	}
	if !dt.Dominates(cC, cB1) || dt.Dominates(cC, cSh) || !dt.Dominates(SuperRoot, cSh) {
		t.Error("Dominates is wrong")
	}
	u := Unreachables(dt)
	if u.Count != 1 || u.Bytes != 20 || len(u.ByType) != 1 || u.ByType[0].Name != "Obj" {
		t.Errorf("Unreachables = %+v", u)
	}

	stats := RetainedByType(dt)
	byName := map[string]TypeStat{}
	for _, s := range stats {
		byName[s.Name] = s
	}
	if s := byName["Leak"]; s.Count != 2 || s.Shallow != 2000 || s.Retained != 14000 {
		t.Errorf("Leak stats = %+v", s)
	}
	// dict c is under no other dict; bytes are under Leaks.
	if s := byName["bytes"]; s.Retained != 12000 {
		t.Errorf("bytes stats = %+v", s)
	}
	if stats[0].Name != "module" {
		t.Errorf("first type = %s, want module", stats[0].Name)
	}
	if top := TopRetained(dt, 3); !reflect.DeepEqual(top, []heap.ObjectID{cM, cC, cL2}) {
		t.Errorf("TopRetained = %v", top)
	}
	if c, b := RetainedBySet(dt, []heap.ObjectID{cL1, cL2}); c != 4 || b != 14000 {
		t.Errorf("RetainedBySet(leaks) = %d, %d", c, b)
	}
	// Removing m and o's target... removing l2 and m frees everything.
	if c, _ := RetainedBySet(dt, []heap.ObjectID{cM}); c != dt.NumReachable() {
		t.Errorf("RetainedBySet(m) = %d objects, want %d", c, dt.NumReachable())
	}
}

// Two instances of a type both needed to free a third object: the type
// figure counts what the instances dominate, RetainedBySet the truth.
func TestRetainedByTypeLowerBound(t *testing.T) {
	g := heaptest.MustParse(t, `
root global r
r Root 1 -> a b
a T 10 -> x
b T 10 -> x
x X 100
`)
	dt := Dominators(g, DomOptions{})
	var tStat TypeStat
	for _, s := range RetainedByType(dt) {
		if s.Name == "T" {
			tStat = s
		}
	}
	if tStat.Retained != 20 {
		t.Errorf("T retained = %d, want 20", tStat.Retained)
	}
	if _, b := RetainedBySet(dt, []heap.ObjectID{1, 2}); b != 120 {
		t.Errorf("RetainedBySet(T) = %d, want 120", b)
	}
}

func TestEdgeKinds(t *testing.T) {
	g := heaptest.MustParse(t, `
runtime v8
root vm R (GC roots)
R Root 1 -> shortcut:w=g1 internal:x=h
g1 Global 10 -> shortcut:s=y weak:z=z
h Hidden 5
y Y 7
z Z 3
`)
	dt := Dominators(g, DomOptions{})
	// The root's shortcut retains; g1's shortcut (not a root) and weak
	// edges do not.
	if !dt.Reachable(1) || !dt.Reachable(2) || dt.Reachable(3) || dt.Reachable(4) {
		t.Errorf("reachable: g1 %v h %v y %v z %v", dt.Reachable(1), dt.Reachable(2), dt.Reachable(3), dt.Reachable(4))
	}
	if dt.Retained(0) != 16 {
		t.Errorf("Retained(R) = %d, want 16", dt.Retained(0))
	}
	// Extra roots bring them in.
	dt = Dominators(g, DomOptions{ExtraRoots: []heap.ObjectID{3, 4, 99}})
	if !dt.Reachable(3) || dt.Idom(4) != SuperRoot || dt.Retained(SuperRoot) != 26 {
		t.Errorf("with extra roots: y %v, idom(z) %d, total %d", dt.Reachable(3), dt.Idom(4), dt.Retained(SuperRoot))
	}
	if !reflect.DeepEqual(dt.ExtraRoots(), []heap.ObjectID{3, 4}) {
		t.Errorf("ExtraRoots() = %v", dt.ExtraRoots())
	}
}

func TestEmptyGraph(t *testing.T) {
	b := heap.NewBuilder(heap.ByID)
	g, err := b.Build()
	if err != nil {
		t.Fatal(err)
	}
	dt := Dominators(g, DomOptions{})
	if dt.NumReachable() != 0 || dt.Retained(SuperRoot) != 0 || len(dt.Children(SuperRoot)) != 0 {
		t.Error("empty graph gives a non-empty tree")
	}
	if len(RetainedByType(dt)) != 0 || Unreachables(dt).Count != 0 {
		t.Error("empty graph gives stats")
	}
}

// A chain far deeper than any goroutine stack would allow recursion for.
func TestDeepChain(t *testing.T) {
	const n = 1_000_000
	b := heap.NewBuilder(heap.ByID)
	ty := b.Type("Node")
	for i := range n {
		b.Object(uint64(i), ty, 1)
		if i > 0 {
			b.Edge(heap.ObjectID(i-1), uint64(i), 0)
		}
	}
	b.Edge(n-1, 0, 0) // and back: a cycle
	b.Root(heap.RootStack, 0, 0)
	g, err := b.Build()
	if err != nil {
		t.Fatal(err)
	}
	dt := Dominators(g, DomOptions{})
	if dt.Retained(0) != n || dt.Retained(n/2) != n/2 || dt.Idom(n-1) != n-2 {
		t.Errorf("Retained(0) = %d, Retained(n/2) = %d, Idom(n-1) = %d", dt.Retained(0), dt.Retained(n/2), dt.Idom(n-1))
	}
	if s := RetainedByType(dt); len(s) != 1 || s[0].Retained != n {
		t.Errorf("RetainedByType = %+v", s)
	}
}

// TestUnreachablesWeak: of the objects no retaining edge reaches, those a
// reachable object reaches through a weak edge, and what they hold, are
// counted as weakly reached; garbage and what only garbage holds are not.
func TestUnreachablesWeak(t *testing.T) {
	g := heaptest.MustParse(t, `
runtime java
root global r jni global
r Holder 16 -> weak:referent=w .kept=k
k Obj 8
w Buf 100 -> .part=p .back=k
p Buf 50
o Obj 20 -> .x=q
q Obj 30
`)
	u := Unreachables(Dominators(g, DomOptions{}))
	if u.Count != 4 || u.Bytes != 200 || u.Weak != 2 || u.WeakBytes != 150 {
		t.Errorf("Unreachables = %d objects, %d bytes; weakly reached %d, %d bytes; want 4, 200; 2, 150", u.Count, u.Bytes, u.Weak, u.WeakBytes)
	}
}
