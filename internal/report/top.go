package report

import (
	"fmt"
	"io"
	"iter"
	"strings"

	"github.com/heapscope/heapscope/analyze"
	"github.com/heapscope/heapscope/heap"
)

// TopObject is an object that retains much, with its dominator chain:
// the objects that dominate it, outermost first. JSON needs neither
// Chain nor Path: it refers to the objects of both by id (see
// [TopData].Context).
type TopObject struct {
	Object heap.ObjectID
	Chain  []heap.ObjectID
	Path   analyze.Path // its shortest path from a root
	// Alloc says where what it retains was allocated, when the
	// snapshot records it.
	Alloc *analyze.Allocations
}

// TopData is what the top command shows; the command computes it. Each
// list may be a prefix (--top) of one with the total given.
type TopData struct {
	// Suspects are the leak suspects (see [analyze.Suspects]), found
	// with threshold SuspectShare.
	Suspects     []SuspectRow
	SuspectShare float64
	// Objects yields the objects that retain the most, biggest first,
	// ObjectsShown of the ObjectsTotal there are; JSON writes each as it
	// comes, so that --top 0 on a large snapshot needs no more memory
	// than one object's chain and path.
	Objects      iter.Seq[TopObject]
	ObjectsShown int
	ObjectsTotal int
	// Paths are the shortest paths; Context the objects that the
	// dominator chains and paths of Objects go through besides them
	// (analyze.Context). JSON writes each object once and refers to the
	// others by id; text needs neither.
	Paths       *analyze.Retainers
	Context     []heap.ObjectID
	Types       []analyze.TypeStat
	TypeAlloc   []*analyze.Allocations // where each type's instances were allocated; nil without sites
	TypesTotal  int
	Native      []analyze.NativeGroup
	NativeTotal int
	Unreachable analyze.UnreachableStats
	// Hung counts the objects a snapshot of live objects holds only
	// through edges that do not retain (analyze.DomTree.Hung), and the
	// memory they retain.
	Hung         int
	HungRetained uint64
}

// Top renders the leak suspects, the objects and types that retain the
// most, the objects held outside the heap, and what no root reaches.
func Top(w io.Writer, f Format, src Source, t *analyze.DomTree, d TopData) error {
	if f == HTML {
		return htmlReport(w, "top", []Source{src}, func(w io.Writer) error { return Top(w, JSON, src, t, d) })
	}
	g := t.Graph()
	if f == JSON {
		return topJSON(w, src, t, d)
	}
	if err := header(w, f, src); err != nil {
		return err
	}
	if err := suspects(w, f, t, d.SuspectShare, d.Suspects); err != nil {
		return err
	}
	section(w, f, fmt.Sprintf("Objects that retain the most (of %s reachable)", Bytes(t.Retained(analyze.SuperRoot))))
	ot := Table{Columns: []Column{{"retained", true}, {"shallow", true}, {"object", false}, {"dominated by", false}}}
	sites := g.HasSites()
	if sites {
		ot.Columns = append(ot.Columns, Column{"what it retains was allocated at", false})
	}
	ot.Columns = append(ot.Columns, Column{"held by", false})
	for o := range d.Objects {
		dom := strings.Join(chainLabels(g, o.Chain), " > ")
		if dom == "" {
			dom = "-"
		}
		cells := []string{Bytes(t.Retained(o.Object)), Bytes(g.Size(o.Object)), ObjectText(g, o.Object), dom}
		if sites {
			cells = append(cells, SitesLine(o.Alloc))
		}
		ot.AddPath(pathSteps(o.Path), cells...)
	}
	if err := ot.Write(w, f); err != nil {
		return err
	}
	section(w, f, "Types that retain the most (each object counted once)")
	tt := Table{Columns: []Column{{"retained", true}, {"count", true}, {"shallow", true}, {"type", false}}}
	if sites {
		tt.Columns = append(tt.Columns, Column{"allocated at", false})
	}
	for i, s := range d.Types {
		row := []string{Bytes(s.Retained), Count(s.Count), Bytes(s.Shallow), TypeLabel(s.Name, s.Classes)}
		if sites {
			row = append(row, SitesLine(typeAlloc(d, i)))
		}
		tt.Add(row...)
	}
	if err := tt.Write(w, f); err != nil {
		return err
	}
	if err := more(w, f, len(d.Types), d.TypesTotal, "types"); err != nil {
		return err
	}
	if len(d.Native) > 0 {
		section(w, f, "Held outside the heap (more references than the snapshot shows)")
		nt := Table{Columns: []Column{{"retained", true}, {"count", true}, {"extra refs", true}, {"type", false}, {"keeps", false}, {"e.g.", false}}}
		for _, n := range d.Native {
			nt.Add(Bytes(n.Retained), Count(n.Count), Count(int(n.Excess)), n.Type, KeepsText(g, n.Keeps), ObjectText(g, n.Sample))
		}
		if err := nt.Write(w, f); err != nil {
			return err
		}
		if err := more(w, f, len(d.Native), d.NativeTotal, "types"); err != nil {
			return err
		}
	}
	if d.Hung > 0 {
		section(w, f, "Held only through weak or non-essential edges (under the root, as in DevTools)")
		line := fmt.Sprintf("%s objects retaining %s that only edges which do not retain reach (see why)", Count(d.Hung), Bytes(d.HungRetained))
		if f == Markdown {
			line = mdLine(line)
		}
		if _, err := fmt.Fprintln(w, line); err != nil {
			return err
		}
	}
	if d.Unreachable.Count > 0 {
		section(w, f, "Unreachable")
		line := fmt.Sprintf("%s objects (%s) that no root reaches", Count(d.Unreachable.Count), Bytes(d.Unreachable.Bytes))
		if u := d.Unreachable; u.Weak > 0 {
			line = fmt.Sprintf("%s objects (%s) that no root reaches through edges that retain; %s of them (%s) are reached through weak or soft references and alive (why --weak)",
				Count(u.Count), Bytes(u.Bytes), Count(u.Weak), Bytes(u.WeakBytes))
		}
		if f == Markdown {
			line = mdLine(line)
		}
		_, err := fmt.Fprintln(w, line)
		return err
	}
	return nil
}

