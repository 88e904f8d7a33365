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
	Text     string          `json:"text"`
	Type     string          `json:"type"`
	Classes  string          `json:"classes,omitempty"`
	Verdict  analyze.Verdict `json:"verdict"`
	Growth   string          `json:"growth"`
	Count    int             `json:"count"`
	Retained uint64          `json:"retained_bytes"`
	Shallow  uint64          `json:"shallow_bytes"`
	Noise    string          `json:"noise,omitempty"`
	Detached bool            `json:"detached,omitempty"` // the objects are or hold detached DOM nodes
	HeldBy   string          `json:"held_by"`
	// Copies says the finding's objects are copies of a few values.
	Copies  *report.CopiesJSON `json:"copies,omitempty"`
	Parts   []partJSON         `json:"parts"`
	Holders []holderJSON       `json:"holders"`
	// Path and Sample are the biggest part's.
	Path   string   `json:"path"`
	Sample pathJSON `json:"sample"`
}

type partJSON struct {
	Text     string   `json:"text"`
	Count    int      `json:"count"`
	Retained uint64   `json:"retained_bytes"`
	Path     string   `json:"path"`
	Sample   pathJSON `json:"sample"`
}

type holderJSON struct {
	Text       string   `json:"text"`
	Holds      int      `json:"holds"`
	Frees      int      `json:"frees"`
	FreesBytes uint64   `json:"frees_bytes"`
	Group      int      `json:"group,omitempty"`
	Path       pathJSON `json:"path"`
}

// holdersOf is holders as the page shows them; group names the other
// groups ("finding", "path").
func holdersOf(g *heap.Graph, hs []analyze.Holder, group string) []holderJSON {
	out := []holderJSON{}
	for _, h := range hs {
		hj := holderJSON{Text: report.HolderText(h, group), Holds: h.Holds, Frees: h.Frees, FreesBytes: h.FreesBytes, Path: pathOf(g, h.Path)}
		if h.Group >= 0 {
			hj.Group = h.Group + 1
		}
		out = append(out, hj)
	}
	return out
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
	// Findings keep their numbers (holders refer to them) whatever the
	// page's filter and order.
	ptrs := make([]*analyze.LeakFinding, len(rep.Findings))
	for i := range rep.Findings {
		ptrs[i] = &rep.Findings[i]
	}
	page, err := cut(ptrs, p, func(f *analyze.LeakFinding) string {
		s := report.FindingText(*f)
		for _, x := range f.Parts {
			s += " " + report.SignatureText(x.PathGroup)
		}
		return s
	},
		map[string]column[*analyze.LeakFinding]{
			"type": func(a, b *analyze.LeakFinding) int {
				return cmp.Compare(report.FindingText(*a), report.FindingText(*b))
			},
			"count":          num(func(f *analyze.LeakFinding) int { return f.Count }),
			"retained_bytes": num(func(f *analyze.LeakFinding) uint64 { return f.Retained }),
			"shallow_bytes":  num(func(f *analyze.LeakFinding) uint64 { return f.Shallow }),
		})
	if err != nil {
		return nil, err
	}
	rows := []findingJSON{}
	for _, f := range page.Rows {
		big := f.Parts[0]
		j := findingJSON{Text: report.FindingText(*f), Type: big.Type, Classes: big.Classes, Verdict: f.Verdict, Growth: report.GrowthText(*f),
			Count: f.Count, Retained: f.Retained, Shallow: f.Shallow, Noise: f.Noise, Detached: f.Detached(), HeldBy: report.HeldByLine(*f),
			Path: report.SignatureText(big.PathGroup), Sample: pathOf(gs[2], big.Sample), Parts: []partJSON{}, Holders: []holderJSON{}}
		if big.Element != "" {
			j.Type, j.Classes = big.Element, ""
		}
		for _, x := range f.Parts {
			j.Parts = append(j.Parts, partJSON{Text: report.Count(x.Count) + " " + report.PartLabel(x), Count: x.Count, Retained: x.Retained,
				Path: report.SignatureText(x.PathGroup), Sample: pathOf(gs[2], x.Sample)})
		}
		j.Holders = holdersOf(gs[2], f.Holders, "finding")
		j.Copies = report.CopiesToJSON(f.Copies)
		rows = append(rows, j)
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
