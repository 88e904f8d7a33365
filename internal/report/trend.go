package report

import (
	"fmt"
	"io"
	"strings"

	"github.com/heapscope/heapscope/analyze"
)

// Trend renders per-type growth over a series of snapshots.
func Trend(w io.Writer, f Format, srcs []Source, rows []analyze.TypeTrend, total int) error {
	if f == JSON {
		return WriteJSON(w, struct {
			Snapshots []Source            `json:"snapshots"`
			Types     int                 `json:"types"`
			Rows      []analyze.TypeTrend `json:"rows"`
		}{srcs, total, nonNil(rows)})
	}
	if err := header(w, f, srcs...); err != nil {
		return err
	}
	if len(rows) == 0 {
		_, err := fmt.Fprintln(w, "no type changed")
		return err
	}
	t := Table{Columns: []Column{{"growth", false}, {"per snapshot", true}, {"bytes per snapshot", true}, {"counts", false}, {"type", false}}}
	for _, r := range rows {
		counts := make([]string, len(r.Counts))
		for i, c := range r.Counts {
			counts[i] = Count(int(c))
		}
		t.Add(string(r.Growth), fmt.Sprintf("%+.1f", r.PerSnapshot), SignedBytes(int64(r.BytesPerSnapshot)),
			strings.Join(counts, " → "), r.Type)
	}
	if err := t.Write(w, f); err != nil {
		return err
	}
	return more(w, f, len(rows), total, "types")
}
