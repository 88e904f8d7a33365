package heap_test

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"testing"

	"github.com/heapscope/heapscope/heap"
)

// TestLateEdgesOracle: edges whose source comes out of order (ByID) are
// merged in place; the graph must be the one a builder gets with every
// edge in order, each source's late edges after its own, and the
// warning about edges to no object must count and name the same.
func TestLateEdgesOracle(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 12))
	for i := range 2000 {
		n := 1 + r.IntN(30)
		type edge struct {
			from int
			to   uint64
			l    heap.Label
			late bool
		}
		var es []edge
		for range r.IntN(4 * n) {
			to := uint64(r.IntN(n + 2)) // n and n+1 point to no object
			es = append(es, edge{r.IntN(n), to, heap.IndexLabel(heap.Strong, uint64(r.IntN(5))), r.IntN(4) == 0})
		}
		build := func(mixed bool) *heap.Graph {
			b := heap.NewBuilder(heap.ByID)
			if r.IntN(2) == 0 {
				b.Grow(n, len(es)) // room for the late edges, or not
			}
			for range n {
				b.Object(0, b.Type("T"), 1)
			}
			var lates []edge
			for src := range n {
				for _, e := range es {
					if e.from != src {
						continue
					}
					if e.late && mixed {
						lates = append(lates, e)
					} else if !e.late {
						b.Edge(heap.ObjectID(e.from), e.to, e.l)
					}
				}
				if !mixed {
					for _, e := range es {
						if e.from == src && e.late {
							b.Edge(heap.ObjectID(e.from), e.to, e.l)
						}
					}
				}
			}
			for _, e := range lates { // after every in-order edge: out of order
				b.Edge(heap.ObjectID(e.from), e.to, e.l)
			}
			g, err := b.Build()
			if err != nil {
				t.Fatal(err)
			}
			return g
		}
		want, got := build(false), build(true)
		for id := range want.Objects() {
			if !reflect.DeepEqual(want.Edges(id), got.Edges(id)) {
				t.Fatalf("graph %d: Edges(%d) = %v, want %v", i, id, got.Edges(id), want.Edges(id))
			}
		}
		if fmt.Sprint(want.Warnings()) != fmt.Sprint(got.Warnings()) {
			t.Fatalf("graph %d: warnings %v, want %v", i, got.Warnings(), want.Warnings())
		}
	}
}
