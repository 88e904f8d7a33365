package pysnap_test

import (
	"bytes"
	"math/rand/v2"
	"testing"

	"github.com/heapscope/heapscope/heap"
	"github.com/heapscope/heapscope/pysnap"
)

// synthetic builds a Python-like graph of n objects with about three
// edges each: dicts, lists, instances, strs and ints, with named edges.
func synthetic(tb testing.TB, n int) *heap.Graph {
	tb.Helper()
	r := rand.New(rand.NewPCG(1, 2))
	b := heap.NewBuilder(heap.ByID)
	types := []heap.TypeID{b.Type("dict"), b.Type("list"), b.Type("app.Item"), b.Type("str"), b.Type("int")}
	names := []heap.StringID{b.String("['a']"), b.String(".payload"), b.String("<key>")}
	for i := 0; i < n; i++ {
		t := types[r.IntN(len(types))]
		id := b.Object(0x7f0000000000+uint64(i)*48, t, uint64(28+r.IntN(200)))
		b.SetRefcount(id, uint32(1+r.IntN(3)))
		b.SetFlags(id, heap.FlagGCTracked)
	}
	for i := 0; i < n; i++ {
		for k := 0; k < r.IntN(7); k++ {
			b.Edge(heap.ObjectID(i), uint64(r.IntN(n)), heap.NamedLabel(heap.Strong, names[k%3]))
		}
	}
	b.Root(heap.RootModule, 0, b.String("app"))
	g, err := b.Build()
	if err != nil {
		tb.Fatal(err)
	}
	return g
}

// BenchmarkRead reads a synthetic snapshot of one million objects.
func BenchmarkRead(b *testing.B) {
	g := synthetic(b, 1_000_000)
	var buf bytes.Buffer
	if err := pysnap.Write(&buf, g, 65536); err != nil {
		b.Fatal(err)
	}
	p := buf.Bytes()
	b.SetBytes(int64(len(p)))
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := pysnap.Read(bytes.NewReader(p), int64(len(p))); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(g.NumObjects()), "objects/op")
}
