package web

import (
	"cmp"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/heapscope/heapscope/analyze"
	"github.com/heapscope/heapscope/heap"
	"github.com/heapscope/heapscope/internal/report"
)

// maxValue bounds the value labels sent to the page, in runes.
const maxValue = 160

// objectJSON is an object as the page shows it. ID is the object's id in
// its snapshot (the key of the tree and why views), or "root" for the
// super-root.
type objectJSON struct {
	ID       string `json:"id"`
	Addr     string `json:"addr,omitempty"`
	Type     string `json:"type"`
	Name     string `json:"name,omitempty"` // its own name (g.Name: "class java.util.HashMap"), shown in place of its type
	Value    string `json:"value,omitempty"`
	Edge     string `json:"edge,omitempty"`
	Shallow  uint64 `json:"shallow_bytes"`
	Retained uint64 `json:"retained_bytes"`
	Children int    `json:"children"`
}

func idText(id heap.ObjectID) string {
	if id == analyze.SuperRoot {
		return "root"
	}
	return strconv.FormatUint(uint64(id), 10)
}

func shorten(s string) string {
	if utf8.RuneCountInString(s) <= maxValue {
		return s
	}
	r := []rune(s)
	return string(r[:maxValue]) + "…"
}

// objectOf describes id; t may be nil (no dominator tree).
func objectOf(g *heap.Graph, t *analyze.DomTree, id heap.ObjectID) objectJSON {
	if id == analyze.SuperRoot {
		o := objectJSON{ID: "root", Type: "(all roots)"}
		if t != nil {
			o.Retained, o.Children = t.Retained(id), t.NumChildren(id)
		}
		return o
	}
	o := objectJSON{ID: idText(id), Addr: analyze.IDText(g, id), Type: g.TypeName(g.Type(id)), Shallow: g.Size(id)}
	if name, ok := g.Name(id); ok {
		o.Name = name
	}
	if v, ok := g.Value(id); ok {
		o.Value = shorten(v)
	}
	if t != nil {
		o.Retained, o.Children = t.Retained(id), t.NumChildren(id)
	}
	return o
}

// pathJSON is a retainer path: its text as the command line prints it,
// and its steps with their objects, for links. Runs of equal steps are
// one step (Steps says how many it stands for), and a path longer than
// maxPathSteps keeps its first and last maxPathSteps/2 steps, with one
// step between them that says how many it leaves out (Gap).
type pathJSON struct {
	Text     string     `json:"text"`
	RootKind string     `json:"root_kind"`
	RootName string     `json:"root_name,omitempty"`
	Steps    []stepJSON `json:"steps"`
}

type stepJSON struct {
	ID    string `json:"id,omitempty"`
	Addr  string `json:"addr,omitempty"`
	Type  string `json:"type,omitempty"`
	Name  string `json:"name,omitempty"`
	Edge  string `json:"edge,omitempty"`
	Kind  string `json:"kind,omitempty"`
	Steps int    `json:"steps,omitempty"` // the steps of a run this one stands for
	Gap   int    `json:"gap,omitempty"`   // steps left out here
}

// maxPathSteps bounds the steps of a path sent to the page.
const maxPathSteps = 200

func pathOf(g *heap.Graph, p analyze.Path) pathJSON {
	out := pathJSON{Text: report.PathTextMax(p, maxPathSteps), RootKind: p.RootKind.String(), RootName: p.RootName, Steps: []stepJSON{}}
	steps, runs := report.FoldSteps(p.Steps)
	for i, s := range steps {
		if len(steps) > maxPathSteps && i == maxPathSteps/2 {
			gap := 0
			for _, r := range runs[i : len(steps)-maxPathSteps/2] {
				gap += r
			}
			out.Steps = append(out.Steps, stepJSON{Gap: gap})
		}
		if len(steps) > maxPathSteps && i >= maxPathSteps/2 && i < len(steps)-maxPathSteps/2 {
			continue
		}
		st := stepJSON{ID: idText(s.Object), Addr: analyze.IDText(g, s.Object), Type: s.Type, Name: s.Name, Edge: s.Edge}
		if i > 0 {
			st.Kind = s.Kind.String()
		}
		if runs[i] > 1 {
			st.Steps = runs[i]
		}
		out.Steps = append(out.Steps, st)
	}
	return out
}

