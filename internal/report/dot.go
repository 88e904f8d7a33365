package report

import (
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/heapscope/heapscope/analyze"
	"github.com/heapscope/heapscope/heap"
)

// DOT is a graph in Graphviz's DOT language, for why, retainers and
// refs: a picture of a handful of objects and what holds them, as
// objgraph draws one (dot -Tsvg out.dot > out.svg).
const DOT Format = 102

// maxDotSteps bounds the steps of a path drawn: a longer path keeps its
// first and last maxDotSteps/2 steps around one node that counts the
// rest.
const maxDotSteps = 40

// dotWriter collects the nodes and edges of a DOT graph, each node
// once.
type dotWriter struct {
	b     strings.Builder
	nodes map[string]bool
	edges map[string]bool
}

func newDot(title string) *dotWriter {
	d := &dotWriter{nodes: map[string]bool{}, edges: map[string]bool{}}
	fmt.Fprintf(&d.b, "digraph heapscope {\n  label=%s;\n  labelloc=t;\n  rankdir=TB;\n", dotQuote(title))
	d.b.WriteString("  node [shape=box, style=\"rounded,filled\", fillcolor=\"#f2f2f2\", fontname=\"Helvetica\", fontsize=10];\n")
	d.b.WriteString("  edge [fontname=\"Helvetica\", fontsize=9];\n")
	return d
}

// node adds a node (once) with a label and extra attributes.
func (d *dotWriter) node(id, label, attrs string) {
	if d.nodes[id] {
		return
	}
	d.nodes[id] = true
	if attrs != "" {
		attrs = ", " + attrs
	}
	fmt.Fprintf(&d.b, "  %s [label=%s%s];\n", id, dotQuote(label), attrs)
}

// edge adds an edge (once) from one node to another with a label.
func (d *dotWriter) edge(from, to, label string, kind heap.EdgeKind) {
	key := from + "\x00" + to + "\x00" + label
	if d.edges[key] {
		return
	}
	d.edges[key] = true
	style := ""
	if kind == heap.Weak {
		style = ", style=dashed, color=\"#888888\""
	}
	fmt.Fprintf(&d.b, "  %s -> %s [label=%s%s];\n", from, to, dotQuote(label), style)
}

func (d *dotWriter) write(w io.Writer) error {
	d.b.WriteString("}\n")
	_, err := io.WriteString(w, d.b.String())
	return err
}

// dotQuote quotes s as a DOT string; "\n" in s stays a line break.
func dotQuote(s string) string {
	q := strconv.Quote(s)
	return strings.ReplaceAll(q, `\n`, `\n`)
}

// objNode names the node of an object.
func objNode(id heap.ObjectID) string { return "o" + strconv.FormatUint(uint64(id), 10) }

// WhyDot draws the sample paths of the merged groups shown (see [Why]):
// a node per object on them, each once, from the roots down, the edges
// named; each group's last object says how many objects its group has.
func WhyDot(w io.Writer, g *heap.Graph, selector string, selected int, shown []analyze.PathGroup) error {
	d := newDot(fmt.Sprintf("why %s: %s objects", selector, Count(selected)))
	roots := map[string]string{} // root text -> node
	for gi, grp := range shown {
		p := grp.Sample
		if len(p.Steps) == 0 {
			continue
		}
		rt := rootText(p.RootKind, p.RootName)
		root, ok := roots[rt]
		if !ok {
			root = "r" + strconv.Itoa(len(roots))
			roots[rt] = root
			d.node(root, rt, `shape=plaintext, style=""`)
		}
		steps, runs := foldRuns(p.Steps)
		prev := root
		for i, s := range steps {
			if len(steps) > maxDotSteps && i == maxDotSteps/2 {
				gap := fmt.Sprintf("gap%d", gi)
				skipped := 0
				for _, r := range runs[maxDotSteps/2 : len(steps)-maxDotSteps/2] {
					skipped += r
				}
				d.node(gap, fmt.Sprintf("… %s steps …", Count(skipped)), `shape=plaintext, style=""`)
				d.edge(prev, gap, "", heap.Strong)
				prev = gap
			}
			if len(steps) > maxDotSteps && i >= maxDotSteps/2 && i < len(steps)-maxDotSteps/2 {
				continue
			}
			id := objNode(s.Object)
			label := ObjectText(g, s.Object)
			if runs[i] > 1 {
				label += fmt.Sprintf("\n(%s steps)", Count(runs[i]))
			}
			attrs := ""
			if i == len(steps)-1 {
				attrs = `fillcolor="#f4cccc"`
				if grp.Count > 1 {
					label += fmt.Sprintf("\n1 of %s objects, %s retained", Count(grp.Count), Bytes(grp.Retained))
				}
			}
			d.node(id, label, attrs)
			edge := ""
			if i > 0 {
				edge = s.Edge
			}
			d.edge(prev, id, edge, s.Kind)
			prev = id
		}
	}
	return d.write(w)
}

// neighborsDot draws the groups of [Neighbors]: the selection at the
// bottom (retainers) or top (references), a node per group, an edge per
// group named by its edges.
func neighborsDot(w io.Writer, t *analyze.DomTree, selector string, objs []heap.ObjectID, tree analyze.NeighborTree, out bool) error {
	g := t.Graph()
	what := "retainers of"
	if out {
		what = "references of"
	}
	d := newDot(fmt.Sprintf("%s %s: %s objects", what, selector, Count(len(objs))))
	sel := "sel"
	if len(objs) == 1 {
		sel = objNode(objs[0])
		d.node(sel, ObjectText(g, objs[0]), `fillcolor="#f4cccc"`)
	} else {
		d.node(sel, fmt.Sprintf("%s\n%s objects", selector, Count(len(objs))), `fillcolor="#f4cccc"`)
	}
	n := 0
	var draw func(parent string, groups []analyze.NeighborGroup)
	draw = func(parent string, groups []analyze.NeighborGroup) {
		for _, grp := range groups {
			// One object is one node however many groups lead to it, so
			// that the picture is the graph; a group of several is a
			// node of its own.
			var id, label string
			if len(grp.Objects) == 1 {
				id, label = objNode(grp.Objects[0]), ObjectText(g, grp.Objects[0])
			} else {
				n++
				id, label = "g"+strconv.Itoa(n), fmt.Sprintf("%s × %s", stepLabel(grp.Type, grp.Name), Count(len(grp.Objects)))
			}
			label += "\nretained " + Bytes(grp.Retained)
			d.node(id, label, "")
			edge := grp.Edge
			if grp.Edges != len(grp.Objects) {
				edge += " ×" + Count(grp.Edges)
			}
			if out {
				d.edge(parent, id, edge, grp.Kind)
			} else {
				d.edge(id, parent, edge, grp.Kind)
			}
			draw(id, grp.Kids)
		}
	}
	draw(sel, tree.Groups)
	return d.write(w)
}
