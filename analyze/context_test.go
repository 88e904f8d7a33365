package analyze

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/heapscope/heapscope/heap"
)

// TestContextOracle checks Context against the chains and paths it
// stands for, found the slow way: the context is exactly the objects
// not listed that some listed object's dominator chain or shortest path
// goes through, or, in turn, the chain or path of such an object.
func TestContextOracle(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	for i := range 1000 {
		g, extra := randomGraph(r, 60)
		dt := Dominators(g, DomOptions{ExtraRoots: extra})
		paths := ShortestPaths(g, PathOptions{ExtraRoots: extra})
		var objs []heap.ObjectID
		for v := range heap.ObjectID(g.NumObjects()) {
			if r.IntN(4) == 0 {
				objs = append(objs, v)
			}
		}
		in := map[heap.ObjectID]bool{}
		for _, x := range objs {
			in[x] = true
		}
		// Grow the set by whole chains and paths until nothing changes.
		for changed := true; changed; {
			changed = false
			for x := range heap.ObjectID(g.NumObjects()) {
				if !in[x] {
					continue
				}
				via := DominatorChain(dt, x)
				if p, ok := paths.Path(x); ok {
					for _, s := range p.Steps {
						via = append(via, s.Object)
					}
				}
				for _, v := range via {
					if !in[v] {
						in[v], changed = true, true
					}
				}
			}
		}
		listed := map[heap.ObjectID]bool{}
		for _, x := range objs {
			listed[x] = true
		}
		var want []heap.ObjectID
		for v := range heap.ObjectID(g.NumObjects()) {
			if in[v] && !listed[v] {
				want = append(want, v)
			}
		}
		if got := Context(dt, paths, objs); !slices.Equal(got, want) {
			t.Fatalf("graph %d, objects %v: Context = %v, want %v\n%s", i, objs, got, want, dumpGraph(g))
		}
	}
}
