package heap

import "fmt"

// Validate checks the graph's invariants: array lengths agree, edge
// offsets are monotonic, every edge, root and type reference is in range,
// and value labels and names are sorted and unique. Readers' fuzz targets call it on
// every graph they return.
func (g *Graph) Validate() error {
	n := len(g.typ)
	if len(g.addr) != n || len(g.size) != n || len(g.edgeStart) != n+1 {
		return fmt.Errorf("heap: array lengths disagree: %d types, %d addrs, %d sizes, %d offsets",
			n, len(g.addr), len(g.size), len(g.edgeStart))
	}
	if g.refcnt != nil && len(g.refcnt) != n {
		return fmt.Errorf("heap: %d refcounts for %d objects", len(g.refcnt), n)
	}
	if g.flags != nil && len(g.flags) != n {
		return fmt.Errorf("heap: %d flags for %d objects", len(g.flags), n)
	}
	if g.edgeStart[0] != 0 || int(g.edgeStart[n]) != len(g.edges) {
		return fmt.Errorf("heap: edge offsets span [%d,%d), want [0,%d)", g.edgeStart[0], g.edgeStart[n], len(g.edges))
	}
	for i := 0; i < n; i++ {
		if g.edgeStart[i] > g.edgeStart[i+1] {
			return fmt.Errorf("heap: edge offsets decrease at object %d", i)
		}
		if int(g.typ[i]) >= len(g.typeNames) {
			return fmt.Errorf("heap: object %d has type %d of %d", i, g.typ[i], len(g.typeNames))
		}
	}
	for i, e := range g.edges {
		if int(e.To) >= n {
			return fmt.Errorf("heap: edge %d points to object %d of %d", i, e.To, n)
		}
		if !e.Label.IsIndex() && int(e.Label.Name()) >= len(g.strs) {
			return fmt.Errorf("heap: edge %d is named by string %d of %d", i, e.Label.Name(), len(g.strs))
		}
	}
	for i, r := range g.roots {
		if int(r.Object) >= n || int(r.Name) >= len(g.strs) {
			return fmt.Errorf("heap: root %d is out of range", i)
		}
	}
	for i, s := range g.typeNames {
		if int(s) >= len(g.strs) {
			return fmt.Errorf("heap: type %d is named by string %d of %d", i, s, len(g.strs))
		}
	}
	if len(g.valObj) != g.valStr.len() {
		return fmt.Errorf("heap: %d value objects, %d values", len(g.valObj), g.valStr.len())
	}
	for i, e := range g.valStr.end {
		if int(e) > len(g.valStr.data) || (i > 0 && e < g.valStr.end[i-1]) {
			return fmt.Errorf("heap: value text %d is out of range", i)
		}
	}
	if g.site != nil && len(g.site) != n {
		return fmt.Errorf("heap: %d sites for %d objects", len(g.site), n)
	}
	if len(g.sitePar) != len(g.siteFrame) {
		return fmt.Errorf("heap: %d site parents for %d sites", len(g.sitePar), len(g.siteFrame))
	}
	for i, s := range g.site {
		if int(s) >= len(g.siteFrame) {
			return fmt.Errorf("heap: object %d has site %d of %d", i, s, len(g.siteFrame))
		}
	}
	for s := range g.siteFrame {
		f := g.siteFrame[s]
		if s > 0 && int(g.sitePar[s]) >= s {
			return fmt.Errorf("heap: site %d has caller %d, not an earlier site", s, g.sitePar[s])
		}
		if int(f.Function) >= len(g.strs) || int(f.File) >= len(g.strs) {
			return fmt.Errorf("heap: site %d names a string out of range", s)
		}
	}
	for i, id := range g.valObj {
		if int(id) >= n || (i > 0 && g.valObj[i-1] >= id) {
			return fmt.Errorf("heap: value label %d is out of order or range", i)
		}
	}
	if len(g.nameObj) != len(g.nameStr) {
		return fmt.Errorf("heap: %d named objects, %d names", len(g.nameObj), len(g.nameStr))
	}
	for i, id := range g.nameObj {
		if int(id) >= n || (i > 0 && g.nameObj[i-1] >= id) || int(g.nameStr[i]) >= len(g.strs) {
			return fmt.Errorf("heap: name %d is out of order or range", i)
		}
	}
	return nil
}
