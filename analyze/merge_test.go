package analyze

import (
	"cmp"
	"fmt"
	"math/rand/v2"
	"reflect"
	"slices"
	"testing"

	"github.com/heapscope/heapscope/heap"
)

// naiveMerge is MergePaths the plain way: it walks each target's path
// from the target up to its root, collapses runs of equal steps and cuts
// signatures longer than MaxSignature. It is quadratic on long chains;
// it is the oracle of the fast one.
func naiveMerge(r *Retainers, t *DomTree, objs []heap.ObjectID) ([]PathGroup, int) {
	g := r.g
	ret := make([]uint64, g.NumObjects())
	isTop := map[heap.ObjectID]bool{}
	if t != nil {
		ret = t.retained
		top, _ := TopMost(t, objs)
		for _, x := range top {
			isTop[x] = true
		}
	}
	var groups []PathGroup
	var samples []heap.ObjectID
	byKey := map[string]int{}
	unreached := 0
	for _, id := range objs {
		if !r.Reached(id) {
			unreached++
			continue
		}
		var up []SigStep
		var upEntry []bool
		var root heap.Label
		for v := id; ; {
			p, l := r.Parent(v)
			st := SigStep{Type: g.TypeName(g.Type(v))}
			if v != id {
				st.Name, _ = g.Name(v)
			}
			upEntry = append(upEntry, r.entry != nil && r.entry[g.Type(v)])
			if p == SuperRoot {
				up = append(up, st)
				root = l
				break
			}
			if l.IsIndex() {
				st.Edge = "[*]"
			} else {
				st.Edge = collapseEdge(g.String(l.Name()))
			}
			if RopeStep(st.Type, st.Edge) {
				st.Edge = RopeEdge
			}
			up = append(up, st)
			v = p
		}
		var sig []SigStep
		for i := len(up) - 1; i >= 0; i-- {
			if k := len(sig) - 1; k >= 0 && sig[k].Type == up[i].Type && sig[k].Name == up[i].Name &&
				(sig[k].Edge == up[i].Edge || upEntry[i] && upEntry[i+1]) {
				sig[k].Repeated = true
				continue
			}
			sig = append(sig, up[i])
		}
		if len(sig) > MaxSignature {
			sig = append(sig[:MaxSignature-2:MaxSignature-2], SigStep{Type: GapStep}, sig[len(sig)-1])
		}
		grp := PathGroup{Signature: sig}
		grp.RootKind, grp.RootName = r.rootOf(root)
		key := sortKey(&grp)
		i, ok := byKey[key]
		if !ok {
			i = len(groups)
			byKey[key] = i
			groups = append(groups, grp)
			samples = append(samples, id)
		}
		for k, st := range sig {
			groups[i].Signature[k].Repeated = groups[i].Signature[k].Repeated || st.Repeated
		}
		groups[i].Count++
		groups[i].Shallow += r.g.Size(id)
		if isTop[id] {
			groups[i].Retained += ret[id]
			delete(isTop, id)
		}
		if cmpRetained(ret, uint32(id), uint32(samples[i])) < 0 {
			samples[i] = id
		}
	}
	for i := range groups {
		groups[i].Sample, _ = r.Path(samples[i])
	}
	slices.SortFunc(groups, func(a, b PathGroup) int {
		if c := cmp.Compare(b.Retained, a.Retained); c != 0 {
			return c
		}
		if c := cmp.Compare(b.Count, a.Count); c != 0 {
			return c
		}
		return cmp.Compare(sortKey(&a), sortKey(&b))
	})
	return groups, unreached
}

