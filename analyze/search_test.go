package analyze

import (
	"math/rand/v2"
	"sync"
	"testing"

	"github.com/heapscope/heapscope/heap"
)

// TestLazyPaths: the path search runs only as far as questions need, and
// its answers do not depend on which questions came first or from how
// many goroutines: on random graphs, live and not, asking for a few
// objects' parents (some from other goroutines) and then for all gives
// what a search run to its end at once gives.
func TestLazyPaths(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 10))
	for i := range 1000 {
		g, extra := randomGraph(r, 60)
		if i%2 == 1 {
			g = liveCopy(g)
		}
		opt := PathOptions{ExtraRoots: extra, IncludeWeak: i%3 == 0}
		whole := ShortestPaths(g, opt)
		whole.finish()
		lazy := ShortestPaths(g, opt)
		var wg sync.WaitGroup
		for range r.IntN(4) {
			id := heap.ObjectID(r.IntN(g.NumObjects()))
			wg.Add(1)
			go func() {
				defer wg.Done()
				lazy.Parent(id)
			}()
		}
		for range r.IntN(4) {
			lazy.Reached(heap.ObjectID(r.IntN(g.NumObjects())))
		}
		wg.Wait()
		for v := range heap.ObjectID(g.NumObjects()) {
			wp, wl := whole.Parent(v)
			lp, ll := lazy.Parent(v)
			if wp != lp || wl != ll {
				t.Fatalf("graph %d: Parent(%d) = %d, %v asked lazily, %d, %v at once\n%s", i, v, lp, ll, wp, wl, dumpGraph(g))
			}
		}
	}
}

// liveCopy returns randomGraph's graph g as a snapshot of live objects
// only (heap.Meta.Live), whose path search goes on through the edges
// that do not retain. randomGraph's labels are indices, its roots
// unnamed.
func liveCopy(g *heap.Graph) *heap.Graph {
	b := heap.NewBuilder(heap.ByID)
	for id := range g.Objects() {
		b.Object(g.Addr(id), b.Type(g.TypeName(g.Type(id))), g.Size(id))
	}
	for id := range g.Objects() {
		for _, e := range g.Edges(id) {
			b.Edge(id, uint64(e.To), e.Label)
		}
	}
	for _, r := range g.Roots() {
		b.Root(r.Kind, uint64(r.Object), 0)
	}
	b.SetMeta(heap.Meta{Runtime: "test", Live: true})
	lg, err := b.Build()
	if err != nil {
		panic(err)
	}
	return lg
}
