package heap_test

import (
	"math/rand/v2"
	"testing"

	"github.com/heapscope/heapscope/heap"
)

// TestBuilderWithoutReferences builds what a census reads: many objects,
// no references, roots by address (some at addresses two objects share,
// some at none). The graph must be whole (Validate), every object without
// edges, and each root at the first object of its address, as a naive
// search of the addresses finds it.
func TestBuilderWithoutReferences(t *testing.T) {
	for _, n := range []int{1, 7, 200_000} {
		rng := rand.New(rand.NewPCG(uint64(n), 1))
		b := heap.NewBuilder(heap.ByAddress)
		b.Grow(n, 0)
		ty := b.Type("T")
		addrs := make([]uint64, n)
		for i := range addrs {
			addrs[i] = rng.Uint64N(1<<47) &^ 15
			if i > 0 && rng.IntN(50) == 0 {
				addrs[i] = addrs[rng.IntN(i)] // shared with an earlier object
			}
			b.Object(addrs[i], ty, uint64(16+i%5*8))
		}
		var targets []uint64
		for k := 0; k < 5000; k++ {
			a := addrs[rng.IntN(n)]
			if k%3 == 0 {
				a = rng.Uint64N(1<<47) | 1 // no object there
			}
			targets = append(targets, a)
			b.Root(heap.RootModule, a, 0)
		}
		g, err := b.Build()
		if err != nil {
			t.Fatal(err)
		}
		if err := g.Validate(); err != nil {
			t.Fatalf("n=%d: %v", n, err)
		}
		if g.NumEdges() != 0 {
			t.Fatalf("n=%d: %d edges, want 0", n, g.NumEdges())
		}
		for id := range heap.ObjectID(n) {
			if e := g.Edges(id); len(e) != 0 {
				t.Fatalf("n=%d: object %d has edges %v", n, id, e)
			}
		}
		first := map[uint64]heap.ObjectID{}
		for i := n - 1; i >= 0; i-- {
			first[addrs[i]] = heap.ObjectID(i)
		}
		var want []heap.ObjectID
		for _, a := range targets {
			if id, ok := first[a]; ok {
				want = append(want, id)
			}
		}
		roots := g.Roots()
		if len(roots) != len(want) {
			t.Fatalf("n=%d: %d roots, want %d", n, len(roots), len(want))
		}
		for i, r := range roots {
			if r.Object != want[i] {
				t.Fatalf("n=%d: root %d at object %d, want %d (the first at its address)", n, i, r.Object, want[i])
			}
		}
	}
}
