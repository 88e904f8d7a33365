package analyze

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/heapscope/heapscope/heap"
)

// oracle computes dominators the slow, obvious way: d dominates v when
// removing d from the flow graph makes v unreachable from the super-root.
type oracle struct {
	n         int
	reachable []bool
	dominated [][]bool // [d][v]: d dominates v (d an object)
	idom      []heap.ObjectID
	retained  []uint64
}

func newOracle(g *heap.Graph, extra []heap.ObjectID) *oracle {
	n := g.NumObjects()
	isRoot := make([]bool, n)
	for _, r := range g.Roots() {
		isRoot[r.Object] = true
	}
	var top []heap.ObjectID
	for _, r := range g.Roots() {
		top = append(top, r.Object)
	}
	for _, x := range extra {
		if int(x) < n {
			top = append(top, x)
		}
	}
	succ := make([][]heap.ObjectID, n)
	for v := range n {
		for _, e := range g.Edges(heap.ObjectID(v)) {
			k := e.Label.Kind()
			if k == heap.Strong || k == heap.Internal || (k == heap.Shortcut && isRoot[v]) {
				succ[v] = append(succ[v], e.To)
			}
		}
	}
	reach := func(removed int) []bool {
		seen := make([]bool, n)
		var q []heap.ObjectID
		for _, r := range top {
			if int(r) != removed && !seen[r] {
				seen[r] = true
				q = append(q, r)
			}
		}
		for len(q) > 0 {
			v := q[0]
			q = q[1:]
			for _, w := range succ[v] {
				if int(w) != removed && !seen[w] {
					seen[w] = true
					q = append(q, w)
				}
			}
		}
		return seen
	}
	o := &oracle{n: n, reachable: reach(-1), dominated: make([][]bool, n),
		idom: make([]heap.ObjectID, n), retained: make([]uint64, n)}
	for d := range n {
		o.dominated[d] = make([]bool, n)
		if !o.reachable[d] {
			continue
		}
		r := reach(d)
		for v := range n {
			if o.reachable[v] && !r[v] {
				o.dominated[d][v] = true
				o.retained[d] += g.Size(heap.ObjectID(v))
			}
		}
	}
	for v := range n {
		if !o.reachable[v] {
			o.idom[v] = Unreachable
			continue
		}
		best, bestSize := SuperRoot, n+1
		for d := range n {
			if d == v || !o.dominated[d][v] {
				continue
			}
			size := 0
			for _, x := range o.dominated[d] {
				if x {
					size++
				}
			}
			if size < bestSize {
				best, bestSize = heap.ObjectID(d), size
			}
		}
		o.idom[v] = best
	}
	return o
}

// compare reports the first difference between t and the oracle.
func (o *oracle) compare(t *DomTree) error {
	var total uint64
	nreach := 0
	for v := range o.n {
		id := heap.ObjectID(v)
		if t.Reachable(id) != o.reachable[v] {
			return fmt.Errorf("Reachable(%d) = %v, want %v", v, t.Reachable(id), o.reachable[v])
		}
		if got := t.Idom(id); got != o.idom[v] {
			return fmt.Errorf("Idom(%d) = %d, want %d", v, got, o.idom[v])
		}
		if got := t.Retained(id); got != o.retained[v] {
			return fmt.Errorf("Retained(%d) = %d, want %d", v, got, o.retained[v])
		}
		if o.reachable[v] {
			nreach++
			total += t.g.Size(id)
		}
	}
	if t.NumReachable() != nreach {
		return fmt.Errorf("NumReachable() = %d, want %d", t.NumReachable(), nreach)
	}
	if got := t.Retained(SuperRoot); got != total {
		return fmt.Errorf("Retained(SuperRoot) = %d, want %d", got, total)
	}
	// Children agree with Idom, are sorted, and cover every reachable object.
	seen := 0
	for _, p := range append([]heap.ObjectID{SuperRoot}, ids(o.n)...) {
		kids := t.Children(p)
		for i, c := range kids {
			if t.Idom(c) != p {
				return fmt.Errorf("Children(%d) has %d whose Idom is %d", p, c, t.Idom(c))
			}
			if i > 0 && cmpRetained(t.retained, uint32(kids[i-1]), uint32(c)) >= 0 {
				return fmt.Errorf("Children(%d) out of order: %v", p, kids)
			}
		}
		seen += len(kids)
	}
	if seen != nreach {
		return fmt.Errorf("children lists hold %d objects, want %d", seen, nreach)
	}
	return nil
}

func ids(n int) []heap.ObjectID {
	s := make([]heap.ObjectID, n)
	for i := range s {
		s[i] = heap.ObjectID(i)
	}
	return s
}

