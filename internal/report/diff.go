package report

import (
	"fmt"
	"io"

	"github.com/heapscope/heapscope/analyze"
)

// Diff renders per-type changes between two snapshots.
func Diff(w io.Writer, f Format, before, after Source, rows []analyze.TypeDelta, total int) error {
	if f == JSON {
		return WriteJSON(w, struct {
			Before    Source              `json:"before"`
			After     Source              `json:"after"`
			Types     int                 `json:"types"`
			Truncated bool                `json:"truncated"`
			Rows      []analyze.TypeDelta `json:"rows"`
		}{before, after, total, len(rows) < total, nonNil(rows)})
	}
	if err := header(w, f, before, after); err != nil {
		return err
	}
	identity := len(rows) > 0 && rows[0].New >= 0
	cols := []Column{{"count Δ", true}, {"bytes Δ", true}, {"count", true}, {"bytes", true}}
	if identity {
		// DevTools' Comparison: what was allocated and what was freed.
		cols = append(cols, Column{"new", true}, Column{"deleted", true}, Column{"allocated", true}, Column{"freed", true})
	}
	cols = append(cols, Column{"type", false}, Column{"", false})
	t := Table{Columns: cols}
	for _, r := range rows {
		cells := []string{
			SignedCount(r.CountDelta), SignedBytes(r.BytesDelta),
			Count(r.CountBefore) + " → " + Count(r.CountAfter),
			Bytes(r.BytesBefore) + " → " + Bytes(r.BytesAfter),
		}
		if identity {
			cells = append(cells, Count(r.New), Count(r.Deleted), Bytes(uint64(max(r.NewBytes, 0))), Bytes(uint64(max(r.DeletedBytes, 0))))
		}
		t.Add(append(cells, DeltaLabel(r), r.Status)...)
	}
	if len(rows) == 0 {
		_, err := fmt.Fprintln(w, "no type changed")
		return err
	}
	if err := t.Write(w, f); err != nil {
		return err
	}
	return more(w, f, len(rows), total, "types")
}

// DeltaLabel names a diff row: its type, the family of classes it
// counts, or the pattern of the types it sums ("f_* (instances of 600
// classes)").
func DeltaLabel(r analyze.TypeDelta) string {
	if r.Types > 0 {
		return fmt.Sprintf("%s (instances of %s classes)", r.Type, Count(r.Types))
	}
	return TypeLabel(r.Type, r.Classes)
}

// TypeLabel names a row of objects of type typ; classes, when not "",
// names the family of classes (see [analyze.FoldName]) a row of class
// objects counts: "type (classes app.Model_*)".
func TypeLabel(typ, classes string) string {
	if classes == "" {
		return typ
	}
	return typ + " (classes " + classes + ")"
}