// snapshot returns the snapshot named by the path value s.
func (s *server) snapshot(r *http.Request) (int, *Snapshot, error) {
	v := r.PathValue("s")
	i, err := strconv.Atoi(v)
	if err != nil || i < 0 || i >= len(s.snaps) {
		return 0, nil, notFound("no snapshot %q (there are %d)", v, len(s.snaps))
	}
	return i, s.snaps[i], nil
}

// analysis returns the snapshot's dominator tree and paths.
func (s *server) analysis(r *http.Request) (int, *Snapshot, *Analysis, error) {
	i, snap, err := s.snapshot(r)
	if err != nil {
		return 0, nil, nil, err
	}
	an, err := snap.analysisCtx(r.Context())
	return i, snap, an, err
}

// objectID parses the path value id of an object of g: a number or
// "root".
func objectID(r *http.Request, g *heap.Graph) (heap.ObjectID, error) {
	v := r.PathValue("id")
	if v == "root" {
		return analyze.SuperRoot, nil
	}
	n, err := strconv.ParseUint(v, 10, 32)
	if err != nil || int(n) >= g.NumObjects() {
		return 0, notFound("no object %q in this snapshot", v)
	}
	return heap.ObjectID(n), nil
}

type snapshotJSON struct {
	Index    int              `json:"index"`
	Path     string           `json:"path"`
	Overview analyze.Overview `json:"overview"`
	// Warnings are the first of the reader's warnings; Overview counts
	// them all.
	Warnings []string `json:"warnings"`
}

// maxWarnings bounds the warnings listed per snapshot.
const maxWarnings = 50

// snapshots is the overview of every snapshot, with its first warnings.
func (s *server) snapshots(r *http.Request) (any, error) {
	out := struct {
		Snapshots []snapshotJSON `json:"snapshots"`
		// Leaks: the default baseline, target and final of the leaks
		// view, when there are three snapshots or more.
		Leaks []int `json:"leaks,omitempty"`
	}{Snapshots: []snapshotJSON{}}
	for i, snap := range s.snaps {
		j := snapshotJSON{Index: i, Path: snap.Path, Overview: analyze.Describe(snap.Graph), Warnings: []string{}}
		for k, w := range snap.Graph.Warnings() {
			if k == maxWarnings {
				break
			}
			j.Warnings = append(j.Warnings, w.String())
		}
		out.Snapshots = append(out.Snapshots, j)
	}
	if n := len(s.snaps); n >= 3 {
		d := leakDefaults(n)
		out.Leaks = d[:]
	}
	return out, nil
}

// summaryRow is a row of the summary: with retained=1, also what the
// type's objects retain, their share of the heap and the distance of
// the nearest from the roots (absent for a census, which has no
// references).
type summaryRow struct {
	analyze.TypeSummary
	Retained *uint64  `json:"retained_bytes,omitempty"`
	Share    *float64 `json:"share,omitempty"`
	Distance *int     `json:"distance,omitempty"`
}

// summary is a page of the objects and shallow bytes per type.
func (s *server) summary(r *http.Request) (any, error) {
	i, snap, err := s.snapshot(r)
	if err != nil {
		return nil, err
	}
	p, err := parsePage(r)
	if err != nil {
		return nil, err
	}
	var an *Analysis
	withRetained := r.URL.Query().Get("retained") != "" && snap.Graph.Meta().Attrs["census"] != "true"
	if withRetained {
		if an, err = snap.analysisCtx(r.Context()); err != nil {
			return nil, err
		}
	}
	key := fmt.Sprintf("summary/%d/%v", i, withRetained)
	v, err := s.cached(r, key, func(func() bool) (any, error) {
		rows := analyze.Summary(snap.Graph)
		out := make([]summaryRow, len(rows))
		ret := map[string]analyze.NameRetention{}
		if an != nil {
			for _, x := range analyze.RetainedByName(an.Tree, an.Paths, nil) {
				ret[x.Type] = x
			}
		}
		for k, row := range rows {
			out[k].TypeSummary = row
			if x, ok := ret[row.Type]; ok {
				out[k].Retained, out[k].Share, out[k].Distance = &x.Retained, &x.Share, &x.Distance
			}
		}
		return out, nil
	})
	if err != nil {
		return nil, err
	}
	value := func(p *uint64) uint64 {
		if p == nil {
			return 0
		}
		return *p
	}
	dist := func(p *int) int {
		if p == nil || *p < 0 {
			return int(^uint(0) >> 1)
		}
		return *p
	}
	return cut(v.([]summaryRow), p, func(t summaryRow) string { return t.Type },
		map[string]column[summaryRow]{
			"type":           func(a, b summaryRow) int { return cmp.Compare(a.Type, b.Type) },
			"count":          num(func(t summaryRow) int { return t.Count }),
			"shallow_bytes":  num(func(t summaryRow) uint64 { return t.Bytes }),
			"retained_bytes": num(func(t summaryRow) uint64 { return value(t.Retained) }),
			"share":          num(func(t summaryRow) uint64 { return value(t.Retained) }),
			"distance":       num(func(t summaryRow) int { return dist(t.Distance) }),
		})
}

