package analyze

import (
	"math/rand/v2"
	"testing"

	"github.com/heapscope/heapscope/heap"
)

// TestRetainedSetOracle checks RetainedSet on random graphs against the
// dominator tree: the retained set of one object is its dominator
// subtree (same size), and that of several holds every member's subtree.
func TestRetainedSetOracle(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for i := range 2000 {
		g, extra := randomGraph(r, 40)
		opt := DomOptions{ExtraRoots: extra}
		dt := Dominators(g, opt)
		x := heap.ObjectID(r.IntN(g.NumObjects()))
		var sum uint64
		for _, id := range RetainedSet(g, opt, []heap.ObjectID{x}) {
			sum += g.Size(id)
		}
		if sum != dt.Retained(x) {
			t.Fatalf("graph %d: retained set of %d sums to %d, dominator tree says %d\n%s", i, x, sum, dt.Retained(x), dumpGraph(g))
		}
		set := []heap.ObjectID{x, heap.ObjectID(r.IntN(g.NumObjects()))}
		in := map[heap.ObjectID]bool{}
		for _, id := range RetainedSet(g, opt, set) {
			in[id] = true
		}
		for v := range g.NumObjects() {
			for _, m := range set {
				if dt.Reachable(heap.ObjectID(v)) && dominates(dt, m, heap.ObjectID(v)) && !in[heap.ObjectID(v)] {
					t.Fatalf("graph %d: %d dominates %d, which the retained set of %v lacks\n%s", i, m, v, set, dumpGraph(g))
				}
			}
		}
	}
}

// dominates reports whether d is v or an ancestor of v in the tree.
func dominates(t *DomTree, d, v heap.ObjectID) bool {
	for k := v; k != SuperRoot && k != Unreachable; k = t.Idom(k) {
		if k == d {
			return true
		}
	}
	return false
}

// TestRetainedSetShared checks the case the dominator tree alone misses:
// an object two members hold is freed with both, though neither
// dominates it.
func TestRetainedSetShared(t *testing.T) {
	b := heap.NewBuilder(heap.ByID)
	ty := b.Type("T")
	for i := range 4 {
		b.Object(uint64(0x100+16*i), ty, 10)
	}
	// root 0 -> 1, 0 -> 2; 1 -> 3, 2 -> 3
	b.Edge(0, 1, heap.IndexLabel(heap.Strong, 0))
	b.Edge(0, 2, heap.IndexLabel(heap.Strong, 1))
	b.Edge(1, 3, heap.IndexLabel(heap.Strong, 0))
	b.Edge(2, 3, heap.IndexLabel(heap.Strong, 0))
	b.Root(heap.RootGlobal, 0, 0)
	g, err := b.Build()
	if err != nil {
		t.Fatal(err)
	}
	got := RetainedSet(g, DomOptions{}, []heap.ObjectID{1, 2})
	if len(got) != 3 || got[0] != 1 || got[1] != 2 || got[2] != 3 {
		t.Errorf("retained set of 1 and 2: %v, want [1 2 3]", got)
	}
	if got := RetainedSet(g, DomOptions{}, []heap.ObjectID{1}); len(got) != 1 {
		t.Errorf("retained set of 1: %v, want [1]", got)
	}
}
