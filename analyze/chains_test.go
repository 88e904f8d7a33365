package analyze

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/heapscope/heapscope/heap"
	"github.com/heapscope/heapscope/internal/heaptest"
)

// framePaths returns each frame's labels from the top, joined by ";".
func framePaths(c DomChains) []string {
	out := make([]string, len(c.Frames))
	for i, f := range c.Frames {
		out[i] = f.Label
		if f.Parent >= 0 {
			out[i] = out[f.Parent] + ";" + f.Label
		}
	}
	return out
}

// naiveChains computes what DominatorChains counts in each frame (by its
// path) one object at a time, for objects without names: the labels of
// the object's dominator chain, runs of one label as one, cut at the
// last level maxDepth allows and then at the first frame whose objects
// (all objects with that path as a prefix of theirs) retain less than
// min.
func naiveChains(g *heap.Graph, dt *DomTree, min uint64, maxDepth int) map[string][2]uint64 {
	paths := map[heap.ObjectID][]string{}
	total := map[string]uint64{}
	for v := range g.NumObjects() {
		id := heap.ObjectID(v)
		if !dt.Reachable(id) {
			continue
		}
		var labels []string
		for _, d := range append(DominatorChain(dt, id), id) {
			label := g.TypeName(g.Type(d))
			if len(labels) == 0 || labels[len(labels)-1] != label {
				labels = append(labels, label)
			}
			if len(labels) == maxDepth {
				break
			}
		}
		paths[id] = labels
		for k := range labels {
			total[strings.Join(labels[:k+1], ";")] += g.Size(id)
		}
	}
	out := map[string][2]uint64{}
	for id, labels := range paths {
		k := 0
		for k < len(labels)-1 && total[strings.Join(labels[:k+1], ";")] >= min {
			k++
		}
		p := strings.Join(labels[:k+1], ";")
		c := out[p]
		c[0]++
		c[1] += g.Size(id)
		out[p] = c
	}
	return out
}

func TestDominatorChainsOracle(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 12))
	for i := range 3000 {
		g, extra := randomGraph(r, 40)
		dt := Dominators(g, DomOptions{ExtraRoots: extra})
		min := uint64(0)
		if i%3 != 0 {
			min = uint64(r.IntN(300))
		}
		depth := []int{2, 3, 5, 64}[i%4]
		c := DominatorChains(dt, ChainOptions{MinRetained: min, MaxDepth: depth})
		got := map[string][2]uint64{}
		total := uint64(0)
		for k, p := range framePaths(c) {
			if _, dup := got[p]; dup {
				t.Fatalf("graph %d: frame %q twice", i, p)
			}
			if c.Frames[k].Count > 0 {
				got[p] = [2]uint64{uint64(c.Frames[k].Count), c.Frames[k].Bytes}
			}
			total += c.Frames[k].Bytes
		}
		if total != dt.Retained(SuperRoot) {
			t.Fatalf("graph %d: frames hold %d bytes, the tree %d", i, total, dt.Retained(SuperRoot))
		}
		want := naiveChains(g, dt, min, depth)
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Fatalf("graph %d (min %d, depth %d):\ngot  %v\nwant %v\n%s", i, min, depth, got, want, dumpGraph(g))
		}
	}
}

// TestDominatorChainsTotals checks on a planted heap that each frame's
// total is what its objects retain, that a linked list is one frame,
// and that small subtrees are folded into a frame of their type.
func TestDominatorChainsTotals(t *testing.T) {
	g, err := heaptest.Parse(`
mod module 100 -> d
name mod module app
d dict 50 -> s1 s2 n1 tiny
s1 Session 40 -> b1
s2 Session 40 -> b2
b1 bytes 1000
b2 bytes 3000
n1 Node 10 -> n2
n2 Node 10 -> n3
n3 Node 10 -> p
p bytes 500
tiny list 8 -> t1
t1 str 4
root global mod
`)
	if err != nil {
		t.Fatal(err)
	}
	dt := Dominators(g, DomOptions{})
	c := DominatorChains(dt, ChainOptions{MinRetained: 100})
	paths := framePaths(c)
	totals := make([]uint64, len(c.Frames))
	for i := len(c.Frames) - 1; i >= 0; i-- {
		totals[i] += c.Frames[i].Bytes
		if p := c.Frames[i].Parent; p >= 0 {
			totals[p] += totals[i]
		}
	}
	var lines []string
	for i, p := range paths {
		lines = append(lines, fmt.Sprintf("%s count=%d self=%d total=%d", p, c.Frames[i].Count, c.Frames[i].Bytes, totals[i]))
	}
	want := []string{
		"module app count=1 self=100 total=4772",
		"module app;dict count=1 self=50 total=4672",
		"module app;dict;Session count=2 self=80 total=4080",
		"module app;dict;Session;bytes count=2 self=4000 total=4000",
		"module app;dict;Node count=3 self=30 total=530",
		"module app;dict;Node;bytes count=1 self=500 total=500",
		"module app;dict;list count=2 self=12 total=12",
	}
	if !slices.Equal(lines, want) {
		t.Errorf("frames:\n%s\nwant\n%s", strings.Join(lines, "\n"), strings.Join(want, "\n"))
	}
	if c.Folded != 1 {
		t.Errorf("Folded = %d, want 1 (the str under the small list)", c.Folded)
	}
	s1 := heap.ObjectID(2)
	if got := totals[2]; got != dt.Retained(s1)+dt.Retained(s1+1) {
		t.Errorf("Session frame total %d, want the two sessions' retained sizes %d", got, dt.Retained(s1)+dt.Retained(s1+1))
	}
}

// TestDominatorChainsBounded checks MaxFrames and MaxDepth: a deep chain
// of distinct names and many distinct top-level names stay within the
// bounds, and the bytes are all still there.
func TestDominatorChainsBounded(t *testing.T) {
	b := heap.NewBuilder(heap.ByID)
	ty := b.Type("Node")
	const n = 5000
	for i := range n {
		b.Object(uint64(0x1000+16*i), ty, 8)
		b.SetName(heap.ObjectID(i), b.String(fmt.Sprintf("node %d", i%2500)))
		if i%2500 != 2499 {
			b.Edge(heap.ObjectID(i), uint64(i+1), heap.IndexLabel(heap.Strong, 0))
		}
		if i%2500 == 0 || i >= 4000 {
			b.Root(heap.RootOther, uint64(i), 0)
		}
	}
	g, err := b.Build()
	if err != nil {
		t.Fatal(err)
	}
	dt := Dominators(g, DomOptions{})
	c := DominatorChains(dt, ChainOptions{MaxDepth: 10, MaxFrames: 100})
	if len(c.Frames) > 101 {
		t.Errorf("%d frames, want at most 101", len(c.Frames))
	}
	total, other, deepest := uint64(0), false, 0
	for _, f := range c.Frames {
		total += f.Bytes
		other = other || f.Label == "(other)"
		deepest = max(deepest, f.Depth)
		if f.Depth >= 10 {
			t.Errorf("frame %q at depth %d", f.Label, f.Depth)
		}
	}
	if !other || deepest != 9 {
		t.Errorf("no (other) frame (%v) or the deepest frame at %d, not 9: the bounds were not reached", other, deepest)
	}
	if total != dt.Retained(SuperRoot) || total != 8*n {
		t.Errorf("frames hold %d bytes, want %d", total, 8*n)
	}
}
