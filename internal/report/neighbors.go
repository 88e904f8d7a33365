package report

import (
	"fmt"
	"io"
	"strings"

	"github.com/heapscope/heapscope/analyze"
	"github.com/heapscope/heapscope/heap"
)

// Neighbors renders what [analyze.Neighbors] found around the objects
// selector picks (objs): their retainers, the edges that
// lead to them (out false), or their references (out true), a level per
// indentation step, as text, Markdown, JSON or DOT.
func Neighbors(w io.Writer, f Format, src Source, t *analyze.DomTree, selector string, objs []heap.ObjectID, tree analyze.NeighborTree, out bool) error {
	g := t.Graph()
	selected := len(objs)
	switch f {
	case JSON:
		return WriteJSON(w, struct {
			Snapshot  Source          `json:"snapshot"`
			Selector  string          `json:"selector"`
			Selected  int             `json:"selected"`
			Direction string          `json:"direction"`
			Exhausted bool            `json:"exhausted"`
			Hidden    int             `json:"hidden,omitempty"`
			Groups    []neighborJSONT `json:"groups"`
		}{src, selector, selected, direction(out), tree.Exhausted, tree.Hidden, neighborsJSON(t, tree.Groups)})
	case DOT:
		return neighborsDot(w, t, selector, objs, tree, out)
	}
	if err := header(w, f, src); err != nil {
		return err
	}
	what := "held by"
	if out {
		what = "holds"
	}
	line := fmt.Sprintf("%s selects %s; %s", selector, plural(selected, "object"), neighborsPhrase(out, tree))
	if f == Markdown {
		line = mdLine(line) + "\n"
	}
	fmt.Fprintln(w, line)
	tab := Table{Columns: []Column{{"count", true}, {"retained", true}, {"shallow", true}, {"distance", true}, {what, false}}}
	var rows func(groups []analyze.NeighborGroup, hidden, depth int)
	rows = func(groups []analyze.NeighborGroup, hidden, depth int) {
		indent := strings.Repeat("  ", depth)
		if f == Markdown {
			indent = strings.Repeat("· ", depth) // Markdown drops leading spaces
		}
		for _, grp := range groups {
			dist := "-"
			if grp.Distance >= 0 {
				dist = Count(grp.Distance)
			}
			tab.Add(Count(len(grp.Objects)), Bytes(grp.Retained), Bytes(grp.Shallow), dist, indent+NeighborText(g, grp, out))
			rows(grp.Kids, grp.Hidden, depth+1)
		}
		if hidden > 0 {
			tab.Add("", "", "", "", fmt.Sprintf("%s(%s more groups: --top 0 lists all)", indent, Count(hidden)))
		}
	}
	rows(tree.Groups, tree.Hidden, 0)
	if f == Text {
		fmt.Fprintln(w)
	}
	if err := tab.Write(w, f); err != nil {
		return err
	}
	if tree.Exhausted {
		fmt.Fprintln(w, "(stopped early: too many edges to look at; a smaller --depth or --top shows the rest)")
	}
	return nil
}

func direction(out bool) string {
	if out {
		return "outgoing"
	}
	return "incoming"
}

// neighborsPhrase says what the table lists.
func neighborsPhrase(out bool, tree analyze.NeighborTree) string {
	n := len(tree.Groups) + tree.Hidden
	if out {
		return fmt.Sprintf("what they hold, %s groups of references (outgoing edges)", Count(n))
	}
	return fmt.Sprintf("what holds them, %s groups of retainers (incoming edges), nearest the roots first", Count(n))
}

// NeighborText describes a group of edges on one line: for retainers
// "['a'] in dict@0x1300" (the edge, then the object that holds it),
// for references ".payload bytearray@0x4100"; a group of several
// objects names their type ("[*] in dict"), with the edge count when it
// differs; "(weak)" marks weak edges, "(cycle)" a group whose objects
// are all on the way from the selection.
func NeighborText(g *heap.Graph, grp analyze.NeighborGroup, out bool) string {
	var b strings.Builder
	switch grp.Kind {
	case heap.Weak:
		b.WriteString("(weak) ")
	case heap.Shortcut:
		b.WriteString("(shortcut) ")
	}
	if grp.Edge != "" {
		b.WriteString(grp.Edge + " ")
	}
	if !out {
		b.WriteString("in ")
	}
	if len(grp.Objects) == 1 {
		b.WriteString(ObjectText(g, grp.Objects[0]))
	} else {
		b.WriteString(stepLabel(grp.Type, grp.Name))
	}
	if grp.Edges != len(grp.Objects) {
		fmt.Fprintf(&b, " (%s edges)", Count(grp.Edges))
	}
	switch {
	case grp.Cycle > 0 && grp.Cycle == len(grp.Objects):
		b.WriteString(" (cycle)")
	case grp.Cycle > 0:
		fmt.Fprintf(&b, " (%s on the way: a cycle)", Count(grp.Cycle))
	}
	return b.String()
}

// maxGroupIDs bounds the object ids a group lists in JSON; "objects"
// counts them all.
const maxGroupIDs = 1000

// neighborJSONT is a group of edges as JSON shows it.
type neighborJSONT struct {
	Edge     string          `json:"edge"`
	Kind     string          `json:"kind"`
	Type     string          `json:"type"`
	Name     string          `json:"name,omitempty"`
	Objects  int             `json:"objects"`
	Edges    int             `json:"edges"`
	Shallow  uint64          `json:"shallow_bytes"`
	Retained uint64          `json:"retained_bytes"`
	Distance int             `json:"distance"`
	Cycle    int             `json:"cycle,omitempty"`
	Text     string          `json:"text"`
	IDs      []string        `json:"ids"`
	Kids     []neighborJSONT `json:"groups,omitempty"`
	Hidden   int             `json:"hidden,omitempty"`
}

func neighborsJSON(t *analyze.DomTree, groups []analyze.NeighborGroup) []neighborJSONT {
	g := t.Graph()
	out := []neighborJSONT{}
	for _, grp := range groups {
		j := neighborJSONT{Edge: grp.Edge, Kind: grp.Kind.String(), Type: grp.Type, Name: grp.Name, Objects: len(grp.Objects),
			Edges: grp.Edges, Shallow: grp.Shallow, Retained: grp.Retained, Distance: grp.Distance, Cycle: grp.Cycle,
			Text: NeighborText(g, grp, false), Hidden: grp.Hidden}
		for _, x := range grp.Objects[:min(len(grp.Objects), maxGroupIDs)] {
			j.IDs = append(j.IDs, analyze.IDText(g, x))
		}
		if grp.Kids != nil {
			j.Kids = neighborsJSON(t, grp.Kids)
		}
		out = append(out, j)
	}
	return out
}