// snapshotParam parses the query value name, a snapshot index (def
// when it is absent).
func (s *server) snapshotParam(r *http.Request, name string, def int) (int, error) {
	v := r.URL.Query().Get(name)
	if v == "" {
		return def, nil
	}
	i, err := strconv.Atoi(v)
	if err != nil || i < 0 || i >= len(s.snaps) {
		return 0, badRequest("%s: no snapshot %q (there are %d)", name, v, len(s.snaps))
	}
	return i, nil
}

// diffPair returns the snapshots a request compares: a and b, by default
// the first and the last.
func (s *server) diffPair(r *http.Request) (a, b int, err error) {
	if a, err = s.snapshotParam(r, "a", 0); err != nil {
		return 0, 0, err
	}
	b, err = s.snapshotParam(r, "b", len(s.snaps)-1)
	return a, b, err
}

// diff is a page of the change per type between the snapshots a and b
// (by default the first and the last).
func (s *server) diff(r *http.Request) (any, error) {
	a, b, err := s.diffPair(r)
	if err != nil {
		return nil, err
	}
	p, err := parsePage(r)
	if err != nil {
		return nil, err
	}
	before, after := s.snaps[a].Graph, s.snaps[b].Graph
	// As the diff command: V8 node ids are stable within one process, so
	// the diff tells which objects are new too.
	identity := before.Meta().Runtime == "v8" && after.Meta().Runtime == "v8"
	v, err := s.cached(r, fmt.Sprintf("diff/%d/%d", a, b), func(func() bool) (any, error) {
		return analyze.Diff(before, after, analyze.DiffOptions{Identity: identity}), nil
	})
	if err != nil {
		return nil, err
	}
	rows, err := cut(v.([]analyze.TypeDelta), p, func(t analyze.TypeDelta) string { return report.DeltaLabel(t) },
		map[string]column[analyze.TypeDelta]{
			"type":          func(a, b analyze.TypeDelta) int { return cmp.Compare(a.Type, b.Type) },
			"count_before":  num(func(t analyze.TypeDelta) int { return t.CountBefore }),
			"count_after":   num(func(t analyze.TypeDelta) int { return t.CountAfter }),
			"count_delta":   num(func(t analyze.TypeDelta) int { return t.CountDelta }),
			"bytes_before":  num(func(t analyze.TypeDelta) uint64 { return t.BytesBefore }),
			"bytes_after":   num(func(t analyze.TypeDelta) uint64 { return t.BytesAfter }),
			"bytes_delta":   num(func(t analyze.TypeDelta) int64 { return t.BytesDelta }),
			"new":           num(func(t analyze.TypeDelta) int { return t.New }),
			"deleted":       num(func(t analyze.TypeDelta) int { return t.Deleted }),
			"new_bytes":     num(func(t analyze.TypeDelta) int64 { return t.NewBytes }),
			"deleted_bytes": num(func(t analyze.TypeDelta) int64 { return t.DeletedBytes }),
		})
	if err != nil {
		return nil, err
	}
	return struct {
		A        int  `json:"a"`
		B        int  `json:"b"`
		Identity bool `json:"identity"`
		paged[analyze.TypeDelta]
	}{a, b, identity, rows}, nil
}