// typeAlloc returns where the instances of the i-th type were
// allocated, or nil.
func typeAlloc(d TopData, i int) *analyze.Allocations {
	if i < len(d.TypeAlloc) {
		return d.TypeAlloc[i]
	}
	return nil
}

// section starts a titled part of a report.
func section(w io.Writer, f Format, title string) {
	if f == Markdown {
		fmt.Fprintf(w, "\n### %s\n\n", mdLine(title))
		return
	}
	fmt.Fprintf(w, "\n%s\n", title)
}

// topJSON writes the top report as JSON, one object at a time.
func topJSON(w io.Writer, src Source, t *analyze.DomTree, d TopData) error {
	g := t.Graph()
	type typeJSON struct {
		Type      string     `json:"type"`
		Classes   string     `json:"classes,omitempty"`
		Count     int        `json:"count"`
		Shallow   uint64     `json:"shallow_bytes"`
		Retained  uint64     `json:"retained_bytes"`
		Allocated *allocJSON `json:"allocated,omitempty"`
	}
	type nativeJSON struct {
		Type     string     `json:"type"`
		Count    int        `json:"count"`
		Excess   uint64     `json:"excess_references"`
		Retained uint64     `json:"retained_bytes"`
		Sample   string     `json:"sample"`
		Keeps    []keptJSON `json:"keeps"`
		KeepText string     `json:"keeps_text,omitempty"`
	}
	type hungJSON struct {
		Count    int    `json:"count"`
		Retained uint64 `json:"retained_bytes"`
	}
	types := []typeJSON{}
	for i, s := range d.Types {
		types = append(types, typeJSON{s.Name, s.Classes, s.Count, s.Shallow, s.Retained, allocToJSON(typeAlloc(d, i))})
	}
	native := []nativeJSON{}
	for _, n := range d.Native {
		native = append(native, nativeJSON{n.Type, n.Count, n.Excess, n.Retained, ObjectText(g, n.Sample), KeptJSON(t, n.Keeps), KeepsText(g, n.Keeps)})
	}
	jw := newJSONWriter(w)
	jw.field("snapshot", src)
	jw.field("reachable_bytes", t.Retained(analyze.SuperRoot))
	jw.field("truncated", d.ObjectsShown < d.ObjectsTotal || len(d.Types) < d.TypesTotal || len(d.Native) < d.NativeTotal)
	jw.field("suspect_share", d.SuspectShare)
	jw.field("suspects", suspectsJSON(t, d.Suspects))
	jw.field("objects_total", d.ObjectsTotal)
	// One line per object, each written once (see objectLine).
	var line []byte
	rw := newRowWriter(t, d.Paths)
	jw.field("object_columns", objectColumns)
	jw.open("objects")
	for o := range d.Objects {
		line = rw.objectLine(line[:0], o.Object, allocToJSON(o.Alloc))
		jw.line(line)
	}
	jw.close()
	jw.open("context")
	for _, c := range d.Context {
		line = rw.objectLine(line[:0], c, nil)
		jw.line(line)
	}
	jw.close()
	jw.field("types_total", d.TypesTotal)
	jw.field("types", types)
	jw.field("held_outside_heap_total", d.NativeTotal)
	jw.field("held_outside_heap", native)
	if d.Hung > 0 {
		jw.field("held_weakly", hungJSON{d.Hung, d.HungRetained})
	}
	unreachable := []typeJSON{}
	for _, s := range d.Unreachable.ByType {
		unreachable = append(unreachable, typeJSON{Type: s.Name, Classes: s.Classes, Count: s.Count, Shallow: s.Shallow, Retained: s.Retained})
	}
	jw.field("unreachable", d.Unreachable.Count)
	jw.field("unreachable_bytes", d.Unreachable.Bytes)
	jw.field("unreachable_weak", d.Unreachable.Weak)
	jw.field("unreachable_weak_bytes", d.Unreachable.WeakBytes)
	jw.field("unreachable_types", unreachable)
	return jw.end()
}

// chainRun is how many dominators of one label in a row a chain shows
// one by one; longer runs (a rope's halves, a linked list) are folded.
const chainRun = 3

// chainRuns calls run for each run of objects of one label (name or type
// name, see objectLabel) in a dominator chain.
func chainRuns(g *heap.Graph, chain []heap.ObjectID, run func(label string, objs []heap.ObjectID)) {
	for i := 0; i < len(chain); {
		label := objectLabel(g, chain[i])
		j := i + 1
		for j < len(chain) && objectLabel(g, chain[j]) == label {
			j++
		}
		run(label, chain[i:j])
		i = j
	}
}

// chainLabels names the objects of a dominator chain for tables by
// their labels, each run of more than chainRun objects of one label as
// "LABEL x N".
func chainLabels(g *heap.Graph, chain []heap.ObjectID) []string {
	var out []string
	chainRuns(g, chain, func(label string, objs []heap.ObjectID) {
		if len(objs) > chainRun {
			out = append(out, label+" x "+Count(len(objs)))
			return
		}
		for range objs {
			out = append(out, label)
		}
	})
	return out
}
