package heap_test

import (
	"reflect"
	"testing"

	"github.com/heapscope/heapscope/heap"
)

// TestSites builds sites as a call tree and gives them to objects by ID
// and by address; objects with none have NoSite, and stacks come out
// innermost first.
func TestSites(t *testing.T) {
	b := heap.NewBuilder(heap.ByAddress)
	ty := b.Type("T")
	file, fn := b.String("app.py"), b.String("handle")
	outer := b.AddSite(heap.NoSite, heap.Frame{File: file, Line: 40})
	inner := b.AddSite(outer, heap.Frame{Function: fn, File: file, Line: 12})
	a := b.Object(0x10, ty, 8)
	c := b.Object(0x20, ty, 8)
	d := b.Object(0x30, ty, 8)
	b.Edge(a, 0x20, 0)
	b.SetSite(a, inner)
	b.SiteAt(0x30, outer)
	b.SiteAt(0x99, inner) // no such object
	g, err := b.Build()
	if err != nil {
		t.Fatal(err)
	}
	if err := g.Validate(); err != nil {
		t.Fatal(err)
	}
	if !g.HasSites() || g.NumSites() != 3 {
		t.Fatalf("HasSites %v, NumSites %d", g.HasSites(), g.NumSites())
	}
	if g.Site(a) != inner || g.Site(c) != heap.NoSite || g.Site(d) != outer {
		t.Errorf("sites %d %d %d", g.Site(a), g.Site(c), g.Site(d))
	}
	want := []heap.Frame{{Function: fn, File: file, Line: 12}, {File: file, Line: 40}}
	if got := g.Stack(inner, 0); !reflect.DeepEqual(got, want) {
		t.Errorf("Stack = %v, want %v", got, want)
	}
	if got := g.Stack(inner, 1); len(got) != 1 {
		t.Errorf("Stack(max 1) = %v", got)
	}

	// A graph without sites has none.
	b = heap.NewBuilder(heap.ByID)
	b.Object(1, b.Type("T"), 8)
	g, _ = b.Build()
	if g.HasSites() || g.Site(0) != heap.NoSite || g.NumSites() != 0 {
		t.Errorf("no sites: HasSites %v, Site %d, NumSites %d", g.HasSites(), g.Site(0), g.NumSites())
	}
}
