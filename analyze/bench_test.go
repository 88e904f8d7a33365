package analyze

import (
	"fmt"
	"math/rand/v2"
	"runtime"
	"sync"
	"testing"

	"github.com/heapscope/heapscope/heap"
)

var (
	synthMu     sync.Mutex
	synthGraphs = map[string]*heap.Graph{}
)

// synthGraph returns a graph of n objects of the given shape, built once
// per shape and size (one at a time is kept in memory).
func synthGraph(tb testing.TB, shape string, n int) *heap.Graph {
	synthMu.Lock()
	defer synthMu.Unlock()
	key := fmt.Sprint(shape, n)
	if g := synthGraphs[key]; g != nil {
		return g
	}
	clear(synthGraphs)
	runtime.GC()
	var g *heap.Graph
	var err error
	if shape == "random" {
		g, err = randomShape(n)
	} else {
		g, err = heapShape(n)
	}
	if err != nil {
		tb.Fatal(err)
	}
	synthGraphs[key] = g
	return g
}

// heapShape: a spanning tree where each object's parent was allocated
// shortly before it (90%: one of the 16 objects before; 10%: any earlier
// object), plus shared references: 0.6 per object to one of 1000 "hub"
// objects (types, interned strings), 0.5 to one of the 4096 objects
// before or after it, and 0.1 weak references to any object. About 2.2
// edges per object; most objects have one referrer, as in real heaps.
// 200 roots.
func heapShape(n int) (*heap.Graph, error) {
	r := rand.New(rand.NewPCG(9, uint64(n)))
	deg := make([]uint32, n+1)
	parent := make([]uint32, n)
	for j := 1; j < n; j++ {
		p := j - 1 - r.IntN(min(j, 16))
		if r.IntN(10) == 0 {
			p = r.IntN(j)
		}
		parent[j] = uint32(p)
		deg[p+1]++
	}
	for i := 1; i <= n; i++ {
		deg[i] += deg[i-1]
	}
	kids := make([]uint32, n)
	fill := deg[:n:n]
	for j := 1; j < n; j++ {
		p := parent[j]
		kids[fill[p]] = uint32(j)
		fill[p]++
	}
	// fill[p] is now the end of p's children; its start is fill[p-1].
	b := heap.NewBuilder(heap.ByID)
	b.Grow(n, n*23/10)
	types := make([]heap.TypeID, 50)
	for i := range types {
		types[i] = b.Type(fmt.Sprintf("T%d", i))
	}
	for i := range n {
		b.Object(uint64(i), types[r.IntN(len(types))], uint64(16+8*r.IntN(16)))
	}
	name := b.String("f")
	start := uint32(0)
	for i := range n {
		for _, k := range kids[start:fill[i]] {
			b.Edge(heap.ObjectID(i), uint64(k), heap.NamedLabel(heap.Strong, name))
		}
		start = fill[i]
		if r.IntN(10) < 6 {
			b.Edge(heap.ObjectID(i), uint64(r.IntN(min(n, 1000))), heap.NamedLabel(heap.Strong, name))
		}
		if r.IntN(2) == 0 {
			to := i - 4096 + r.IntN(8192)
			if to >= 0 && to < n {
				b.Edge(heap.ObjectID(i), uint64(to), heap.NamedLabel(heap.Strong, name))
			}
		}
		if r.IntN(10) == 0 {
			b.Edge(heap.ObjectID(i), uint64(r.IntN(n)), heap.NamedLabel(heap.Weak, name))
		}
	}
	for i := 0; i < n; i += max(1, n/200) {
		b.Root(heap.RootGlobal, uint64(i), 0)
	}
	return b.Build()
}

