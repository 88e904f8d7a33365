package web

import (
	"cmp"
	"fmt"
	"net/http"

	"github.com/heapscope/heapscope/analyze"
	"github.com/heapscope/heapscope/internal/report"
)

// topObjects is how many objects the top view lists, and topRows how
// many rows of its other lists.
const (
	topObjects = 20
	topRows    = 50
)

type typeStatJSON struct {
	Type     string `json:"type"`
	Classes  string `json:"classes,omitempty"`
	Count    int    `json:"count"`
	Shallow  uint64 `json:"shallow_bytes"`
	Retained uint64 `json:"retained_bytes"`
}

func typeStatsJSON(stats []analyze.TypeStat) []typeStatJSON {
	out := []typeStatJSON{}
	for _, s := range stats {
		out = append(out, typeStatJSON{s.Name, s.Classes, s.Count, s.Shallow, s.Retained})
	}
	return out
}

// top is what the top command shows: the leak suspects, the objects
// that retain the most with their dominators and paths, objects held
// outside the heap, and what no root reaches.
func (s *server) top(r *http.Request) (any, error) {
	i, snap, an, err := s.analysis(r)
	if err != nil {
		return nil, err
	}
	g, t := snap.Graph, an.Tree
	type topObject struct {
		objectJSON
		Dominators []objectJSON `json:"dominators"`
		Path       *pathJSON    `json:"path"`
	}
	type nativeJSON struct {
		Type     string     `json:"type"`
		Count    int        `json:"count"`
		Excess   uint64     `json:"excess_references"`
		Retained uint64     `json:"retained_bytes"`
		Sample   objectJSON `json:"sample"`
		Keeps    string     `json:"keeps_text,omitempty"`
	}
	type topJSON struct {
		Reachable   uint64         `json:"reachable_bytes"`
		Share       float64        `json:"suspect_share"`
		Suspects    any            `json:"suspects"`
		Objects     []topObject    `json:"objects"`
		Native      []nativeJSON   `json:"held_outside_heap"`
		Unreachable int            `json:"unreachable"`
		UnreachB    uint64         `json:"unreachable_bytes"`
		UnreachT    []typeStatJSON `json:"unreachable_types"`
	}
	return s.cached(r, fmt.Sprintf("top/%d", i), func(func() bool) (any, error) {
		out := topJSON{Reachable: t.Retained(analyze.SuperRoot), Objects: []topObject{}, Native: []nativeJSON{},
			Share: analyze.DefaultSuspectShare}
		out.Suspects = report.SuspectsJSON(t, report.SuspectRows(t, an.Paths, out.Share))
		for _, id := range analyze.TopRetained(t, topObjects) {
			o := topObject{objectJSON: objectOf(g, t, id), Dominators: []objectJSON{}}
			for _, d := range analyze.DominatorChain(t, id) {
				o.Dominators = append(o.Dominators, objectOf(g, t, d))
			}
			if p, ok := an.Paths.Path(id); ok {
				pj := pathOf(g, p)
				o.Path = &pj
			}
			out.Objects = append(out.Objects, o)
		}
		for k, n := range analyze.NativeByType(t, an.Held) {
			if k == topRows {
				break
			}
			out.Native = append(out.Native, nativeJSON{n.Type, n.Count, n.Excess, n.Retained, objectOf(g, t, n.Sample), report.KeepsText(g, n.Keeps)})
		}
		u := analyze.Unreachables(t)
		out.Unreachable, out.UnreachB = u.Count, u.Bytes
		out.UnreachT = typeStatsJSON(u.ByType[:min(len(u.ByType), topRows)])
		return out, nil
	})
}

// types is the retained size per type, paged.
func (s *server) types(r *http.Request) (any, error) {
	i, _, an, err := s.analysis(r)
	if err != nil {
		return nil, err
	}
	p, err := parsePage(r)
	if err != nil {
		return nil, err
	}
	v, err := s.cached(r, fmt.Sprintf("types/%d", i), func(func() bool) (any, error) {
		return typeStatsJSON(analyze.RetainedByType(an.Tree)), nil
	})
	if err != nil {
		return nil, err
	}
	return cut(v.([]typeStatJSON), p, func(t typeStatJSON) string { return report.TypeLabel(t.Type, t.Classes) },
		map[string]column[typeStatJSON]{
			"type":           func(a, b typeStatJSON) int { return cmp.Compare(a.Type, b.Type) },
			"count":          num(func(t typeStatJSON) int { return t.Count }),
			"shallow_bytes":  num(func(t typeStatJSON) uint64 { return t.Shallow }),
			"retained_bytes": num(func(t typeStatJSON) uint64 { return t.Retained }),
		})
}
