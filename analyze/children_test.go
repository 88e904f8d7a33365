package analyze

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/heapscope/heapscope/heap"
)

// TestChildLinesTreeView checks ChildLines against TreeView one level
// deep, which names each child by scanning the parent's edges on its own
// and sums its children's retained sizes: for every node of random
// graphs, whole and by pages.
func TestChildLinesTreeView(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for i := range 500 {
		g, extra := randomGraph(r, 40)
		dt := Dominators(g, DomOptions{ExtraRoots: extra})
		nodes := append([]heap.ObjectID{SuperRoot}, ids(g.NumObjects())...)
		for _, p := range nodes {
			if !dt.Reachable(p) {
				continue
			}
			want := TreeView(dt, p, TreeOptions{MaxDepth: 1})[1:]
			kids := dt.Children(p)
			if got := ChildLines(dt, p, kids); !slices.Equal(got, want) {
				t.Fatalf("graph %d, node %d: ChildLines = %v, want %v\n%s", i, p, got, want, dumpGraph(g))
			}
			for off := 0; off < len(kids); off += 3 {
				end := min(off+3, len(kids))
				if got := ChildLines(dt, p, kids[off:end]); !slices.Equal(got, want[off:end]) {
					t.Fatalf("graph %d, node %d, page %d: ChildLines = %v, want %v", i, p, off, got, want[off:end])
				}
			}
		}
	}
}
