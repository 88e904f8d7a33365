package report

import (
	"fmt"
	"io"
	"strings"

	"github.com/heapscope/heapscope/analyze"
)

// Tree renders a dominator-tree view as an indented outline.
func Tree(w io.Writer, f Format, src Source, t *analyze.DomTree, lines []analyze.TreeLine) error {
	g := t.Graph()
	if f == JSON {
		type lineJSON struct {
			Depth int    `json:"depth"`
			Edge  string `json:"edge,omitempty"`
			objectJSON
			Hidden      int    `json:"hidden_children,omitempty"`
			HiddenBytes uint64 `json:"hidden_bytes,omitempty"`
		}
		out := []lineJSON{}
		cut := false
		for _, l := range lines {
			cut = cut || l.Hidden > 0
			j := lineJSON{Depth: l.Depth, Edge: l.Edge, Hidden: l.Hidden, HiddenBytes: l.HiddenBytes}
			if l.Object == analyze.SuperRoot {
				j.objectJSON = objectJSON{Type: "(all roots)", Retained: t.Retained(analyze.SuperRoot)}
			} else {
				j.objectJSON = objToJSON(t, l.Object)
			}
			out = append(out, j)
		}
		return WriteJSON(w, struct {
			Snapshot  Source     `json:"snapshot"`
			Truncated bool       `json:"truncated"` // some line has hidden children
			Lines     []lineJSON `json:"lines"`
		}{src, cut, out})
	}
	if err := header(w, f, src); err != nil {
		return err
	}
	var out strings.Builder
	for _, l := range lines {
		out.WriteString(strings.Repeat("  ", l.Depth))
		fmt.Fprintf(&out, "%s  ", Bytes(t.Retained(l.Object)))
		if l.Edge != "" {
			out.WriteString(l.Edge + " ")
		}
		out.WriteString(ObjectText(g, l.Object))
		if l.Hidden > 0 {
			fmt.Fprintf(&out, "  (+%s more below, %s)", Count(l.Hidden), Bytes(l.HiddenBytes))
		}
		out.WriteByte('\n')
	}
	text := out.String()
	if f == Markdown {
		fence := mdFence(text)
		text = fence + "\n" + text + fence + "\n"
	}
	_, err := io.WriteString(w, text)
	return err
}