// randomGraph builds a graph of 1..maxN objects with cycles, self edges,
// all four edge kinds, several (possibly repeated) roots and unreachable
// parts.
func randomGraph(r *rand.Rand, maxN int) (*heap.Graph, []heap.ObjectID) {
	n := 1 + r.IntN(maxN)
	b := heap.NewBuilder(heap.ByID)
	types := []heap.TypeID{b.Type("A"), b.Type("B"), b.Type("C")}
	for i := range n {
		b.Object(uint64(0x1000+16*i), types[r.IntN(len(types))], uint64(r.IntN(100)))
	}
	m := r.IntN(4*n + 1)
	for range m {
		from := heap.ObjectID(r.IntN(n))
		to := uint64(r.IntN(n))
		var k heap.EdgeKind
		switch x := r.IntN(20); {
		case x < 12:
			k = heap.Strong
		case x < 15:
			k = heap.Weak
		case x < 17:
			k = heap.Internal
		default:
			k = heap.Shortcut
		}
		b.Edge(from, to, heap.IndexLabel(k, uint64(r.IntN(4))))
	}
	for range r.IntN(6) {
		b.Root(heap.RootKind(r.IntN(8)), uint64(r.IntN(n)), 0)
	}
	var extra []heap.ObjectID
	if r.IntN(3) == 0 {
		for range 1 + r.IntN(3) {
			extra = append(extra, heap.ObjectID(r.IntN(n+1))) // n is out of range: ignored
		}
	}
	g, err := b.Build()
	if err != nil {
		panic(err)
	}
	return g, extra
}

func TestDominatorsOracle(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for i := range 4000 {
		maxN := 60
		if i < 300 {
			maxN = 8
		}
		g, extra := randomGraph(r, maxN)
		dt := Dominators(g, DomOptions{ExtraRoots: extra})
		if err := newOracle(g, extra).compare(dt); err != nil {
			t.Fatalf("graph %d (%d objects, %d edges, roots %v, extra %v): %v\n%s",
				i, g.NumObjects(), g.NumEdges(), g.Roots(), extra, err, dumpGraph(g))
		}
		if err := checkTypeRetained(g, dt); err != nil {
			t.Fatalf("graph %d: %v\n%s", i, err, dumpGraph(g))
		}
	}
}

func dumpGraph(g *heap.Graph) string {
	s := ""
	for v := range g.NumObjects() {
		s += fmt.Sprintf("%d %s %d ->", v, g.TypeName(g.Type(heap.ObjectID(v))), g.Size(heap.ObjectID(v)))
		for _, e := range g.Edges(heap.ObjectID(v)) {
			s += fmt.Sprintf(" %s:%d", e.Label.Kind(), e.To)
		}
		s += "\n"
	}
	return s
}

// FuzzDominators decodes bytes into a small graph: byte 0 is the object
// count, byte 1 the number of roots, then one byte per root, then
// three bytes per edge (from, to, kind and index).
func FuzzDominators(f *testing.F) {
	f.Add([]byte{3, 1, 0, 0, 1, 0, 1, 2, 0, 2, 1, 1})
	f.Add([]byte{5, 2, 0, 3, 0, 1, 0, 1, 1, 0, 1, 2, 0, 2, 3, 0, 3, 4, 3, 4, 4, 0})
	f.Add([]byte{1, 1, 0, 0, 0, 0})
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) < 2 {
			return
		}
		n := 1 + int(data[0])%60
		b := heap.NewBuilder(heap.ByID)
		ty := []heap.TypeID{b.Type("A"), b.Type("B")}
		for i := range n {
			b.Object(uint64(i), ty[i%2], uint64(1+i%7))
		}
		nroots := int(data[1]) % 4
		data = data[2:]
		for i := 0; i < nroots && i < len(data); i++ {
			b.Root(heap.RootOther, uint64(int(data[i])%n), 0)
		}
		data = data[min(nroots, len(data)):]
		var extra []heap.ObjectID
		for ; len(data) >= 3; data = data[3:] {
			from, to := int(data[0])%n, uint64(int(data[1])%n)
			if data[2] == 0xff {
				extra = append(extra, heap.ObjectID(from))
				continue
			}
			b.Edge(heap.ObjectID(from), to, heap.IndexLabel(heap.EdgeKind(data[2]&3), uint64(data[2]>>2)))
		}
		g, err := b.Build()
		if err != nil {
			t.Fatal(err)
		}
		dt := Dominators(g, DomOptions{ExtraRoots: extra})
		if err := newOracle(g, extra).compare(dt); err != nil {
			t.Fatalf("%v\n%s", err, dumpGraph(g))
		}
	})
}