// pathGraph makes a random graph whose paths are long and vary: objects
// mostly point to the next few, with few types and edge names, some that
// collapse ([3], ['k'], 42), so that runs of equal steps, signatures
// past the cap and shared prefixes all occur. Some objects have names
// (as class objects do), and one type is a container's entry (a Java
// HashMap$Node), whose runs take any edge. One type is a V8 rope's
// "(concatenated string)", and two edge names its halves, so that runs
// down ropes, whatever their halves, occur too.
func pathGraph(r *rand.Rand, n int) *heap.Graph {
	b := heap.NewBuilder(heap.ByID)
	b.SetMeta(heap.Meta{Runtime: "java"})
	types := []heap.TypeID{b.Type("A"), b.Type("B"), b.Type("java.util.HashMap$Node"), b.Type("(concatenated string)")}
	names := []heap.StringID{b.String("next"), b.String("val"), b.String("['k']"), b.String("42"), 0, b.String("first"), b.String("second")}
	objNames := []heap.StringID{b.String("class X"), b.String("class Y")}
	for i := range n {
		id := b.Object(uint64(0x1000+16*i), types[r.IntN(len(types))], uint64(r.IntN(100)))
		if r.IntN(8) == 0 {
			b.SetName(id, objNames[r.IntN(len(objNames))])
		}
	}
	for i := range n {
		for range r.IntN(3) {
			to := i + 1 + r.IntN(3)
			if r.IntN(10) == 0 {
				to = r.IntN(n)
			}
			if to >= n {
				continue
			}
			l := heap.NamedLabel(heap.Strong, names[r.IntN(len(names))])
			if r.IntN(5) == 0 {
				l = heap.IndexLabel(heap.Strong, uint64(r.IntN(4)))
			}
			b.Edge(heap.ObjectID(i), uint64(to), l)
		}
	}
	b.Root(heap.RootGlobal, 0, b.String("g"))
	for range r.IntN(3) {
		b.Root(heap.RootKind(r.IntN(8)), uint64(r.IntN(n)), b.String("r"))
	}
	g, err := b.Build()
	if err != nil {
		panic(err)
	}
	return g
}

// chain makes a linked list of n objects from a global root: with
// period 1 every step is "Node .next"; with period 2 the steps
// alternate "Node .box", "Box .n", so that no run collapses, but for the
// last tail objects, "Node .next" again.
func chain(n, period, tail int) *heap.Graph {
	b := heap.NewBuilder(heap.ByID)
	node, box := b.Type("Node"), b.Type("Box")
	next, bx, nn := b.String("next"), b.String("box"), b.String("n")
	for i := range n {
		t, l := node, next
		if period == 2 && i < n-tail {
			if i%2 == 1 {
				t, l = box, nn
			} else {
				l = bx
			}
		}
		b.Object(uint64(0x1000+16*i), t, 16)
		if i+1 < n {
			b.Edge(heap.ObjectID(i), uint64(i+1), heap.NamedLabel(heap.Strong, l))
		}
	}
	b.Root(heap.RootGlobal, 0, b.String("head"))
	g, err := b.Build()
	if err != nil {
		panic(err)
	}
	return g
}

func compareMerge(t *testing.T, name string, g *heap.Graph, r *Retainers, dt *DomTree, sel []heap.ObjectID) {
	t.Helper()
	got, gu := MergePaths(r, dt, sel)
	want, wu := naiveMerge(r, dt, sel)
	if gu != wu || len(got)+len(want) > 0 && !reflect.DeepEqual(got, want) {
		for i := range max(len(got), len(want)) {
			var a, b PathGroup
			if i < len(got) {
				a = got[i]
			}
			if i < len(want) {
				b = want[i]
			}
			if !reflect.DeepEqual(a, b) {
				t.Fatalf("%s: group %d of %d (want %d):\n got %+v\nwant %+v", name, i, len(got), len(want), a, b)
			}
		}
		t.Fatalf("%s: %d unreached, want %d", name, gu, wu)
	}
	// countPaths makes the same groups, with their counts and sizes
	// only, in the order they first occur.
	counted := countPaths(r, sel)
	if len(counted) != len(got) {
		t.Fatalf("%s: countPaths makes %d groups, MergePaths %d", name, len(counted), len(got))
	}
	byKey := map[string]PathGroup{}
	for _, grp := range got {
		byKey[signatureKey(grp)] = PathGroup{RootKind: grp.RootKind, RootName: grp.RootName, Signature: grp.Signature,
			Count: grp.Count, Shallow: grp.Shallow}
	}
	for _, c := range counted {
		if m, ok := byKey[signatureKey(c)]; !ok || !reflect.DeepEqual(c, m) {
			t.Fatalf("%s: countPaths group %+v, MergePaths %+v", name, c, m)
		}
	}
}

