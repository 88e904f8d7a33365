package web

import (
	"cmp"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"

	"github.com/heapscope/heapscope/analyze"
	"github.com/heapscope/heapscope/heap"
	"github.com/heapscope/heapscope/internal/report"
)

// groupRow is a group of retainers or references as the page shows it:
// an expandable row whose first object stands for the group.
type groupRow struct {
	Index    int        `json:"index"` // its place in its level, for path=
	Text     string     `json:"text"`
	Edge     string     `json:"edge"`
	Kind     string     `json:"kind"`
	Type     string     `json:"type"`
	Name     string     `json:"name,omitempty"`
	Objects  int        `json:"objects"`
	Edges    int        `json:"edges"`
	Shallow  uint64     `json:"shallow_bytes"`
	Retained uint64     `json:"retained_bytes"`
	Distance int        `json:"distance"`
	Cycle    int        `json:"cycle,omitempty"`
	First    objectJSON `json:"first"`
	// Kids is the level below, when the request asked for more than one
	// (depth=), for the picture.
	Kids []groupRow `json:"groups,omitempty"`
}

// maxNeighborDepth bounds the levels one request may ask for.
const maxNeighborDepth = 4

// neighbors is one level of the retainers (out false) or references of
// the selected objects: the groups of the level that path (group
// indices, "0.3") leads to, paged; depth > 1 adds the levels below each
// group of the page, for the picture (at most 8 groups each).
func (s *server) neighbors(out bool) func(r *http.Request) (any, error) {
	return func(r *http.Request) (any, error) {
		pk, p, err := s.pick(r)
		if err != nil {
			return nil, err
		}
		i, an, sel, key, objs := pk.i, pk.an, pk.text, pk.key, pk.objs
		q := r.URL.Query()
		var path []int
		if v := q.Get("path"); v != "" {
			for _, f := range strings.Split(v, ".") {
				n, err := strconv.Atoi(f)
				if err != nil || n < 0 || len(path) >= 64 {
					return nil, badRequest("path: want group numbers such as 0.3, got %q", v)
				}
				path = append(path, n)
			}
		}
		depth := 1
		if v := q.Get("depth"); v != "" {
			if depth, err = strconv.Atoi(v); err != nil || depth < 1 || depth > maxNeighborDepth {
				return nil, badRequest("depth: want 1 to %d, got %q", maxNeighborDepth, v)
			}
		}
		type level struct {
			objects   int
			rows      []groupRow
			exhausted bool
		}
		kind := map[bool]string{false: "retainers", true: "refs"}[out]
		v, err := s.cached(r, fmt.Sprintf("%s/%d/%s/%v/%d", kind, i, key, path, depth), func(stop func() bool) (any, error) {
			opt := analyze.NeighborOptions{Out: out, Path: path, Depth: depth, Stop: stop}
			if depth > 1 {
				opt.MaxGroups = 8
			}
			tree, err := analyze.Neighbors(an.Tree, an.Paths, objs, opt)
			if err != nil {
				return nil, notFound("%v", err)
			}
			if stop() {
				return nil, errGone
			}
			return level{tree.Objects, groupRows(an.Tree, tree.Groups, out), tree.Exhausted}, nil
		})
		if err != nil {
			if errors.Is(err, errGone) && r.Context().Err() == nil {
				err = &httpError{http.StatusServiceUnavailable, "the server gave this up: ask again"}
			}
			return nil, err
		}
		lv := v.(level)
		page, err := cut(lv.rows, p, func(x groupRow) string { return x.Text }, map[string]column[groupRow]{
			"objects":        num(func(x groupRow) int { return x.Objects }),
			"edges":          num(func(x groupRow) int { return x.Edges }),
			"retained_bytes": num(func(x groupRow) uint64 { return x.Retained }),
			"shallow_bytes":  num(func(x groupRow) uint64 { return x.Shallow }),
			"distance":       num(func(x groupRow) int { return x.Distance }),
		})
		if err != nil {
			return nil, err
		}
		return struct {
			Selector  string     `json:"selector"`
			Selected  int        `json:"selected"`
			Objects   int        `json:"objects"` // the objects the level starts from
			Exhausted bool       `json:"exhausted"`
			Total     int        `json:"total"`
			Rows      []groupRow `json:"rows"`
		}{sel, len(objs), lv.objects, lv.exhausted, page.Total, page.Rows}, nil
	}
}

// groupRows makes the rows of a level and of the levels below it.
func groupRows(t *analyze.DomTree, groups []analyze.NeighborGroup, out bool) []groupRow {
	g := t.Graph()
	rows := make([]groupRow, 0, len(groups))
	for k, grp := range groups {
		row := groupRow{Index: k, Text: report.NeighborText(g, grp, out), Edge: grp.Edge, Kind: grp.Kind.String(), Type: grp.Type, Name: grp.Name,
			Objects: len(grp.Objects), Edges: grp.Edges, Shallow: grp.Shallow, Retained: grp.Retained, Distance: grp.Distance,
			Cycle: grp.Cycle, First: objectOf(g, t, grp.Objects[0])}
		if grp.Kids != nil {
			row.Kids = groupRows(t, grp.Kids, out)
		}
		rows = append(rows, row)
	}
	return rows
}

// listedObject is an object in a list of objects: its description and
// its distance from the roots.
type listedObject struct {
	objectJSON
	Distance int `json:"distance"`
}

// objects is a page of the selected objects, by retained size (largest
// first) unless sorted otherwise: DevTools' Summary row opened.
func (s *server) objects(r *http.Request) (any, error) {
	pk, p, err := s.pick(r)
	if err != nil {
		return nil, err
	}
	i, g, an, sel, key, objs := pk.i, pk.g, pk.an, pk.text, pk.key, pk.objs
	v, err := s.cached(r, fmt.Sprintf("objects/%d/%s", i, key), func(func() bool) (any, error) {
		return analyze.ByRetained(an.Tree, objs), nil
	})
	if err != nil {
		return nil, err
	}
	sorted := v.([]heap.ObjectID)
	page, err := cut(sorted, p, nil, map[string]column[heap.ObjectID]{
		"retained_bytes": num(func(x heap.ObjectID) uint64 { return an.Tree.Retained(x) }),
		"shallow_bytes":  num(func(x heap.ObjectID) uint64 { return g.Size(x) }),
		"distance":       num(func(x heap.ObjectID) int { return an.Paths.Distance(x) }),
		"id":             func(a, b heap.ObjectID) int { return cmp.Compare(g.Addr(a), g.Addr(b)) },
	})
	if err != nil {
		return nil, err
	}
	rows := make([]listedObject, 0, len(page.Rows))
	for _, x := range page.Rows {
		rows = append(rows, listedObject{objectOf(g, an.Tree, x), an.Paths.Distance(x)})
	}
	return struct {
		Selector string         `json:"selector"`
		Total    int            `json:"total"`
		Rows     []listedObject `json:"rows"`
	}{sel, page.Total, rows}, nil
}
