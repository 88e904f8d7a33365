package web

import (
	"cmp"
	"fmt"
	"net/http"

	"github.com/heapscope/heapscope/analyze"
	"github.com/heapscope/heapscope/heap"
	"github.com/heapscope/heapscope/internal/report"
)

type findingJSON struct {
	Type     string   `json:"type"`
	Classes  string   `json:"classes,omitempty"`
	Types    int      `json:"types,omitempty"`
	Count    int      `json:"count"`
	Retained uint64   `json:"retained_bytes"`
	Shallow  uint64   `json:"shallow_bytes"`
	Growth   int      `json:"growth,omitempty"`
	Noise    string   `json:"noise,omitempty"`
	Counts   []int    `json:"counts,omitempty"`
	Path     string   `json:"path"`
	Sample   pathJSON `json:"sample"`
	Detached bool     `json:"detached,omitempty"` // the objects are or hold detached DOM nodes
}

// leakDefaults returns the baseline, target and final the leaks view
// starts with, of n >= 3 snapshots: the first, the one nearest the
// middle (the earlier of two), and the last.
func leakDefaults(n int) [3]int {
	return [3]int{0, (n - 1) / 2, n - 1}
}

// leaks applies the three-snapshot rule to the snapshots named by the
// query values baseline, target and final (by default those of
// [leakDefaults]). Sample paths are in the final snapshot.
func (s *server) leaks(r *http.Request) (any, error) {
	n := len(s.snaps)
	if n < 3 {
		return nil, badRequest("finding leaks takes three snapshots (baseline, target, final); there are %d", n)
	}
	var idx [3]int
	def := leakDefaults(n)
	for k, name := range []string{"baseline", "target", "final"} {
		var err error
		if idx[k], err = s.snapshotParam(r, name, def[k]); err != nil {
			return nil, err
		}
	}
	if idx[0] == idx[1] || idx[1] == idx[2] || idx[0] == idx[2] {
		return nil, badRequest("baseline, target and final must be three different snapshots, got %v", idx)
	}
	var gs [3]*heap.Graph
	for k, i := range idx {
		gs[k] = s.snaps[i].Graph
		if gs[k].Meta().Attrs["census"] == "true" {
			return nil, badRequest("%s is a census: it has no references; finding leaks needs full snapshots", s.snaps[i].Path)
		}
	}
	p, err := parsePage(r)
	if err != nil {
		return nil, err
	}
	v, err := s.cached(r, fmt.Sprintf("leaks/%v", idx), func(func() bool) (any, error) {
		return analyze.Leaks(gs[0], gs[1], gs[2], s.opt.Leaks), nil
	})
	if err != nil {
		return nil, err
	}
	rep := v.(analyze.LeakReport)
	page, err := cut(rep.Findings, p, func(f analyze.LeakFinding) string {
		return report.LeakLabel(f) + " " + report.SignatureText(f.PathGroup)
	},
		map[string]column[analyze.LeakFinding]{
			"type":           func(a, b analyze.LeakFinding) int { return cmp.Compare(a.Type, b.Type) },
			"count":          num(func(f analyze.LeakFinding) int { return f.Count }),
			"retained_bytes": num(func(f analyze.LeakFinding) uint64 { return f.Retained }),
			"shallow_bytes":  num(func(f analyze.LeakFinding) uint64 { return f.Bytes }),
		})
	if err != nil {
		return nil, err
	}
	rows := []findingJSON{}
	for _, f := range page.Rows {
		rows = append(rows, findingJSON{f.Type, f.Classes, f.Types, f.Count, f.Retained, f.Bytes, f.Growth, f.Noise, f.Counts,
			report.SignatureText(f.PathGroup), pathOf(gs[2], f.Sample), f.Detached})
	}
	return struct {
		Baseline    int                  `json:"baseline"`
		Target      int                  `json:"target"`
		Final       int                  `json:"final"`
		Runtime     string               `json:"runtime"`
		Identity    analyze.IdentityMode `json:"identity"`
		New         int                  `json:"new"`
		Leaked      int                  `json:"leaked"`
		LeakedBytes uint64               `json:"leaked_bytes"`
		Unreached   int                  `json:"unreached"`
		Suppressed  int                  `json:"suppressed"`
		Total       int                  `json:"total"`
		Rows        []findingJSON        `json:"rows"`
	}{idx[0], idx[1], idx[2], rep.Runtime, rep.Mode, rep.New, rep.Leaked, rep.LeakedBytes, rep.Unreached,
		rep.Suppressed, page.Total, rows}, nil
}

// trendRows bounds the paths and collections the trend view lists.
const trendRows = 100

// trendRow is a type's growth, and whether the type is the runtime's own
// (see [analyze.RuntimeType]).
type trendRow struct {
	analyze.TypeTrend
	Runtime bool `json:"runtime,omitempty"`
}

// trend follows every snapshot, oldest first (the order given).
func (s *server) trend(r *http.Request) (any, error) {
	if len(s.snaps) < 2 {
		return nil, badRequest("a trend takes two snapshots or more; there is %d", len(s.snaps))
	}
	p, err := parsePage(r)
	if err != nil {
		return nil, err
	}
	v, err := s.cached(r, "trend", func(func() bool) (any, error) {
		var gs []*heap.Graph
		for _, snap := range s.snaps {
			gs = append(gs, snap.Graph)
		}
		return analyze.TrendAll(gs), nil
	})
	if err != nil {
		return nil, err
	}
	rep := v.(analyze.TrendReport)
	// The program's types first, the runtime's after, each in the
	// analysis's order (steady growth first).
	rt := s.snaps[0].Graph.Meta().Runtime
	var rows []trendRow
	for _, runtime := range []bool{false, true} {
		for _, t := range rep.Types {
			if analyze.RuntimeType(rt, t.Type) == runtime {
				rows = append(rows, trendRow{t, runtime})
			}
		}
	}
	page, err := cut(rows, p, func(t trendRow) string { return t.Type },
		map[string]column[trendRow]{
			"type":               func(a, b trendRow) int { return cmp.Compare(a.Type, b.Type) },
			"growth":             func(a, b trendRow) int { return cmp.Compare(a.Growth, b.Growth) },
			"count_per_snapshot": num(func(t trendRow) float64 { return t.PerSnapshot }),
			"bytes_per_snapshot": num(func(t trendRow) float64 { return t.BytesPerSnapshot }),
		})
	if err != nil {
		return nil, err
	}
	type pathTrend struct {
		analyze.PathTrend
		Path string `json:"path"`
	}
	type collTrend struct {
		analyze.CollectionTrend
		Path string `json:"path"`
	}
	out := struct {
		Identity    analyze.IdentityMode `json:"identity"`
		Snapshots   []string             `json:"snapshots"`
		Total       int                  `json:"total"`
		Rows        []trendRow           `json:"rows"`
		Paths       []pathTrend          `json:"paths"`
		Collections []collTrend          `json:"collections"`
	}{Identity: rep.Mode, Total: page.Total, Rows: page.Rows, Paths: []pathTrend{}, Collections: []collTrend{}}
	for _, snap := range s.snaps {
		out.Snapshots = append(out.Snapshots, snap.Path)
	}
	for _, x := range rep.Paths[:min(len(rep.Paths), trendRows)] {
		out.Paths = append(out.Paths, pathTrend{x, report.SignatureText(x.Group)})
	}
	for _, x := range rep.Collections[:min(len(rep.Collections), trendRows)] {
		out.Collections = append(out.Collections, collTrend{x, report.PathText(x.Path)})
	}
	return out, nil
}