// TestMergePathsOracle compares MergePaths with the naive walk on random
// graphs (every type, shuffled selections with repeats, one Retainers
// reused across calls as leaks does) and on long chains.
func TestMergePathsOracle(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	for i := range 300 {
		g := pathGraph(r, 2+r.IntN(200))
		var extra []heap.ObjectID
		if i%3 == 0 {
			extra = []heap.ObjectID{heap.ObjectID(r.IntN(g.NumObjects()))}
		}
		pt := ShortestPaths(g, PathOptions{ExtraRoots: extra})
		dt := Dominators(g, DomOptions{ExtraRoots: extra})
		for _, typ := range []string{"A", "B", "java.util.HashMap$Node", "(concatenated string)"} {
			sel := Select(g, Selector{Type: typ})
			r.Shuffle(len(sel), func(a, b int) { sel[a], sel[b] = sel[b], sel[a] })
			if len(sel) > 0 {
				sel = append(sel, sel[0])
			}
			compareMerge(t, fmt.Sprintf("graph %d type %s", i, typ), g, pt, dt, sel)
			compareMerge(t, fmt.Sprintf("graph %d type %s, no tree", i, typ), g, pt, nil, sel)
		}
		// signature agrees with the groups.
		for v := range g.NumObjects() {
			id := heap.ObjectID(v)
			if !pt.Reached(id) {
				continue
			}
			sig, _, _ := pt.signature(id)
			want, _ := naiveMerge(pt, nil, []heap.ObjectID{id})
			if !reflect.DeepEqual(sig, want[0].Signature) {
				t.Fatalf("graph %d: signature(%d) = %+v, want %+v", i, v, sig, want[0].Signature)
			}
		}
	}
	for _, period := range []int{1, 2} {
		g := chain(3000, period, 5)
		pt := ShortestPaths(g, PathOptions{})
		dt := Dominators(g, DomOptions{})
		for _, typ := range []string{"Node", "Box"} {
			compareMerge(t, fmt.Sprintf("chain period %d type %s", period, typ), g, pt, dt, Select(g, Selector{Type: typ}))
		}
	}
}

