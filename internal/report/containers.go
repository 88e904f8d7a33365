package report

import (
	"fmt"
	"io"
	"math"
	"strconv"

	"github.com/heapscope/heapscope/analyze"
)

// ContainerRow is a container with its path, as the command found it.
type ContainerRow struct {
	analyze.Container
	Path analyze.Path
}

// Containers renders the containers that hold the most: rows are the
// first of total.
func Containers(w io.Writer, f Format, src Source, t *analyze.DomTree, rows []ContainerRow, total int) error {
	g := t.Graph()
	if f == JSON {
		type rowJSON struct {
			objectJSON
			Entries  int     `json:"entries"`
			Capacity int     `json:"capacity,omitempty"`
			Fill     float64 `json:"fill,omitempty"`
			Path     string  `json:"path"`
		}
		out := []rowJSON{}
		for _, r := range rows {
			out = append(out, rowJSON{objToJSON(t, r.Object), r.Entries, r.Capacity, math.Round(r.Fill()*1000) / 1000, PathText(r.Path)})
		}
		return WriteJSON(w, struct {
			Snapshot   Source    `json:"snapshot"`
			Containers int       `json:"containers"`
			Truncated  bool      `json:"truncated"`
			Rows       []rowJSON `json:"rows"`
		}{src, total, len(rows) < total, out})
	}
	if err := header(w, f, src); err != nil {
		return err
	}
	// Capacity and fill, for runtimes whose containers have tables and
	// arrays of a known length (Java).
	slots := false
	for _, r := range rows {
		slots = slots || r.Capacity > 0
	}
	tb := Table{Columns: []Column{{"retained", true}, {"entries", true}, {"container", false}, {"held by", false}}}
	if slots {
		tb.Columns = []Column{{"retained", true}, {"entries", true}, {"capacity", true}, {"fill", true}, {"container", false}, {"held by", false}}
	}
	for _, r := range rows {
		if !slots {
			tb.AddPath(pathSteps(r.Path), Bytes(r.Retained), Count(r.Entries), ObjectText(g, r.Object))
			continue
		}
		capacity, fill := "", ""
		if r.Capacity > 0 {
			capacity, fill = Count(r.Capacity), fmt.Sprintf("%.0f%%", 100*r.Fill())
		}
		tb.AddPath(pathSteps(r.Path), Bytes(r.Retained), Count(r.Entries), capacity, fill, ObjectText(g, r.Object))
	}
	if err := tb.Write(w, f); err != nil {
		return err
	}
	return more(w, f, len(rows), total, "containers")
}

func heldText(d analyze.DupGroup) string {
	if d.HeldBy.Type == "" {
		return ""
	}
	s := stepLabel(d.HeldBy.Type, d.HeldBy.Name)
	if d.HeldBy.Edge != "" {
		s += " " + d.HeldBy.Edge
	}
	return s
}

// quoteIf quotes a value as Go does (newlines, tabs and control
// characters escaped, so that a row stays one line), or gives "" for none.
func quoteIf(s string) string {
	if s == "" {
		return ""
	}
	return strconv.Quote(s)
}
