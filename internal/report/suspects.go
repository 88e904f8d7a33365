package report

import (
	"fmt"
	"io"
	"strings"
	"unicode"

	"github.com/heapscope/heapscope/analyze"
	"github.com/heapscope/heapscope/heap"
)

// SuspectRow is a leak suspect with what shows where it is: the shortest
// path to its holder (a single object), or its members' merged paths,
// biggest first (a group).
type SuspectRow struct {
	analyze.Suspect
	Path   analyze.Path
	Groups []analyze.PathGroup
	// Alloc says where the memory that accumulates was allocated (what
	// the accumulation point retains, or the members of a group), when
	// the snapshot records it.
	Alloc *analyze.Allocations
}

// SuspectRows finds the leak suspects of t (see [analyze.Suspects]) with
// threshold share and the paths that show where each is held.
func SuspectRows(t *analyze.DomTree, paths *analyze.Retainers, share float64) []SuspectRow {
	var rows []SuspectRow
	found := analyze.Suspects(t, analyze.SuspectOptions{MinShare: share})
	var all []heap.ObjectID // where the memory of each suspect ends
	for _, s := range found {
		all = append(all, s.Object)
	}
	for _, s := range found {
		r := SuspectRow{Suspect: s}
		if s.Members == nil {
			r.Path, _ = paths.Path(s.Holder)
		} else {
			r.Groups, _ = analyze.MergePaths(paths, t, s.Members)
		}
		switch {
		case s.Point != heap.None:
			r.Alloc = analyze.RetainedSites(t, s.Point, all...)
		case s.Members != nil:
			r.Alloc = analyze.AllocationSites(t.Graph(), s.Members)
		default:
			r.Alloc = analyze.RetainedSites(t, s.Object, all...)
		}
		rows = append(rows, r)
	}
	return rows
}

// SuspectsJSON is the leak suspects as top's JSON shows them.
func SuspectsJSON(t *analyze.DomTree, rows []SuspectRow) any { return suspectsJSON(t, rows) }

// suspectJSON is a leak suspect as JSON shows it.
type suspectJSON struct {
	Text     string             `json:"text"`
	Retained uint64             `json:"retained_bytes"`
	Share    float64            `json:"share"`
	Suspect  objectJSON         `json:"suspect"`
	Members  int                `json:"members,omitempty"`
	Point    *objectJSON        `json:"accumulation_point,omitempty"`
	PointRet uint64             `json:"accumulated_bytes,omitempty"`
	Holder   *objectJSON        `json:"holder,omitempty"`
	Alloc    *allocJSON         `json:"allocated,omitempty"`
	Place    string             `json:"place,omitempty"`
	Elements []elementGroupJSON `json:"elements"`
	Path     string             `json:"path,omitempty"`
}

type elementGroupJSON struct {
	Type     string `json:"type"`
	Count    int    `json:"count"`
	Retained uint64 `json:"retained_bytes"`
	Types    int    `json:"types,omitempty"` // the classes of the family whose pattern Type is
}

func suspectsJSON(t *analyze.DomTree, rows []SuspectRow) []suspectJSON {
	out := []suspectJSON{}
	for _, r := range rows {
		j := suspectJSON{Text: SuspectText(t.Graph(), r), Retained: r.Retained, Share: r.Share,
			Suspect: objToJSON(t, r.Object), Elements: []elementGroupJSON{}, Path: strings.Join(suspectPath(r), pathSep),
			Alloc: allocToJSON(r.Alloc)}
		if r.Members != nil {
			j.Members = len(r.Members)
		}
		if r.Point != heap.None {
			p, h := objToJSON(t, r.Point), objToJSON(t, r.Holder)
			j.Point, j.PointRet, j.Holder, j.Place = &p, r.PointRetained, &h, PlaceText(r.Path)
		}
		for _, e := range r.Elements {
			j.Elements = append(j.Elements, elementGroupJSON(e))
		}
		out = append(out, j)
	}
	return out
}