// TestMergePathsRope merges the paths of the strings at the leaves of a
// V8 rope, reached down runs of "first" and "second" halves in every
// mix: two groups, by the leaf's own half, each with one rope step
// marked Repeated; and the rope's inner nodes, but for its root, in one.
func TestMergePathsRope(t *testing.T) {
	b := heap.NewBuilder(heap.ByID)
	cons, str := b.Type("(concatenated string)"), b.Type("string")
	halves := [2]heap.StringID{b.String("first"), b.String("second")}
	// A complete binary rope of depth 5 over 32 leaf strings.
	const depth = 5
	inner := 1<<depth - 1
	for i := range inner {
		b.Object(uint64(0x1000+16*i), cons, 32)
	}
	for i := range 1 << depth {
		b.Object(uint64(0x1000+16*(inner+i)), str, 24)
	}
	for i := range inner {
		for k := range 2 {
			b.Edge(heap.ObjectID(i), uint64(2*i+1+k), heap.NamedLabel(heap.Internal, halves[k]))
		}
	}
	b.Root(heap.RootGlobal, 0, b.String("text"))
	g, err := b.Build()
	if err != nil {
		t.Fatal(err)
	}
	pt := ShortestPaths(g, PathOptions{})
	rope := SigStep{Type: "(concatenated string)", Edge: RopeEdge, Repeated: true}
	groups, unreached := MergePaths(pt, nil, Select(g, Selector{Type: "string"}))
	var got []string
	for _, grp := range groups {
		got = append(got, fmt.Sprintf("%d %v", grp.Count, grp.Signature))
	}
	want := []string{
		fmt.Sprintf("16 %v", []SigStep{{Type: "(concatenated string)"}, rope, {Type: "string", Edge: "first"}}),
		fmt.Sprintf("16 %v", []SigStep{{Type: "(concatenated string)"}, rope, {Type: "string", Edge: "second"}}),
	}
	if unreached != 0 || !slices.Equal(got, want) {
		t.Errorf("leaves: groups\n%q, %d unreached; want\n%q", got, unreached, want)
	}
	groups, _ = MergePaths(pt, nil, Select(g, Selector{Type: "(concatenated string)"}))
	got = got[:0]
	for _, grp := range groups {
		got = append(got, fmt.Sprintf("%d %v", grp.Count, grp.Signature))
	}
	want = []string{
		fmt.Sprintf("%d %v", inner-1, []SigStep{{Type: "(concatenated string)"}, rope}),
		fmt.Sprintf("1 %v", []SigStep{{Type: "(concatenated string)"}}),
	}
	if !slices.Equal(got, want) {
		t.Errorf("inner nodes: groups\n%q; want\n%q", got, want)
	}
}

// TestMergePathsLinear counts the work MergePaths does on chains: every
// object's signature is computed once, whatever the number of targets
// below it, and a second call computes none; the groups stay few past
// the signature cap.
func TestMergePathsLinear(t *testing.T) {
	for _, period := range []int{1, 2} {
		for _, n := range []int{1000, 40_000} {
			g := chain(n, period, 0)
			pt := ShortestPaths(g, PathOptions{})
			dt := Dominators(g, DomOptions{})
			sel := Select(g, Selector{Type: "Node"})
			groups, _ := MergePaths(pt, dt, sel)
			// Every object above a Node, each once: all but the last
			// (period 1) or the last two (period 2).
			above := n - period
			if v := pt.sig.visits; v != above {
				t.Errorf("chain of %d, period %d: %d signatures computed, want one per object above a target (%d)", n, period, v, above)
			}
			MergePaths(pt, dt, sel)
			if v := pt.sig.visits; v != above {
				t.Errorf("chain of %d, period %d: a second call computed %d more signatures", n, period, v-above)
			}
			if max := MaxSignature/2 + 1; len(groups) > max {
				t.Errorf("chain of %d, period %d: %d groups, want at most %d", n, period, len(groups), max)
			}
			for _, grp := range groups {
				if len(grp.Signature) > MaxSignature {
					t.Errorf("chain of %d: a signature of %d steps", n, len(grp.Signature))
				}
			}
		}
	}
}

// BenchmarkMergePathsChain is why TYPE on a linked list whose every node
// is selected: the case that was quadratic. Each run starts from fresh
// shortest paths (not timed), since they keep the signatures computed.
//
//	go test -run XXX -bench MergePathsChain -benchtime 3x ./analyze/
func BenchmarkMergePathsChain(b *testing.B) {
	for _, period := range []int{1, 2} {
		for _, n := range []int{5_000, 40_000, 1_000_000} {
			b.Run(fmt.Sprintf("period=%d/n=%d", period, n), func(b *testing.B) {
				g := chain(n, period, 0)
				dt := Dominators(g, DomOptions{})
				sel := Select(g, Selector{Type: "Node"})
				b.ReportAllocs()
				b.ResetTimer()
				for range b.N {
					b.StopTimer()
					pt := ShortestPaths(g, PathOptions{})
					b.StartTimer()
					MergePaths(pt, dt, sel)
				}
			})
		}
	}
}