// randomShape: about 3 edges per object: 70% to one of the next 64
// objects (deep chains and wide fans), 20% to any object (sharing,
// cycles), 10% weak; 200 roots. Most objects have several referrers
// scattered over the graph: a stress test, harsher than real heaps.
func randomShape(n int) (*heap.Graph, error) {
	r := rand.New(rand.NewPCG(7, uint64(n)))
	b := heap.NewBuilder(heap.ByID)
	b.Grow(n, 3*n)
	types := make([]heap.TypeID, 50)
	for i := range types {
		types[i] = b.Type(fmt.Sprintf("T%d", i))
	}
	for i := range n {
		b.Object(uint64(i), types[r.IntN(len(types))], uint64(16+8*r.IntN(16)))
	}
	name := b.String("f")
	for i := range n {
		for range r.IntN(7) {
			var to uint64
			k := heap.Strong
			switch x := r.IntN(10); {
			case x < 7:
				to = uint64(i + 1 + r.IntN(64))
				if to >= uint64(n) {
					continue
				}
			case x < 9:
				to = uint64(r.IntN(n))
			default:
				to = uint64(r.IntN(n))
				k = heap.Weak
			}
			b.Edge(heap.ObjectID(i), to, heap.NamedLabel(k, name))
		}
	}
	for i := 0; i < n; i += max(1, n/200) {
		b.Root(heap.RootGlobal, uint64(i), 0)
	}
	return b.Build()
}

// BenchmarkDominators measures Dominators on synthetic graphs. Besides
// the usual figures it reports B/obj: bytes allocated per object of the
// graph (everything Dominators allocates, working arrays and the tree),
// and cpu-s/op: process CPU seconds per run, steadier than the wall
// clock on a shared machine.
//
//	go test -run XXX -bench Dominators -benchtime 3x ./analyze/
func BenchmarkDominators(b *testing.B) {
	for _, shape := range []string{"heap", "random"} {
		for _, n := range []int{100_000, 1_000_000, 5_000_000, 20_000_000} {
			b.Run(fmt.Sprintf("%s/n=%d", shape, n), func(b *testing.B) {
				benchDominators(b, shape, n)
			})
		}
	}
}

func benchDominators(b *testing.B, shape string, n int) {
	if testing.Short() && n > 100_000 {
		b.Skip("short")
	}
	g := synthGraph(b, shape, n)
	b.ReportAllocs()
	runtime.GC()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	cpu0 := cpuTime()
	b.ResetTimer()
	var dt *DomTree
	for range b.N {
		dt = Dominators(g, DomOptions{})
	}
	b.StopTimer()
	b.ReportMetric((cpuTime()-cpu0).Seconds()/float64(b.N), "cpu-s/op")
	runtime.ReadMemStats(&after)
	b.ReportMetric(float64(after.TotalAlloc-before.TotalAlloc)/float64(b.N)/float64(n), "B/obj")
	b.ReportMetric(float64(g.NumEdges())/float64(n), "edges/obj")
	b.ReportMetric(float64(dt.NumReachable())/float64(n), "reach/obj")
}

// BenchmarkAfterDominators measures the analyses that run on a tree, on
// the heap-shaped graph of 5M objects.
func BenchmarkAfterDominators(b *testing.B) {
	if testing.Short() {
		b.Skip("short")
	}
	const n = 5_000_000
	g := synthGraph(b, "heap", n)
	dt := Dominators(g, DomOptions{})
	b.Run("RetainedByType", func(b *testing.B) {
		b.ReportAllocs()
		for range b.N {
			RetainedByType(dt)
		}
	})
	b.Run("ShortestPaths", func(b *testing.B) {
		b.ReportAllocs()
		for range b.N {
			ShortestPaths(g, PathOptions{})
		}
	})
	b.Run("MergePaths/T7", func(b *testing.B) {
		r := ShortestPaths(g, PathOptions{})
		sel := Select(g, Selector{Type: "T7"})
		b.ResetTimer()
		b.ReportAllocs()
		for range b.N {
			MergePaths(r, dt, sel)
		}
	})
	b.Run("IndexValues", func(b *testing.B) {
		b.ReportAllocs()
		cpu0 := cpuTime()
		for range b.N {
			IndexValues(g)
		}
		b.ReportMetric((cpuTime()-cpu0).Seconds()/float64(b.N), "cpu-s/op")
	})
	b.Run("ValueDuplicates", func(b *testing.B) {
		r := ShortestPaths(g, PathOptions{})
		x := IndexValues(g)
		b.ResetTimer()
		b.ReportAllocs()
		cpu0 := cpuTime()
		for range b.N {
			ValueDuplicates(x, dt, r)
		}
		b.ReportMetric((cpuTime()-cpu0).Seconds()/float64(b.N), "cpu-s/op")
	})
}
