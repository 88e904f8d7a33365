package heap_test

import (
	"testing"

	"github.com/heapscope/heapscope/heap"
	"github.com/heapscope/heapscope/internal/heaptest"
)

func TestBuilderByAddress(t *testing.T) {
	b := heap.NewBuilder(heap.ByAddress)
	ta, tb := b.Type("A"), b.Type("B")
	a := b.Object(0x100, ta, 16)
	c := b.Object(0x200, tb, 32)
	b.Edge(a, 0x200, heap.NamedLabel(heap.Strong, b.String("x")))
	b.Edge(a, 0x999, 0) // dangling
	b.Edge(c, 0x100, heap.IndexLabel(heap.Weak, 3))
	b.Edge(a, 0x100, heap.NamedLabel(heap.Internal, 0)) // out of order
	b.Root(heap.RootModule, 0x100, b.String("m"))
	b.Root(heap.RootModule, 0x300, 0) // dangling root
	b.SetValue(c, "hello")
	g, err := b.Build()
	if err != nil {
		t.Fatal(err)
	}
	if err := g.Validate(); err != nil {
		t.Fatal(err)
	}
	if g.NumObjects() != 2 || g.NumEdges() != 3 {
		t.Fatalf("got %d objects %d edges, want 2, 3", g.NumObjects(), g.NumEdges())
	}
	ea := g.Edges(a)
	if len(ea) != 2 || ea[0].To != c || g.EdgeName(ea[0].Label) != "x" || ea[1].Label.Kind() != heap.Internal {
		t.Errorf("Edges(a) = %v", ea)
	}
	ec := g.Edges(c)
	if len(ec) != 1 || ec[0].To != a || g.EdgeName(ec[0].Label) != "[3]" || ec[0].Label.Kind() != heap.Weak {
		t.Errorf("Edges(c) = %v", ec)
	}
	if len(g.Roots()) != 1 || g.Roots()[0].Object != a {
		t.Errorf("Roots() = %v", g.Roots())
	}
	if len(g.Warnings()) != 2 {
		t.Errorf("Warnings() = %v, want 2", g.Warnings())
	}
	if v, ok := g.Value(c); !ok || v != "hello" {
		t.Errorf("Value(c) = %q, %v", v, ok)
	}
	if _, ok := g.Value(a); ok {
		t.Errorf("Value(a) should be absent")
	}
	if id, ok := g.FindAddr(0x200); !ok || id != c {
		t.Errorf("FindAddr(0x200) = %v, %v", id, ok)
	}
	if r := g.Referrers(a); len(r) != 2 || r[0] != a || r[1] != c {
		t.Errorf("Referrers(a) = %v, want [a c]", r)
	}
}

func TestParseDSL(t *testing.T) {
	g := heaptest.MustParse(t, `
root module m
m Module 10 -> d=x weak:[2]=y
x X 5 -> y
y Y 7
refcount y 3
value y hi there
`)
	if g.NumObjects() != 3 || g.NumEdges() != 3 {
		t.Fatalf("got %d objects %d edges", g.NumObjects(), g.NumEdges())
	}
	if n, _ := g.Refcount(2); n != 3 {
		t.Errorf("Refcount(y) = %d", n)
	}
	if v, _ := g.Value(2); v != "hi there" {
		t.Errorf("Value(y) = %q", v)
	}
	if g.TotalSize() != 22 {
		t.Errorf("TotalSize() = %d", g.TotalSize())
	}
}

func TestAddrIndex(t *testing.T) {
	addrs := make([]uint64, 10000)
	for i := range addrs {
		addrs[i] = 0x7f0000000000 + uint64(i)*16
	}
	addrs[9999] = addrs[5]
	x := heap.NewAddrIndex(addrs)
	for i, a := range addrs[:9999] {
		if id, ok := x.Lookup(a); !ok || int(id) != i {
			t.Fatalf("Lookup(%#x) = %d, %v; want %d", a, id, ok, i)
		}
	}
	if _, ok := x.Lookup(1); ok {
		t.Error("Lookup(1) found something")
	}
	if x.Duplicates() != 1 {
		t.Errorf("Duplicates() = %d, want 1", x.Duplicates())
	}
}
