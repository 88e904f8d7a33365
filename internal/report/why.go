package report

import (
	"fmt"
	"io"

	"github.com/heapscope/heapscope/analyze"
	"github.com/heapscope/heapscope/heap"
)

// Why renders the retainer paths of the selected objects: merged groups
// (shown is a prefix of groups) with every independent holder of each
// (holders[i] is shown[i]'s, see [analyze.Holder]), how many objects
// were selected, and how many no path reaches.
func Why(w io.Writer, f Format, src Source, g *heap.Graph, selector string, selected int, groups, shown []analyze.PathGroup, holders [][]analyze.Holder, unreached int) error {
	if f == DOT {
		return WhyDot(w, g, selector, selected, shown)
	}
	if f == JSON {
		type groupJSON struct {
			Count     int          `json:"count"`
			Retained  uint64       `json:"retained_bytes"`
			Path      string       `json:"path"`
			Sample    pathJSON     `json:"sample_path"`
			Allocated *allocJSON   `json:"allocated,omitempty"`
			HeldBy    string       `json:"held_by"`
			Holders   []holderJSON `json:"holders"`
		}
		out := []groupJSON{}
		for i, grp := range shown {
			out = append(out, groupJSON{grp.Count, grp.Retained, SignatureText(grp), pathToJSON(g, grp.Sample), allocToJSON(grp.Alloc),
				HeldByText(holders[i], "path"), holdersJSON(g, holders[i], "path")})
		}
		return WriteJSON(w, struct {
			Snapshot  Source      `json:"snapshot"`
			Selector  string      `json:"selector"`
			Selected  int         `json:"selected"`
			Unreached int         `json:"unreached"`
			Groups    int         `json:"groups"`
			Truncated bool        `json:"truncated"`
			Rows      []groupJSON `json:"rows"`
		}{src, selector, selected, unreached, len(groups), len(shown) < len(groups), out})
	}
	if err := header(w, f, src); err != nil {
		return err
	}
	line := fmt.Sprintf("%s selects %s held by %s", selector, plural(selected, "object"), plural(len(groups), "path"))
	if unreached > 0 {
		line += fmt.Sprintf("; %s reached by no path", Count(unreached))
	}
	if f == Markdown {
		line = mdLine(line) + "\n"
	}
	fmt.Fprintln(w, line)
	if f == Markdown {
		t := Table{Columns: []Column{{"count", true}, {"retained", true}, {"held by", false}, {"e.g.", false}}}
		if g.HasSites() {
			t.Columns = append(t.Columns, Column{"allocated at", false})
		}
		for i, grp := range shown {
			held := SignatureText(grp)
			if len(holders[i]) > 1 {
				held += "; " + HeldByText(holders[i], "path")
			}
			row := []string{Count(grp.Count), Bytes(grp.Retained), held, PathText(grp.Sample)}
			if g.HasSites() {
				row = append(row, SitesLine(grp.Alloc))
			}
			t.Add(row...)
		}
		if err := t.Write(w, f); err != nil {
			return err
		}
		return more(w, f, len(shown), len(groups), "paths")
	}
	for i, grp := range shown {
		fmt.Fprintf(w, "\n#%d  %s, retained %s\n", i+1, plural(grp.Count, "object"), Bytes(grp.Retained))
		if grp.Count == 1 {
			io.WriteString(w, wrapSteps("    held by  ", pathSteps(grp.Sample), widthOf(w)))
		} else {
			io.WriteString(w, wrapSteps("    held by  ", signatureSteps(grp), widthOf(w)))
			io.WriteString(w, wrapSteps("    e.g.     ", pathSteps(grp.Sample), widthOf(w)))
		}
		if len(holders[i]) > 1 {
			writeHolders(w, holders[i], "path", widthOf(w))
		}
		if err := writeSites(w, grp.Alloc, "    ", "allocated at"); err != nil {
			return err
		}
	}
	return more(w, f, len(shown), len(groups), "paths")
}