// SuspectText says in one line where a suspect's memory accumulates, in
// the program's terms: "900 app.Session in java.util.HashMap at class
// app.Cache.SESSIONS" (the biggest element group, the holder and where
// the holder is; "310 instances of classes Task$$Lambda$*/*" for a
// family's instances), or for a group "50 java.lang.Thread, held by no single
// object", "60 memoryview -> 60 numpy.ndarray float64 (512, 256), 1.0
// MiB each, held outside the heap" (what the members keep, and where
// they are when all are held outside the heap).
func SuspectText(g *heap.Graph, r SuspectRow) string {
	if r.Point == heap.None {
		if len(r.Elements) == 0 {
			return ObjectText(g, r.Object)
		}
		s := elementText(r.Elements[0])
		if len(r.Keeps) > 0 {
			s += " -> " + KeepsText(g, r.Keeps[:1])
		}
		if len(r.Groups) == 1 && r.Groups[0].RootName == analyze.NativeRootName {
			return s + ", held outside the heap"
		}
		return s + ", held by no single object"
	}
	holder := objectLabel(g, r.Holder)
	if _, named := g.Name(r.Holder); !named {
		if place := PlaceText(r.Path); place != "" {
			holder += " at " + place
		} else if len(r.Path.Steps) == 1 {
			holder += " (" + rootText(r.Path.RootKind, r.Path.RootName) + ")"
		}
	}
	if len(r.Elements) == 0 {
		return holder
	}
	return elementText(r.Elements[0]) + " in " + holder
}

// elementText says what an element group is: "900 app.Session", or
// "310 instances of classes Task$$Lambda$*/*" for the instances of a
// family's classes, as leaks names them.
func elementText(e analyze.ElementGroup) string {
	if e.Types > 1 {
		return Count(e.Count) + " instances of classes " + e.Type
	}
	return Count(e.Count) + " " + e.Type
}

// PlaceText says where the last object of a path is, as an expression a
// programmer would write: the object that holds it (by its name, such as
// "class app.Cache", or its type, or the root's description when the
// root holds it) and the field or index it is held by: "class
// app.Cache.SESSIONS", "module app.cache", "app.Service.cache",
// "java.lang.Object[][3]", "class app.Cache.PAGES[3]" (an element of an
// array a field holds). It is "" for a root object.
func PlaceText(p analyze.Path) string {
	n := len(p.Steps)
	if n < 2 {
		return ""
	}
	edge := p.Steps[n-1].Edge
	k := n - 2
	// Through a namespace (a Python module's or instance's __dict__) to
	// the object whose attribute it is.
	if k > 0 && p.Steps[k].Edge == "__dict__" && strings.HasPrefix(edge, ".") {
		k--
	}
	// Through V8's plain objects, which say nothing by their type, to
	// the object whose property holds them: "EventEmitter._events.change"
	// rather than "Object.change".
	via := ""
	for k > 0 && p.Steps[k].Type == "Object" && p.Steps[k].Name == "" && p.Steps[k].Kind == heap.Strong && isIdentifier(p.Steps[k].Edge) {
		via = "." + p.Steps[k].Edge + via
		k--
	}
	st := p.Steps[k]
	anchor := stepLabel(st.Type, st.Name) + via
	if root := rootText(p.RootKind, p.RootName); k == 0 && via == "" && st.Name == "" && strings.HasPrefix(root, st.Type+" ") {
		anchor = root // "module app"
	}
	switch {
	case edge == "":
		return anchor
	case strings.HasPrefix(edge, "[") && k > 0 && st.Name == "" && strings.HasSuffix(st.Type, "[]"):
		// An element of a Java array that a field holds: "class
		// app.Cache.PAGES[*]" rather than "app.Page[][][*]".
		if at := PlaceText(analyze.Path{RootKind: p.RootKind, RootName: p.RootName, Steps: p.Steps[:k+1]}); at != "" {
			return at + edge
		}
		return anchor + edge
	case strings.HasPrefix(edge, ".") || strings.HasPrefix(edge, "["):
		return anchor + edge
	case strings.Trim(edge, "0123456789") == "":
		return anchor + "[" + edge + "]" // V8 names element slots by number
	}
	return anchor + "." + edge
}