// diffObjects is a page of the objects of one row of the diff of a and
// b that are new in b (which=new) or were deleted from a
// (which=deleted), by retained size in their snapshot when it has been
// analysed (else in ID order), each with the snapshot it is in.
func (s *server) diffObjects(r *http.Request) (any, error) {
	a, b, err := s.diffPair(r)
	if err != nil {
		return nil, err
	}
	q := r.URL.Query()
	which := q.Get("which")
	if which != "new" && which != "deleted" {
		return nil, badRequest("which: want new or deleted, got %q", which)
	}
	before, after := s.snaps[a].Graph, s.snaps[b].Graph
	if before.Meta().Runtime != "v8" || after.Meta().Runtime != "v8" {
		return nil, badRequest("objects are matched across snapshots by V8's ids only: these snapshots cannot tell new objects from old")
	}
	p, err := parsePage(r)
	if err != nil {
		return nil, err
	}
	row := analyze.TypeDelta{Type: q.Get("type"), Classes: q.Get("classes")}
	if row.Types, err = strconv.Atoi(cmp.Or(q.Get("types"), "0")); err != nil {
		return nil, badRequest("types: want a number, got %q", q.Get("types"))
	}
	in := b
	if which == "deleted" {
		in = a
	}
	snap := s.snaps[in]
	var t *analyze.DomTree
	if snap.Graph.Meta().Attrs["census"] != "true" {
		an, err := snap.analysisCtx(r.Context())
		if err != nil {
			return nil, err
		}
		t = an.Tree
	}
	v, err := s.cached(r, fmt.Sprintf("diffobjects/%d/%d/%s/%q/%q/%d", a, b, which, row.Type, row.Classes, row.Types), func(func() bool) (any, error) {
		objs := analyze.DiffObjects(before, after, row, which == "deleted")
		if t != nil {
			objs = analyze.ByRetained(t, objs)
		}
		return objs, nil
	})
	if err != nil {
		return nil, err
	}
	page, err := cut(v.([]heap.ObjectID), p, nil, nil)
	if err != nil {
		return nil, err
	}
	rows := make([]objectJSON, 0, len(page.Rows))
	for _, x := range page.Rows {
		rows = append(rows, objectOf(snap.Graph, t, x))
	}
	return struct {
		Snapshot int          `json:"snapshot"` // the one the objects are in
		Total    int          `json:"total"`
		Rows     []objectJSON `json:"rows"`
	}{in, page.Total, rows}, nil
}

// picked is what a request's selector picks, in the snapshot it names.
type picked struct {
	i         int // the snapshot
	g         *heap.Graph
	an        *Analysis
	text, key string // see selection
	objs      []heap.ObjectID
}

// pick returns the snapshot of a request, its analysis, the objects its
// selector picks (see selection) and the page it asks for.
func (s *server) pick(r *http.Request) (picked, pageQuery, error) {
	p, err := parsePage(r)
	if err != nil {
		return picked{}, p, err
	}
	i, snap, an, err := s.analysis(r)
	if err != nil {
		return picked{}, p, err
	}
	text, key, objs, err := selection(r, snap.Graph)
	return picked{i, snap.Graph, an, text, key, objs}, p, err
}

