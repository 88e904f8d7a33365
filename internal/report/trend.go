package report

import (
	"fmt"
	"io"
	"strings"

	"github.com/heapscope/heapscope/analyze"
)

func series(xs []int64) string {
	s := make([]string, len(xs))
	for i, x := range xs {
		s[i] = Count(int(x))
	}
	return strings.Join(s, " → ")
}

func bytesSeries(xs []uint64) string {
	s := make([]string, len(xs))
	for i, x := range xs {
		s[i] = Bytes(x)
	}
	return strings.Join(s, " → ")
}

// growthText is a type's growth class with the series it describes: the
// counts, or the bytes (then marked so).
func growthText(r analyze.TypeTrend) (label, values string) {
	if r.By == analyze.ByBytes {
		return string(r.Growth) + " (bytes)", bytesSeries(r.Bytes)
	}
	return string(r.Growth), series(r.Counts)
}

// Trend renders growth over a series of snapshots: per type, per path for
// the types that grew steadily, and unbounded collections. types is a
// prefix of rep.Types (--top).
func Trend(w io.Writer, f Format, srcs []Source, rep analyze.TrendReport, types []analyze.TypeTrend) error {
	if f == HTML {
		return htmlReport(w, "trend", srcs, func(w io.Writer) error { return Trend(w, JSON, srcs, rep, types) })
	}
	if f == JSON {
		type pathJSON struct {
			analyze.PathTrend
			Path string `json:"path"`
		}
		type collJSON struct {
			analyze.CollectionTrend
			Path string `json:"path"`
		}
		paths := []pathJSON{}
		for _, p := range rep.Paths {
			paths = append(paths, pathJSON{p, SignatureText(p.Group)})
		}
		colls := []collJSON{}
		for _, c := range rep.Collections {
			colls = append(colls, collJSON{c, PathText(c.Path)})
		}
		return WriteJSON(w, struct {
			Snapshots   []Source             `json:"snapshots"`
			Identity    analyze.IdentityMode `json:"identity"`
			Types       int                  `json:"types"`
			Truncated   bool                 `json:"truncated"`
			Rows        []analyze.TypeTrend  `json:"rows"`
			Paths       []pathJSON           `json:"paths"`
			Collections []collJSON           `json:"unbounded_collections"`
		}{srcs, rep.Mode, len(rep.Types), len(types) < len(rep.Types), nonNil(types), paths, colls})
	}
	if err := header(w, f, srcs...); err != nil {
		return err
	}
	if len(srcs) == 2 {
		// One interval: whatever grew grew in every interval.
		fmt.Fprintln(w, "two snapshots are one interval: whatever grew in it is \"steady\", a cache that filled once as much as a leak; a third snapshot tells them apart")
	}
	section(w, f, "Types")
	if len(types) == 0 {
		fmt.Fprintln(w, "no type changed")
	} else {
		t := Table{Columns: []Column{{"growth", false}, {"per snapshot", true}, {"bytes per snapshot", true}, {"counts (or bytes)", false}, {"type", false}}}
		for _, r := range types {
			label, values := growthText(r)
			t.Add(label, SignedFloat(r.PerSnapshot), SignedBytes(int64(r.BytesPerSnapshot)), values, r.Type)
		}
		if err := t.Write(w, f); err != nil {
			return err
		}
		if err := more(w, f, len(types), len(rep.Types), "types"); err != nil {
			return err
		}
	}
	section(w, f, "Paths that grew in every snapshot")
	if len(rep.Paths) == 0 {
		fmt.Fprintln(w, "none")
	} else {
		t := Table{Columns: []Column{{"per snapshot", true}, {"counts", false}, {"type", false}, {"held by", false}}}
		for _, p := range rep.Paths {
			t.AddPath(signatureSteps(p.Group), SignedFloat(p.PerSnapshot), series(p.Counts), p.Type)
		}
		if err := t.Write(w, f); err != nil {
			return err
		}
	}
	section(w, f, "Collections that grew in every snapshot")
	if len(rep.Collections) == 0 {
		_, err := fmt.Fprintln(w, "none")
		return err
	}
	t := Table{Columns: []Column{{"entries per snapshot", true}, {"entries", false}, {"retained", true}, {"type", false}, {"path", false}}}
	for _, c := range rep.Collections {
		t.AddPath(pathSteps(c.Path), SignedFloat(c.PerSnapshot), series(c.Entries), Bytes(c.Retained), c.Type)
	}
	return t.Write(w, f)
}
