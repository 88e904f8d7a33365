package report

import (
	"fmt"
	"io"
	"strings"

	"github.com/heapscope/heapscope/analyze"
)

// Source names a snapshot and what it holds, for report headers.
type Source struct {
	Path     string           `json:"path"`
	Overview analyze.Overview `json:"overview"`
}

// Header formats the one line that says what was read: "app.pysnap:
// python 3.11.7, 1,234 objects, 5,678 edges, 1.2 MiB, 0 warnings".
func Header(s Source) string {
	o := s.Overview
	rt := o.Runtime
	if o.Version != "" {
		rt += " " + o.Version
	}
	if o.Census {
		rt += " census"
	}
	for _, d := range o.Dumps {
		if d.Read {
			rt += fmt.Sprintf(", dump %d of %d", d.Number, len(o.Dumps))
		}
	}
	edges := "" // not read
	if o.Edges != nil {
		edges = Count(*o.Edges) + " edges, "
	}
	return fmt.Sprintf("%s: %s, %s objects, %s%s, %s",
		s.Path, rt, Count(o.Objects), edges, Bytes(o.Bytes), plural(o.Warnings, "warning"))
}

// header writes the header line as text, or as a Markdown paragraph.
func header(w io.Writer, f Format, sources ...Source) error {
	for _, s := range sources {
		line := Header(s)
		if f == Markdown {
			line = mdLine(line) + "\n"
		}
		if _, err := fmt.Fprintln(w, line); err != nil {
			return err
		}
	}
	return nil
}

// Summary renders per-type counts. rows may be a prefix of the full
// summary (--top); total is the number of rows before the cut. ret, when
// not nil, has each row's retained size, share and distance, by type
// name, for columns of their own.
func Summary(w io.Writer, f Format, src Source, rows []analyze.TypeSummary, total int, ret map[string]analyze.NameRetention) error {
	return SummaryOf(w, f, src, Selection{}, rows, total, ret)
}

// Selection is what a selector picked, for reports of the selected
// objects only.
type Selection struct {
	Selector string `json:"selector"`
	Objects  int    `json:"objects"`
	Bytes    uint64 `json:"shallow_bytes"`
}

// SummaryOf renders per-type counts of the objects sel picked (all
// objects when sel.Selector is ""), with ret as [Summary] takes it.
func SummaryOf(w io.Writer, f Format, src Source, sel Selection, rows []analyze.TypeSummary, total int, ret map[string]analyze.NameRetention) error {
	if f == JSON {
		var s *Selection
		if sel.Selector != "" {
			s = &sel
		}
		type rowJSON struct {
			analyze.TypeSummary
			Retained *uint64  `json:"retained_bytes,omitempty"`
			Share    *float64 `json:"share,omitempty"`
			Distance *int     `json:"distance,omitempty"`
		}
		out := []rowJSON{}
		for _, r := range rows {
			j := rowJSON{TypeSummary: r}
			if x, ok := ret[r.Type]; ok {
				j.Retained, j.Share, j.Distance = &x.Retained, &x.Share, &x.Distance
			}
			out = append(out, j)
		}
		return WriteJSON(w, struct {
			Snapshot  Source     `json:"snapshot"`
			Selected  *Selection `json:"selected,omitempty"`
			Types     int        `json:"types"`
			Truncated bool       `json:"truncated"`
			Rows      []rowJSON  `json:"rows"`
		}{src, s, total, len(rows) < total, out})
	}
	if err := header(w, f, src); err != nil {
		return err
	}
	if err := overviewLines(w, f, src.Overview); err != nil {
		return err
	}
	if sel.Selector != "" {
		line := fmt.Sprintf("%s selects %s, %s", sel.Selector, plural(sel.Objects, "object"), Bytes(sel.Bytes))
		if f == Markdown {
			line = mdLine(line) + "\n"
		}
		if _, err := fmt.Fprintln(w, line); err != nil {
			return err
		}
	}
	t := Table{Columns: []Column{{"count", true}, {"shallow bytes", true}, {"type", false}}}
	if ret != nil {
		t.Columns = []Column{{"count", true}, {"shallow bytes", true}, {"retained", true}, {"% heap", true}, {"distance", true}, {"type", false}}
	}
	for _, r := range rows {
		if ret == nil {
			t.Add(Count(r.Count), Bytes(r.Bytes), r.Type)
			continue
		}
		x, ok := ret[r.Type]
		if !ok {
			x.Distance = -1
		}
		dist := "-"
		if x.Distance >= 0 {
			dist = Count(x.Distance)
		}
		t.Add(Count(r.Count), Bytes(r.Bytes), Bytes(x.Retained), fmt.Sprintf("%.1f%%", 100*x.Share), dist, r.Type)
	}
	if err := t.Write(w, f); err != nil {
		return err
	}
	return more(w, f, len(rows), total, "types")
}

// overviewLines writes what the header line leaves out: the object
// layout a Java dump's sizes assume, and the heap dumps of a file that
// holds several.
func overviewLines(w io.Writer, f Format, o analyze.Overview) error {
	var lines []string
	if o.Layout != "" {
		lines = append(lines, "layout: "+o.Layout)
	}
	if len(o.RootKinds) > 0 {
		var kinds []string
		for _, k := range o.RootKinds {
			kinds = append(kinds, k.Kind+" "+Count(k.Objects))
		}
		lines = append(lines, fmt.Sprintf("roots: %s objects (%s)", Count(o.Roots), strings.Join(kinds, ", ")))
	}
	if len(o.Dumps) > 0 {
		last := o.Dumps[len(o.Dumps)-1]
		why := "--dump N"
		if last.Read {
			why = "the last, the latest state, unless --dump N"
		}
		lines = append(lines, fmt.Sprintf("the file holds %d heap dumps, each a snapshot of its own; read: %s", len(o.Dumps), why))
		for _, d := range o.Dumps {
			mark := " "
			if d.Read {
				mark = "*"
			}
			lines = append(lines, fmt.Sprintf("  %s dump %d: %s objects, %s", mark, d.Number, Count(d.Objects), d.Time.UTC().Format("2006-01-02 15:04:05.000 UTC")))
		}
	}
	return headerLines(w, f, lines)
}

// headerLines writes the lines of a report's header: as they are, or as
// Markdown paragraphs.
func headerLines(w io.Writer, f Format, lines []string) error {
	for _, line := range lines {
		if f == Markdown {
			line = mdLine(line) + "\n"
		}
		if _, err := fmt.Fprintln(w, line); err != nil {
			return err
		}
	}
	return nil
}

// more says how many rows a --top cut left out.
func more(w io.Writer, f Format, shown, total int, what string) error {
	if shown >= total {
		return nil
	}
	line := fmt.Sprintf("(%s more %s not shown)", Count(total-shown), what)
	if f == Markdown {
		line = "\n" + line
	}
	_, err := fmt.Fprintln(w, line)
	return err
}

func nonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}