// selection reads the selector of a request: sel (a selector as the
// command line takes it: a type or other name, an id such as @47297 or
// 0x7f3a..., value:TEXT, class:NAME), or one of type, addr (hex, with or
// without 0x), value (a substring of value labels), class (a class
// object's name, as the why command's class:NAME) or id (an object's
// index in the snapshot, as the page's links give it). It returns the
// selector as the why command would write it, a key that names the
// selection for the cache, and the objects, or an error that says why
// it picks none.
func selection(r *http.Request, g *heap.Graph) (text, key string, objs []heap.ObjectID, err error) {
	q := r.URL.Query()
	for _, k := range []string{"id", "sel", "addr", "value", "class", "type"} {
		if v := q.Get(k); v != "" {
			key = k + "=" + v
			break
		}
	}
	var sel analyze.Selector
	switch {
	case q.Get("id") != "":
		v := q.Get("id")
		n, err := strconv.ParseUint(v, 10, 32)
		if err != nil || int(n) >= g.NumObjects() {
			return "", "", nil, notFound("no object %q in this snapshot", v)
		}
		id := heap.ObjectID(n)
		return report.ObjectText(g, id), key, []heap.ObjectID{id}, nil
	case q.Get("sel") != "":
		text = q.Get("sel")
		if sel, err = analyze.ParseSelector(text); err != nil {
			return "", "", nil, badRequest("%v", err)
		}
	case q.Get("addr") != "":
		v := q.Get("addr")
		a, err := strconv.ParseUint(strings.TrimPrefix(strings.ToLower(v), "0x"), 16, 64)
		if err != nil {
			return "", "", nil, badRequest("addr: want a hex address such as 0x7f3a0c2b1e40, got %q", v)
		}
		text, sel = "0x"+strconv.FormatUint(a, 16), analyze.Selector{Addr: a, HasAddr: true}
	case q.Get("value") != "":
		text, sel = "value:"+q.Get("value"), analyze.Selector{Value: q.Get("value")}
	case q.Get("class") != "":
		text, sel = "class:"+q.Get("class"), analyze.Selector{Class: q.Get("class")}
	case q.Get("type") != "":
		text, sel = q.Get("type"), analyze.Selector{Type: q.Get("type")}
	default:
		return "", "", nil, badRequest("say which objects: sel=SELECTOR (a name, @id, 0xADDR, value:TEXT, class:NAME), type=NAME, addr=0xADDR, value=TEXT, class=NAME or id=N")
	}
	objs = analyze.Select(g, sel)
	if len(objs) == 0 {
		return "", "", nil, notFound("%s selects no object in this snapshot%s", text, analyze.NoMatch(g, sel, text))
	}
	return text, key, objs, nil
}

type groupJSON struct {
	Count    int      `json:"count"`
	Retained uint64   `json:"retained_bytes"`
	Path     string   `json:"path"`
	Sample   pathJSON `json:"sample"`
	// HeldBy and Holders say what holds the group (see
	// [analyze.Holder]), for the first whyHolders groups by size.
	HeldBy  string       `json:"held_by,omitempty"`
	Holders []holderJSON `json:"holders"`
}

// whyHolders is how many groups of why get their holders: the biggest.
const whyHolders = 50

// why is a page of the merged shortest paths to the selected objects.
func (s *server) why(r *http.Request) (any, error) {
	pk, p, err := s.pick(r)
	if err != nil {
		return nil, err
	}
	i, g, an, sel, key, objs := pk.i, pk.g, pk.an, pk.text, pk.key, pk.objs
	// What is kept is the rows as the page gets them, sample paths
	// folded and bounded, not the groups' whole paths.
	type merged struct {
		rows      []groupJSON
		unreached int
	}
	v, err := s.cached(r, fmt.Sprintf("why/%d/%s", i, key), func(func() bool) (any, error) {
		groups, unreached := analyze.MergePaths(an.Paths, an.Tree, objs)
		holders := analyze.GroupHolders(an.Tree, an.Paths, objs, groups, func(i int) bool { return i < whyHolders })
		m := merged{unreached: unreached, rows: make([]groupJSON, 0, len(groups))}
		for i, grp := range groups {
			row := groupJSON{Count: grp.Count, Retained: grp.Retained, Path: report.SignatureText(grp), Sample: pathOf(g, grp.Sample),
				Holders: holdersOf(g, holders[i], "path")}
			if len(holders[i]) > 1 {
				row.HeldBy = report.HeldByText(holders[i], "path")
			}
			m.rows = append(m.rows, row)
		}
		return m, nil
	})
	if err != nil {
		return nil, err
	}
	m := v.(merged)
	page, err := cut(m.rows, p, func(x groupJSON) string { return x.Path }, map[string]column[groupJSON]{
		"count":          num(func(x groupJSON) int { return x.Count }),
		"retained_bytes": num(func(x groupJSON) uint64 { return x.Retained }),
	})
	if err != nil {
		return nil, err
	}
	return struct {
		Selector  string      `json:"selector"`
		Selected  int         `json:"selected"`
		Unreached int         `json:"unreached"`
		Total     int         `json:"total"`
		Rows      []groupJSON `json:"rows"`
	}{sel, len(objs), m.unreached, page.Total, page.Rows}, nil
}
