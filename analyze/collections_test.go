package analyze

import (
	"testing"

	"github.com/heapscope/heapscope/heap"
)

// TestJavaSegments reads a ConcurrentHashMap as JDK 5 to 7 laid it out,
// which no JVM here runs: its entries in the tables of its segments
// (segments[i].table[j], chained by next). Two segments with tables of 4
// and 2 slots hold 3 and 1 entries; the map also has a class object
// chain, map -> its class -> <super> AbstractMap, as a dump has.
func TestJavaSegments(t *testing.T) {
	b := heap.NewBuilder(heap.ByID)
	b.SetMeta(heap.Meta{Runtime: "java"})
	name := func(s string) heap.Label { return heap.NamedLabel(heap.Strong, b.String(s)) }
	idx := func(i uint64) heap.Label { return heap.IndexLabel(heap.Strong, i) }
	objs := []string{
		"java.util.concurrent.ConcurrentHashMap",             // 0
		"java.util.concurrent.ConcurrentHashMap$Segment[]",   // 1
		"java.util.concurrent.ConcurrentHashMap$Segment",     // 2
		"java.util.concurrent.ConcurrentHashMap$Segment",     // 3
		"java.util.concurrent.ConcurrentHashMap$HashEntry[]", // 4: 4 slots
		"java.util.concurrent.ConcurrentHashMap$HashEntry[]", // 5: 2 slots
		"java.util.concurrent.ConcurrentHashMap$HashEntry",   // 6
		"java.util.concurrent.ConcurrentHashMap$HashEntry",   // 7
		"java.util.concurrent.ConcurrentHashMap$HashEntry",   // 8
		"java.util.concurrent.ConcurrentHashMap$HashEntry",   // 9
	}
	for i, ty := range objs {
		b.Object(uint64(0x1000+16*i), b.Type(ty), 16)
	}
	b.SetLength(4, 4)
	b.SetLength(5, 2)
	b.Edge(0, 1, name("segments"))
	b.Edge(1, 2, idx(0))
	b.Edge(1, 3, idx(1))
	b.Edge(2, 4, name("table"))
	b.Edge(3, 5, name("table"))
	b.Edge(4, 6, idx(0))
	b.Edge(4, 8, idx(3))
	b.Edge(5, 9, idx(1))
	b.Edge(6, 7, name("next"))
	b.Root(heap.RootGlobal, 0, 0)
	g, err := b.Build()
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range Containers(Dominators(g, DomOptions{}), 0) {
		if c.Object == 0 {
			if c.Entries != 4 || c.Capacity != 6 {
				t.Errorf("ConcurrentHashMap of JDK 5-7: %d entries, capacity %d; want 4 and 6", c.Entries, c.Capacity)
			}
			return
		}
	}
	t.Error("the ConcurrentHashMap is not listed")
}
