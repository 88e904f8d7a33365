package analyze

import (
	"math/rand/v2"
	"slices"
	"sort"
	"testing"

	"github.com/heapscope/heapscope/heap"
)

// TestTopRetainedOracle checks the ranking's heap selection and pair sort
// against the obvious way: every reachable object, sorted by retained
// size (largest first) then ID, cut to k. Small sizes make ties common.
func TestTopRetainedOracle(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for i := range 500 {
		g, extra := randomGraph(r, 80)
		dt := Dominators(g, DomOptions{ExtraRoots: extra})
		var want []heap.ObjectID
		for v := range heap.ObjectID(g.NumObjects()) {
			if dt.Reachable(v) {
				want = append(want, v)
			}
		}
		sort.SliceStable(want, func(a, b int) bool { return dt.Retained(want[a]) > dt.Retained(want[b]) })
		for k := 0; k <= len(want)+1; k++ {
			w := want
			if k > 0 && k < len(w) {
				w = w[:k]
			}
			if got := TopRetained(dt, k); !slices.Equal(got, w) {
				t.Fatalf("graph %d, k=%d: TopRetained = %v, want %v\n%s", i, k, got, w, dumpGraph(g))
			}
		}
	}
}
