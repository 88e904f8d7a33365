package report

import (
	"fmt"
	"io"

	"github.com/heapscope/heapscope/analyze"
)

// Retained renders the retained set of the objects picked selects: set
// counts its objects and their bytes, rows (the first of total) break it
// down by type.
func Retained(w io.Writer, f Format, src Source, picked, set Selection, rows []analyze.TypeSummary, total int) error {
	if f == JSON {
		type count struct {
			Objects int    `json:"objects"`
			Bytes   uint64 `json:"bytes"`
		}
		return WriteJSON(w, struct {
			Snapshot  Source                `json:"snapshot"`
			Selector  string                `json:"selector"`
			Selected  count                 `json:"selected"`
			Retained  count                 `json:"retained"`
			Types     int                   `json:"types"`
			Truncated bool                  `json:"truncated"`
			Rows      []analyze.TypeSummary `json:"rows"`
		}{src, picked.Selector, count{picked.Objects, picked.Bytes}, count{set.Objects, set.Bytes}, total, len(rows) < total, nonNil(rows)})
	}
	if err := header(w, f, src); err != nil {
		return err
	}
	line := fmt.Sprintf("%s selects %s (%s); their retained set, what would be freed if all of them went: %s, %s",
		picked.Selector, plural(picked.Objects, "object"), Bytes(picked.Bytes), plural(set.Objects, "object"), Bytes(set.Bytes))
	if f == Markdown {
		line = mdLine(line) + "\n"
	}
	if _, err := fmt.Fprintln(w, line); err != nil {
		return err
	}
	t := Table{Columns: []Column{{"count", true}, {"bytes", true}, {"type", false}}}
	for _, r := range rows {
		t.Add(Count(r.Count), Bytes(r.Bytes), r.Type)
	}
	if err := t.Write(w, f); err != nil {
		return err
	}
	return more(w, f, len(rows), total, "types")
}
