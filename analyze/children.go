package analyze

import "github.com/heapscope/heapscope/heap"

// idomEdge names the reference from id's immediate dominator to id (see
// [TreeLine.Edge]): "" when the dominator does not refer to id directly,
// and for roots.
func idomEdge(t *DomTree, id heap.ObjectID) string {
	if id == SuperRoot {
		return ""
	}
	p := t.Idom(id)
	if p == SuperRoot || p == Unreachable {
		return ""
	}
	g := t.g
	for _, e := range g.Edges(p) {
		if e.To == id {
			return g.EdgeName(e.Label)
		}
	}
	return ""
}

// ChildLines returns one tree line per object of kids, which parent
// immediately dominates (typically a page of t.Children(parent)), in the
// order given, at depth 1: each with the edge from parent that names it
// (as in [TreeView]) and its own children folded, counted in Hidden and
// HiddenBytes. It reads parent's references once for the whole list, so
// a page of the children of an array with millions of slots costs one
// pass over the array, not one per child. An object of kids that parent
// does not immediately dominate gets its own line all the same, named
// through its own immediate dominator.
func ChildLines(t *DomTree, parent heap.ObjectID, kids []heap.ObjectID) []TreeLine {
	g := t.g
	want := make(map[heap.ObjectID]int, len(kids))
	out := make([]TreeLine, len(kids))
	for i, k := range kids {
		out[i] = TreeLine{Depth: 1, Object: k, Hidden: t.NumChildren(k)}
		if r, s := t.Retained(k), g.Size(k); r > s {
			out[i].HiddenBytes = r - s // what its children retain
		}
		if t.Idom(k) == parent && parent != SuperRoot {
			want[k] = i
		} else {
			out[i].Edge = idomEdge(t, k)
		}
	}
	if len(want) > 0 {
		for _, e := range g.Edges(parent) {
			if i, ok := want[e.To]; ok {
				out[i].Edge = g.EdgeName(e.Label)
				delete(want, e.To)
			}
		}
	}
	return out
}
