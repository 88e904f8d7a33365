package heap_test

import (
	"fmt"
	"strings"
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

func TestBuilderGrowStrings(t *testing.T) {
	b := heap.NewBuilder(heap.ByID)
	x := b.String("x")
	tA := b.Type("A")
	b.GrowStrings(100)
	b.GrowStrings(0)
	if got := b.String("x"); got != x {
		t.Errorf("String(x) after GrowStrings = %d, want %d", got, x)
	}
	if got := b.Type("A"); got != tA {
		t.Errorf("Type(A) after GrowStrings = %d, want %d", got, tA)
	}
	y := b.String("y")
	if y == x || b.String("y") != y || b.String("") != 0 {
		t.Errorf("interning after GrowStrings: x %d y %d", x, y)
	}
	b.Object(1, tA, 8)
	g, err := b.Build()
	if err != nil {
		t.Fatal(err)
	}
	if g.NumStrings() != 4 || g.String(x) != "x" || g.String(y) != "y" || g.TypeName(tA) != "A" {
		t.Errorf("strings: %d, %q %q %q", g.NumStrings(), g.String(x), g.String(y), g.TypeName(tA))
	}
}

func TestBuilderPendingEdges(t *testing.T) {
	if e := heap.NewBuilder(heap.ByAddress).PendingEdges(); e != nil {
		t.Errorf("PendingEdges of a ByAddress builder = %v, want nil", e)
	}
	b := heap.NewBuilder(heap.ByID)
	ta := b.Type("A")
	a := b.Object(1, ta, 8)
	c := b.Object(2, ta, 8)
	name := b.String("n")
	// Provisional labels, fixed before Build.
	b.Edge(a, uint64(c), 7)
	b.Edge(a, uint64(a), 8)
	b.Edge(c, uint64(a), 9)
	ed := b.PendingEdges()
	if len(ed) != 3 || ed[0].To != c || ed[1].To != a || ed[2].To != a || ed[0].Label != 7 || ed[2].Label != 9 {
		t.Fatalf("PendingEdges() = %v", ed)
	}
	ed[0].Label = heap.NamedLabel(heap.Strong, name)
	ed[1].Label = heap.IndexLabel(heap.Weak, 3)
	ed[2].Label = heap.NamedLabel(heap.Internal, name)
	g, err := b.Build()
	if err != nil {
		t.Fatal(err)
	}
	ea, ec := g.Edges(a), g.Edges(c)
	if len(ea) != 2 || ea[0].To != c || g.EdgeName(ea[0].Label) != "n" || ea[0].Label.Kind() != heap.Strong ||
		ea[1].To != a || g.EdgeName(ea[1].Label) != "[3]" || ea[1].Label.Kind() != heap.Weak {
		t.Errorf("Edges(a) = %v", ea)
	}
	if len(ec) != 1 || ec[0].To != a || g.EdgeName(ec[0].Label) != "n" || ec[0].Label.Kind() != heap.Internal {
		t.Errorf("Edges(c) = %v", ec)
	}
}

// TestNames checks the name column: names given out of order come back by
// object, an object named twice keeps its first name, a name for an
// object that does not exist is dropped, and a namer names the rest.
func TestNames(t *testing.T) {
	b := heap.NewBuilder(heap.ByID)
	cls := b.Type("java.lang.Class")
	var ids []heap.ObjectID
	for i := 0; i < 4; i++ {
		ids = append(ids, b.Object(uint64(0x100+16*i), cls, 96))
	}
	b.SetName(ids[3], b.String("class C"))
	b.SetName(ids[1], b.String("class A"))
	b.SetName(ids[1], b.String("class B"))
	b.SetName(heap.ObjectID(9), b.String("class X"))
	// The namer names what SetName did not: ids[0] and ids[2], not ids[1].
	b.SetNamer(func(g *heap.Graph, id heap.ObjectID) (string, bool) {
		if id == ids[3] {
			return "", false
		}
		return fmt.Sprintf("obj %d", g.Size(id)/96+uint64(id)), true
	})
	g, err := b.Build()
	if err != nil {
		t.Fatal(err)
	}
	if err := g.Validate(); err != nil {
		t.Fatal(err)
	}
	want := map[heap.ObjectID]string{ids[0]: "obj 1", ids[1]: "class A", ids[2]: "obj 3", ids[3]: "class C"}
	for _, id := range ids {
		name, ok := g.Name(id)
		if w, named := want[id]; name != w || ok != named {
			t.Errorf("Name(%d) = %q, %v; want %q, %v", id, name, ok, w, named)
		}
	}
	if g.NumNames() != 4 {
		t.Errorf("NumNames() = %d, want 4", g.NumNames())
	}
}

// TestBuilderQuietEdges: an edge added with EdgeIfObject, or to an
// address given to Omit, is kept when it resolves and dropped without a
// warning when it does not; other dangling edges still warn. Both the
// in-place resolution and the merge with out-of-order edges.
func TestBuilderQuietEdges(t *testing.T) {
	for _, late := range []bool{false, true} {
		b := heap.NewBuilder(heap.ByAddress)
		ta := b.Type("A")
		a := b.Object(0x100, ta, 16)
		c := b.Object(0x200, ta, 16)
		d := b.Object(0x300, ta, 16)
		b.Edge(a, 0x777, 0)         // left out on purpose
		b.EdgeIfObject(c, 0x100, 0) // kept
		b.EdgeIfObject(c, 0x888, 0) // a word that is no object: dropped quietly
		b.Edge(d, 0x999, 0)         // dangling: a warning
		if late {
			b.Edge(a, 0x200, 0)
		}
		b.Omit(0x777)
		g, err := b.Build()
		if err != nil {
			t.Fatal(err)
		}
		if len(g.Edges(c)) != 1 || g.Edges(c)[0].To != a {
			t.Errorf("late %v: Edges(c) = %v", late, g.Edges(c))
		}
		if w := g.Warnings(); len(w) != 1 || !strings.Contains(w[0].Msg, "1 references") || !strings.Contains(w[0].Msg, "0x999") {
			t.Errorf("late %v: warnings %v, want one for 0x999", late, w)
		}
	}
}
