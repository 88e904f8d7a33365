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
// and its steps with their objects, for links.
type pathJSON struct {
	Text     string     `json:"text"`
	RootKind string     `json:"root_kind"`
	RootName string     `json:"root_name,omitempty"`
	Steps    []stepJSON `json:"steps"`
}

type stepJSON struct {
	ID   string `json:"id"`
	Addr string `json:"addr"`
	Type string `json:"type"`
	Name string `json:"name,omitempty"`
	Edge string `json:"edge,omitempty"`
	Kind string `json:"kind,omitempty"`
}

func pathOf(g *heap.Graph, p analyze.Path) pathJSON {
	out := pathJSON{Text: report.PathText(p), RootKind: p.RootKind.String(), RootName: p.RootName, Steps: []stepJSON{}}
	for i, s := range p.Steps {
		st := stepJSON{ID: idText(s.Object), Addr: analyze.IDText(g, s.Object), Type: s.Type, Name: s.Name, Edge: s.Edge}
		if i > 0 {
			st.Kind = s.Kind.String()
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
	an, err := snap.analysis()
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
	v, _ := s.cached(fmt.Sprintf("summary/%d", i), func() (any, error) { return analyze.Summary(snap.Graph), nil })
	return cut(v.([]analyze.TypeSummary), p, func(t analyze.TypeSummary) string { return t.Type },
		map[string]column[analyze.TypeSummary]{
			"type":          func(a, b analyze.TypeSummary) int { return cmp.Compare(a.Type, b.Type) },
			"count":         num(func(t analyze.TypeSummary) int { return t.Count }),
			"shallow_bytes": num(func(t analyze.TypeSummary) uint64 { return t.Bytes }),
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

// diff is a page of the change per type between the snapshots a and b
// (by default the first and the last).
func (s *server) diff(r *http.Request) (any, error) {
	a, err := s.snapshotParam(r, "a", 0)
	if err != nil {
		return nil, err
	}
	b, err := s.snapshotParam(r, "b", len(s.snaps)-1)
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
	v, _ := s.cached(fmt.Sprintf("diff/%d/%d", a, b), func() (any, error) {
		return analyze.Diff(before, after, analyze.DiffOptions{Identity: identity}), nil
	})
	rows, err := cut(v.([]analyze.TypeDelta), p, func(t analyze.TypeDelta) string { return report.DeltaLabel(t) },
		map[string]column[analyze.TypeDelta]{
			"type":         func(a, b analyze.TypeDelta) int { return cmp.Compare(a.Type, b.Type) },
			"count_before": num(func(t analyze.TypeDelta) int { return t.CountBefore }),
			"count_after":  num(func(t analyze.TypeDelta) int { return t.CountAfter }),
			"count_delta":  num(func(t analyze.TypeDelta) int { return t.CountDelta }),
			"bytes_before": num(func(t analyze.TypeDelta) uint64 { return t.BytesBefore }),
			"bytes_after":  num(func(t analyze.TypeDelta) uint64 { return t.BytesAfter }),
			"bytes_delta":  num(func(t analyze.TypeDelta) int64 { return t.BytesDelta }),
			"new":          num(func(t analyze.TypeDelta) int { return t.New }),
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
}

// why is a page of the merged shortest paths to the selected objects.
func (s *server) why(r *http.Request) (any, error) {
	i, snap, an, err := s.analysis(r)
	if err != nil {
		return nil, err
	}
	g := snap.Graph
	p, err := parsePage(r)
	if err != nil {
		return nil, err
	}
	sel, key, objs, err := selection(r, g)
	if err != nil {
		return nil, err
	}
	type merged struct {
		groups    []analyze.PathGroup
		unreached int
	}
	v, _ := s.cached(fmt.Sprintf("why/%d/%s", i, key), func() (any, error) {
		groups, unreached := analyze.MergePaths(an.Paths, an.Tree, objs)
		return merged{groups, unreached}, nil
	})
	m := v.(merged)
	page, err := cut(m.groups, p, report.SignatureText, map[string]column[analyze.PathGroup]{
		"count":          num(func(x analyze.PathGroup) int { return x.Count }),
		"retained_bytes": num(func(x analyze.PathGroup) uint64 { return x.Retained }),
	})
	if err != nil {
		return nil, err
	}
	rows := []groupJSON{}
	for _, grp := range page.Rows {
		rows = append(rows, groupJSON{grp.Count, grp.Retained, report.SignatureText(grp), pathOf(g, grp.Sample)})
	}
	return struct {
		Selector  string      `json:"selector"`
		Selected  int         `json:"selected"`
		Unreached int         `json:"unreached"`
		Total     int         `json:"total"`
		Rows      []groupJSON `json:"rows"`
	}{sel, len(objs), m.unreached, page.Total, rows}, nil
}
