package heaptest

import (
	"fmt"
	"strings"

	"github.com/heapscope/heapscope/heap"
)

// Equal reports the first difference between two graphs, comparing what a
// round trip through a snapshot format must keep: objects in order with
// their address, type name, size, refcount, flags, value, digest, limit
// and allocation stack;
// edges with target, kind and name; roots with kind and name. It returns
// nil when they agree.
func Equal(a, b *heap.Graph) error {
	if a.NumObjects() != b.NumObjects() {
		return fmt.Errorf("NumObjects %d != %d", a.NumObjects(), b.NumObjects())
	}
	if a.NumEdges() != b.NumEdges() {
		return fmt.Errorf("NumEdges %d != %d", a.NumEdges(), b.NumEdges())
	}
	for i := 0; i < a.NumObjects(); i++ {
		id := heap.ObjectID(i)
		if a.Addr(id) != b.Addr(id) || a.Size(id) != b.Size(id) ||
			a.TypeName(a.Type(id)) != b.TypeName(b.Type(id)) || a.Flags(id) != b.Flags(id) {
			return fmt.Errorf("object %d: %#x %s %d %d != %#x %s %d %d", i,
				a.Addr(id), a.TypeName(a.Type(id)), a.Size(id), a.Flags(id),
				b.Addr(id), b.TypeName(b.Type(id)), b.Size(id), b.Flags(id))
		}
		ra, _ := a.Refcount(id)
		rb, _ := b.Refcount(id)
		if ra != rb {
			return fmt.Errorf("object %d: refcount %d != %d", i, ra, rb)
		}
		va, oka := a.Value(id)
		vb, okb := b.Value(id)
		if va != vb || oka != okb {
			return fmt.Errorf("object %d: value %q,%v != %q,%v", i, va, oka, vb, okb)
		}
		da, oka := a.Digest(id)
		db, okb := b.Digest(id)
		if da != db || oka != okb {
			return fmt.Errorf("object %d: digest %x,%v != %x,%v", i, da, oka, db, okb)
		}
		la, oka := a.Limit(id)
		lb, okb := b.Limit(id)
		if la != lb || oka != okb {
			return fmt.Errorf("object %d: limit %d,%v != %d,%v", i, la, oka, lb, okb)
		}
		if sa, sb := StackText(a, a.Site(id)), StackText(b, b.Site(id)); sa != sb {
			return fmt.Errorf("object %d: allocated at %q != %q", i, sa, sb)
		}
		ea, eb := a.Edges(id), b.Edges(id)
		if len(ea) != len(eb) {
			return fmt.Errorf("object %d: %d edges != %d", i, len(ea), len(eb))
		}
		for k := range ea {
			if ea[k].To != eb[k].To || ea[k].Label.Kind() != eb[k].Label.Kind() ||
				a.EdgeName(ea[k].Label) != b.EdgeName(eb[k].Label) {
				return fmt.Errorf("object %d edge %d: %d %s %q != %d %s %q", i, k,
					ea[k].To, ea[k].Label.Kind(), a.EdgeName(ea[k].Label),
					eb[k].To, eb[k].Label.Kind(), b.EdgeName(eb[k].Label))
			}
		}
	}
	if a.HasSites() != b.HasSites() {
		return fmt.Errorf("HasSites %v != %v", a.HasSites(), b.HasSites())
	}
	ra, rb := a.Roots(), b.Roots()
	if len(ra) != len(rb) {
		return fmt.Errorf("%d roots != %d", len(ra), len(rb))
	}
	for i := range ra {
		if ra[i].Object != rb[i].Object || ra[i].Kind != rb[i].Kind || a.String(ra[i].Name) != b.String(rb[i].Name) {
			return fmt.Errorf("root %d differs", i)
		}
	}
	return nil
}

// StackText writes site s of g as the DSL does: frames innermost first,
// [FUNCTION@]FILE:LINE[:COLUMN], separated by spaces.
func StackText(g *heap.Graph, s heap.SiteID) string {
	var parts []string
	for _, f := range g.Stack(s, 0) {
		p := g.String(f.File) + ":" + fmt.Sprint(f.Line)
		if f.Column != 0 {
			p += ":" + fmt.Sprint(f.Column)
		}
		if f.Function != 0 {
			p = g.String(f.Function) + "@" + p
		}
		parts = append(parts, p)
	}
	return strings.Join(parts, " ")
}
