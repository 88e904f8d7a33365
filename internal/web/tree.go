package web

import (
	"fmt"
	"net/http"

	"github.com/heapscope/heapscope/analyze"
	"github.com/heapscope/heapscope/heap"
)

// node returns the snapshot index, graph and analysis, and the object,
// that the request's path values s and id name.
func (s *server) node(r *http.Request) (int, *heap.Graph, *Analysis, heap.ObjectID, error) {
	i, snap, an, err := s.analysis(r)
	if err != nil {
		return 0, nil, nil, 0, err
	}
	id, err := objectID(r, snap.Graph)
	return i, snap.Graph, an, id, err
}

// object describes one object: its sizes, its dominators from the
// super-root down, and its shortest path from a root.
func (s *server) object(r *http.Request) (any, error) {
	_, g, an, id, err := s.node(r)
	if err != nil {
		return nil, err
	}
	t := an.Tree
	out := struct {
		Object     objectJSON   `json:"object"`
		Reachable  bool         `json:"reachable"`
		Dominators []objectJSON `json:"dominators"` // outermost first, the super-root first of all
		Path       *pathJSON    `json:"path"`       // its shortest path from a root, if any
	}{Object: objectOf(g, t, id), Reachable: t.Reachable(id), Dominators: []objectJSON{}}
	if id == analyze.SuperRoot {
		return out, nil
	}
	if out.Reachable {
		out.Dominators = append(out.Dominators, objectOf(g, t, analyze.SuperRoot))
		for _, d := range analyze.DominatorChain(t, id) {
			out.Dominators = append(out.Dominators, objectOf(g, t, d))
		}
	}
	if p, ok := an.Paths.Path(id); ok {
		pj := pathOf(g, p)
		out.Path = &pj
	}
	return out, nil
}

// bigChildren is the number of children from which a node's sorted list
// is kept between pages.
const bigChildren = 2000

// children is a page of the objects a node immediately dominates,
// biggest retained size first, each named by the edge that holds it.
func (s *server) children(r *http.Request) (any, error) {
	i, g, an, id, err := s.node(r)
	if err != nil {
		return nil, err
	}
	t := an.Tree
	p, err := parsePage(r)
	if err != nil {
		return nil, err
	}
	var kids []heap.ObjectID
	if t.NumChildren(id) >= bigChildren {
		v, err := s.cached(r, fmt.Sprintf("children/%d/%d", i, id), func(func() bool) (any, error) { return t.Children(id), nil })
		if err != nil {
			return nil, err
		}
		kids = v.([]heap.ObjectID)
	} else {
		kids = t.Children(id)
	}
	out := paged[objectJSON]{Total: len(kids), Rows: []objectJSON{}}
	if p.offset < len(kids) {
		for _, l := range analyze.ChildLines(t, id, kids[p.offset:min(len(kids), p.offset+p.limit)]) {
			o := objectOf(g, t, l.Object)
			o.Edge = l.Edge
			out.Rows = append(out.Rows, o)
		}
	}
	return out, nil
}

// treemapNode is a rectangle of the treemap (see [analyze.Treemap]): an
// object, the last of a chain of only children that starts at Top
// (Skipped objects above it), or a group of Group children of one type
// (the object is the biggest of them).
type treemapNode struct {
	objectJSON
	Top         *objectJSON    `json:"top,omitempty"`
	Skipped     int            `json:"skipped,omitempty"`
	Group       int            `json:"group,omitempty"`
	GroupType   string         `json:"group_type,omitempty"`
	Kids        []*treemapNode `json:"kids,omitempty"`
	Hidden      int            `json:"hidden,omitempty"`
	HiddenBytes uint64         `json:"hidden_bytes,omitempty"`
}

// treemap sizes: levels below the node, and rectangles per node.
const (
	treemapDepth = 2
	treemapKids  = 24
)

// treemap is the dominator tree two levels below a node, laid out for
// the chart: chains of only children passed through, many children
// grouped by type.
func (s *server) treemap(r *http.Request) (any, error) {
	_, g, an, id, err := s.node(r)
	if err != nil {
		return nil, err
	}
	t := an.Tree
	if !t.Reachable(id) {
		return nil, badRequest("object %s is unreachable: it is not in the dominator tree", idText(id))
	}
	var conv func(n analyze.MapNode) *treemapNode
	conv = func(n analyze.MapNode) *treemapNode {
		out := &treemapNode{objectJSON: objectOf(g, t, n.Object), Skipped: n.Skipped, Group: n.Group, GroupType: n.Type,
			Hidden: n.Hidden, HiddenBytes: n.HiddenBytes}
		out.Edge, out.Retained = n.Edge, n.Retained
		if n.Skipped > 0 {
			top := objectOf(g, t, n.Top)
			out.Top = &top
		}
		for _, k := range n.Kids {
			out.Kids = append(out.Kids, conv(k))
		}
		return out
	}
	return conv(analyze.Treemap(t, id, treemapDepth, treemapKids)), nil
}
