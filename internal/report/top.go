package report

import (
	"fmt"
	"io"
	"strings"

	"github.com/heapscope/heapscope/analyze"
	"github.com/heapscope/heapscope/heap"
)

// TopObject is an object that retains much, with its dominator chain:
// the objects that dominate it, outermost first.
type TopObject struct {
	Object heap.ObjectID
	Chain  []heap.ObjectID
	Path   analyze.Path // its shortest path from a root
}

// TopData is what the top command shows; the command computes it. Each
// list may be a prefix (--top) of one with the total given.
type TopData struct {
	// Suspects are the leak suspects (see [analyze.Suspects]), found
	// with threshold SuspectShare.
	Suspects     []SuspectRow
	SuspectShare float64
	Objects      []TopObject
	ObjectsTotal int
	Types        []analyze.TypeStat
	TypesTotal   int
	Native       []analyze.NativeGroup
	NativeTotal  int
	Unreachable  analyze.UnreachableStats
}

// Top renders the leak suspects, the objects and types that retain the
// most, the objects held outside the heap, and what no root reaches.
func Top(w io.Writer, f Format, src Source, t *analyze.DomTree, d TopData) error {
	if f == HTML {
		return htmlReport(w, "top", []Source{src}, func(w io.Writer) error { return Top(w, JSON, src, t, d) })
	}
	g := t.Graph()
	if f == JSON {
		type objJSON struct {
			objectJSON
			Chain []string `json:"dominators"`
			Path  string   `json:"path"`
		}
		type typeJSON struct {
			Type     string `json:"type"`
			Classes  string `json:"classes,omitempty"`
			Count    int    `json:"count"`
			Shallow  uint64 `json:"shallow_bytes"`
			Retained uint64 `json:"retained_bytes"`
		}
		type nativeJSON struct {
			Type     string `json:"type"`
			Count    int    `json:"count"`
			Excess   uint64 `json:"excess_references"`
			Retained uint64 `json:"retained_bytes"`
			Sample   string `json:"sample"`
		}
		objs := []objJSON{}
		for _, o := range d.Objects {
			j := objJSON{objectJSON: objToJSON(t, o.Object), Chain: []string{}, Path: PathText(o.Path)}
			for _, c := range o.Chain {
				j.Chain = append(j.Chain, ObjectText(g, c))
			}
			objs = append(objs, j)
		}
		types := []typeJSON{}
		for _, s := range d.Types {
			types = append(types, typeJSON{s.Name, s.Classes, s.Count, s.Shallow, s.Retained})
		}
		native := []nativeJSON{}
		for _, n := range d.Native {
			native = append(native, nativeJSON{n.Type, n.Count, n.Excess, n.Retained, ObjectText(g, n.Sample)})
		}
		return WriteJSON(w, struct {
			Snapshot     Source                   `json:"snapshot"`
			Reachable    uint64                   `json:"reachable_bytes"`
			Truncated    bool                     `json:"truncated"`
			SuspectShare float64                  `json:"suspect_share"`
			Suspects     []suspectJSON            `json:"suspects"`
			ObjTotal     int                      `json:"objects_total"`
			Objects      []objJSON                `json:"objects"`
			TypesTotal   int                      `json:"types_total"`
			Types        []typeJSON               `json:"types"`
			NativeTotal  int                      `json:"held_outside_heap_total"`
			Native       []nativeJSON             `json:"held_outside_heap"`
			Unreachable  analyze.UnreachableStats `json:"unreachable"`
		}{src, t.Retained(analyze.SuperRoot),
			len(d.Objects) < d.ObjectsTotal || len(d.Types) < d.TypesTotal || len(d.Native) < d.NativeTotal,
			d.SuspectShare, suspectsJSON(t, d.Suspects),
			d.ObjectsTotal, objs, d.TypesTotal, types, d.NativeTotal, native, d.Unreachable})
	}
	if err := header(w, f, src); err != nil {
		return err
	}
	if err := suspects(w, f, t, d.SuspectShare, d.Suspects); err != nil {
		return err
	}
	section(w, f, fmt.Sprintf("Objects that retain the most (of %s reachable)", Bytes(t.Retained(analyze.SuperRoot))))
	ot := Table{Columns: []Column{{"retained", true}, {"shallow", true}, {"object", false}, {"dominated by", false}, {"held by", false}}}
	for _, o := range d.Objects {
		chain := make([]string, len(o.Chain))
		for i, c := range o.Chain {
			chain[i] = objectLabel(g, c)
		}
		dom := strings.Join(chain, " > ")
		if dom == "" {
			dom = "-"
		}
		ot.AddPath(pathSteps(o.Path), Bytes(t.Retained(o.Object)), Bytes(g.Size(o.Object)), ObjectText(g, o.Object), dom)
	}
	if err := ot.Write(w, f); err != nil {
		return err
	}
	section(w, f, "Types that retain the most (each object counted once)")
	tt := Table{Columns: []Column{{"retained", true}, {"count", true}, {"shallow", true}, {"type", false}}}
	for _, s := range d.Types {
		tt.Add(Bytes(s.Retained), Count(s.Count), Bytes(s.Shallow), TypeLabel(s.Name, s.Classes))
	}
	if err := tt.Write(w, f); err != nil {
		return err
	}
	if err := more(w, f, len(d.Types), d.TypesTotal, "types"); err != nil {
		return err
	}
	if len(d.Native) > 0 {
		section(w, f, "Held outside the heap (more references than the snapshot shows)")
		nt := Table{Columns: []Column{{"retained", true}, {"count", true}, {"extra refs", true}, {"type", false}, {"e.g.", false}}}
		for _, n := range d.Native {
			nt.Add(Bytes(n.Retained), Count(n.Count), Count(int(n.Excess)), n.Type, ObjectText(g, n.Sample))
		}
		if err := nt.Write(w, f); err != nil {
			return err
		}
		if err := more(w, f, len(d.Native), d.NativeTotal, "types"); err != nil {
			return err
		}
	}
	if d.Unreachable.Count > 0 {
		section(w, f, "Unreachable")
		line := fmt.Sprintf("%s objects (%s) that no root reaches", Count(d.Unreachable.Count), Bytes(d.Unreachable.Bytes))
		if f == Markdown {
			line = mdLine(line)
		}
		_, err := fmt.Fprintln(w, line)
		return err
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
