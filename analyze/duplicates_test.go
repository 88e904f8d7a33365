package analyze

import (
	"fmt"
	"strings"
	"testing"

	"github.com/heapscope/heapscope/heap"
)

// dupGraph: a module holds a list of strs (three equal "hello", two
// equal "bye", one other), tuples and frozensets over two objects.
func dupGraph(t *testing.T) *heap.Graph {
	b := heap.NewBuilder(heap.ByID)
	b.SetMeta(heap.Meta{Runtime: "python"})
	mod, list, str := b.Type("module"), b.Type("list"), b.Type("str")
	tuple, fset, obj := b.Type("tuple"), b.Type("frozenset"), b.Type("Obj")
	m := b.Object(1, mod, 100)  // 0
	l := b.Object(2, list, 100) // 1
	a := b.Object(3, obj, 16)   // 2
	c := b.Object(4, obj, 16)   // 3
	var strs []heap.ObjectID    // 4..9
	for i, d := range []uint64{7, 7, 7, 9, 9, 11} {
		s := b.Object(uint64(10+i), str, 54)
		b.SetDigest(s, d)
		strs = append(strs, s)
	}
	b.SetValue(strs[0], "hello")
	tup := []heap.ObjectID{b.Object(20, tuple, 56), b.Object(21, tuple, 56), b.Object(22, tuple, 56), b.Object(23, tuple, 56)} // 10..13
	fs := []heap.ObjectID{b.Object(30, fset, 216), b.Object(31, fset, 216)}                                                    // 14, 15
	name := func(s string) heap.Label { return heap.NamedLabel(heap.Strong, b.String(s)) }
	b.Edge(m, uint64(l), name(".names"))
	for i, x := range tup {
		b.Edge(m, uint64(x), name(".t"+string(rune('0'+i))))
	}
	b.Edge(m, uint64(fs[0]), name(".f0"))
	b.Edge(m, uint64(fs[1]), name(".f1"))
	for i, s := range strs {
		b.Edge(l, uint64(s), heap.IndexLabel(heap.Strong, uint64(i)))
	}
	// tuples 0, 1, 2 hold (a, c); tuple 3 holds (c, a).
	for i, x := range tup {
		first, second := a, c
		if i == 3 {
			first, second = c, a
		}
		b.Edge(x, uint64(first), heap.IndexLabel(heap.Strong, 0))
		b.Edge(x, uint64(second), heap.IndexLabel(heap.Strong, 1))
	}
	b.Edge(fs[0], uint64(a), 0)
	b.Edge(fs[0], uint64(c), 0)
	b.Edge(fs[1], uint64(c), 0)
	b.Edge(fs[1], uint64(a), 0)
	b.Root(heap.RootModule, uint64(m), b.String("mod"))
	g, err := b.Build()
	if err != nil {
		t.Fatal(err)
	}
	return g
}

func TestDuplicates(t *testing.T) {
	g := dupGraph(t)
	r := ShortestPaths(g, PathOptions{})
	got := Duplicates(g, r, 0)
	type short struct {
		typ       string
		count     int
		wasted    uint64
		example   heap.ObjectID
		value     string
		heldBy    SigStep
		heldCount int
	}
	want := []short{
		{"str", 3, 108, 4, "hello", SigStep{Type: "list", Edge: "[*]"}, 3},
		{"str", 2, 54, 7, "", SigStep{Type: "list", Edge: "[*]"}, 2},
	}
	if len(got) != len(want) {
		t.Fatalf("Duplicates = %+v", got)
	}
	for i, d := range got {
		s := short{d.Type, d.Count, d.Wasted, d.Example, d.Value, d.HeldBy, d.HeldCount}
		if s != want[i] {
			t.Errorf("group %d = %+v, want %+v", i, s, want[i])
		}
	}
	if top := Duplicates(g, nil, 1); len(top) != 1 || top[0].Type != "str" || top[0].HeldCount != 0 {
		t.Errorf("Duplicates(top 1, no retainers) = %+v", top)
	}
}

// TestValueDuplicates: the tuples and frozensets of dupGraph, equal by
// value as they hold the same objects (a snapshot that marks no object
// whole compares its builtin containers so); the tuple with its items
// in the other order is another value, of one copy: no duplicate.
func TestValueDuplicates(t *testing.T) {
	g := dupGraph(t)
	got := ValueDuplicates(IndexValues(g), Dominators(g, DomOptions{}), ShortestPaths(g, PathOptions{}))
	var texts []string
	for _, d := range got {
		texts = append(texts, fmt.Sprintf("%s: %d copies of %d values, %d wasted, e.g. %d (%d copies), held at %s x%d",
			d.Type, d.Count, d.Distinct, d.Wasted, d.Example, d.ExampleCopies, d.Holders[0].Signature[0].Edge+d.Holders[0].Signature[1].Edge, d.Holders[0].Count))
	}
	want := []string{
		"frozenset: 2 copies of 1 values, 216 wasted, e.g. 14 (2 copies), held at .f0 x1",
		"tuple: 3 copies of 1 values, 112 wasted, e.g. 10 (3 copies), held at .t0 x1",
	}
	if strings.Join(texts, "\n") != strings.Join(want, "\n") {
		t.Errorf("value duplicates:\n%s\nwant\n%s", strings.Join(texts, "\n"), strings.Join(want, "\n"))
	}
}