// TestShortestPathsOracle checks paths on random graphs: a path exists
// exactly when the object is reachable, its steps follow real edges with
// the names given, and its length is the breadth-first distance.
func TestShortestPathsOracle(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for i := range 500 {
		g, extra := randomGraph(r, 40)
		o := newOracle(g, extra)
		dist := bfsDistances(g, extra)
		tiers := lowestTiers(g, extra)
		pt := ShortestPaths(g, PathOptions{ExtraRoots: extra})
		for v := range g.NumObjects() {
			id := heap.ObjectID(v)
			p, ok := pt.Path(id)
			if ok != o.reachable[v] {
				t.Fatalf("graph %d: Path(%d) ok = %v, reachable %v", i, v, ok, o.reachable[v])
			}
			if !ok {
				continue
			}
			if tier := rootTier(p.RootKind, p.RootName == NativeRootName); tier != tiers[v] {
				t.Fatalf("graph %d: Path(%d) starts at a root of tier %d, the lowest that reaches it is %d", i, v, tier, tiers[v])
			}
			if len(p.Steps) != dist[v]+1 || p.Steps[len(p.Steps)-1].Object != id {
				t.Fatalf("graph %d: Path(%d) has %d steps, distance %d", i, v, len(p.Steps), dist[v])
			}
			for k := 1; k < len(p.Steps); k++ {
				from, to := p.Steps[k-1].Object, p.Steps[k].Object
				found := false
				for _, e := range g.Edges(from) {
					if e.To == to && g.EdgeName(e.Label) == p.Steps[k].Edge && e.Label.Kind() == p.Steps[k].Kind && e.Label.Kind() != heap.Weak {
						found = true
					}
				}
				if !found {
					t.Fatalf("graph %d: Path(%d) step %d: no edge %d -> %d named %q", i, v, k, from, to, p.Steps[k].Edge)
				}
			}
		}
		// Merged paths partition the reachable selection and its
		// retained memory.
		dt := Dominators(g, DomOptions{ExtraRoots: extra})
		sel := Select(g, Selector{Type: "A"})
		groups, unreached := MergePaths(pt, dt, sel)
		_, wantRetained := TopMost(dt, sel)
		count, retained := unreached, uint64(0)
		for _, grp := range groups {
			count += grp.Count
			retained += grp.Retained
			sig, _, _ := pt.signature(grp.Sample.Steps[len(grp.Sample.Steps)-1].Object)
			if len(sig) != len(grp.Signature) {
				t.Fatalf("graph %d: sample signature %v, group %v", i, sig, grp.Signature)
			}
		}
		if count != len(sel) || retained != wantRetained {
			t.Fatalf("graph %d: groups hold %d objects, %d bytes; want %d, %d", i, count, retained, len(sel), wantRetained)
		}
	}
}

// bfsDistances returns each object's distance from the nearest root
// over retaining edges (-1 when unreachable).
func bfsDistances(g *heap.Graph, extra []heap.ObjectID) []int {
	n := g.NumObjects()
	isRoot := make([]bool, n)
	dist := make([]int, n)
	for i := range dist {
		dist[i] = -1
	}
	for _, r := range g.Roots() {
		isRoot[r.Object] = true
	}
	// Tier by tier (the program's roots, the runtime's, the extra ones),
	// each a breadth-first search through what the earlier left.
	var roots [3][]heap.ObjectID
	for _, r := range g.Roots() {
		t := 0
		if r.Kind == heap.RootVM {
			t = 1
		}
		roots[t] = append(roots[t], r.Object)
	}
	for _, x := range extra {
		if int(x) < n {
			roots[2] = append(roots[2], x)
		}
	}
	for _, tier := range roots {
		var q []heap.ObjectID
		push := func(x heap.ObjectID, d int) {
			if dist[x] < 0 {
				dist[x] = d
				q = append(q, x)
			}
		}
		for _, x := range tier {
			push(x, 0)
		}
		for len(q) > 0 {
			v := q[0]
			q = q[1:]
			for _, e := range g.Edges(v) {
				k := e.Label.Kind()
				if k == heap.Strong || k == heap.Internal || (k == heap.Shortcut && isRoot[v]) {
					push(e.To, dist[v]+1)
				}
			}
		}
	}
	return dist
}

// lowestTiers gives for each object the lowest tier of roots (0: the
// program's, 1: [heap.RootVM], 2: extra) from which a retaining path
// leads to it, by a depth-first search per tier over the whole graph; -1
// when none does.
func lowestTiers(g *heap.Graph, extra []heap.ObjectID) []int {
	n := g.NumObjects()
	out := make([]int, n)
	for i := range out {
		out[i] = -1
	}
	isRoot := make([]bool, n)
	for _, r := range g.Roots() {
		isRoot[r.Object] = true
	}
	for tier := 2; tier >= 0; tier-- {
		var stack []heap.ObjectID
		for _, r := range g.Roots() {
			if (r.Kind == heap.RootVM) == (tier == 1) && tier != 2 {
				stack = append(stack, r.Object)
			}
		}
		if tier == 2 {
			for _, x := range extra {
				if int(x) < n {
					stack = append(stack, x)
				}
			}
		}
		seen := make([]bool, n)
		for len(stack) > 0 {
			v := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			if seen[v] {
				continue
			}
			seen[v] = true
			out[v] = tier
			for _, e := range g.Edges(v) {
				k := e.Label.Kind()
				if k == heap.Strong || k == heap.Internal || (k == heap.Shortcut && isRoot[v]) {
					stack = append(stack, e.To)
				}
			}
		}
	}
	return out
}