// isIdentifier says whether an edge name is a property a programmer
// writes after a dot: an identifier, not an element index or a symbol.
func isIdentifier(edge string) bool {
	if edge == "" {
		return false
	}
	for i, r := range edge {
		letter := r == '_' || r == '$' || unicode.IsLetter(r)
		if !letter && (i == 0 || !unicode.IsDigit(r)) {
			return false
		}
	}
	return true
}

// suspectPath is the path a suspect shows, as steps: the holder's
// shortest path, or the merged path of most of a group's members (with
// how many of them it holds, when it does not hold them all); nil when
// there is none.
func suspectPath(r SuspectRow) []string {
	if r.Point != heap.None {
		if len(r.Path.Steps) == 0 {
			return nil
		}
		return pathSteps(r.Path)
	}
	if len(r.Groups) == 0 {
		return nil
	}
	steps := signatureSteps(r.Groups[0])
	if len(r.Groups) > 1 {
		steps[len(steps)-1] += fmt.Sprintf(" (%s of them; %s more paths)", Count(r.Groups[0].Count), Count(len(r.Groups)-1))
	}
	return steps
}

// suspects renders the leak-suspects section of top.
func suspects(w io.Writer, f Format, t *analyze.DomTree, share float64, rows []SuspectRow) error {
	g := t.Graph()
	section(w, f, fmt.Sprintf("Leak suspects (each retains over %s of the %s reachable; where that memory accumulates)",
		percent(share), Bytes(t.Retained(analyze.SuperRoot))))
	if len(rows) == 0 {
		_, err := fmt.Fprintf(w, "no accumulation of the program's data retains over %s of the reachable heap (classes, functions, modules and their namespaces are code, never suspects)\n", percent(share))
		return err
	}
	if f == Markdown {
		tb := Table{Columns: []Column{{"#", true}, {"retained", true}, {"share", true}, {"accumulated", false}, {"suspect", false}, {"held by", false}}}
		if g.HasSites() {
			tb.Columns = append(tb.Columns, Column{"allocated at", false})
		}
		for i, r := range rows {
			row := []string{fmt.Sprint(i + 1), Bytes(r.Retained), percent(r.Share), SuspectText(g, r), ObjectText(g, r.Object), strings.Join(suspectPath(r), pathSep)}
			if g.HasSites() {
				row = append(row, SitesLine(r.Alloc))
			}
			tb.Add(row...)
		}
		return tb.Write(w, f)
	}
	for i, r := range rows {
		if r.Point == heap.None {
			fmt.Fprintf(w, "#%d  %s, %s (%s)\n", i+1, SuspectText(g, r), Bytes(r.Retained), percent(r.Share))
			fmt.Fprintf(w, "    e.g.     %s\n", ObjectText(g, r.Object))
		} else {
			fmt.Fprintf(w, "#%d  %s, %s\n", i+1, SuspectText(g, r), Bytes(r.PointRetained))
			fmt.Fprintf(w, "    suspect  %s retains %s (%s)\n", ObjectText(g, r.Object), Bytes(r.Retained), percent(r.Share))
		}
		if p := suspectPath(r); p != nil {
			if _, err := io.WriteString(w, wrapSteps("    held by  ", p, widthOf(w))); err != nil {
				return err
			}
		}
		if err := writeSites(w, r.Alloc, "    ", "allocated at"); err != nil {
			return err
		}
	}
	return nil
}

// percent formats a share: "25.3%".
func percent(x float64) string {
	return fmt.Sprintf("%.1f%%", 100*x)
}
