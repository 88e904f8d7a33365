package report

import (
	"bytes"
	"cmp"
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/heapscope/heapscope/analyze"
)

// FleetSource is what a report over many processes read: a set of
// snapshots (see package internal/fleet).
type FleetSource struct {
	Dirs []string `json:"dirs"`
	// Noun is what the processes are: rank, worker or process.
	Noun      string   `json:"noun"`
	Processes []string `json:"processes"` // those the report covers
	Times     []string `json:"times"`     // the time points, oldest first
	Runtime   string   `json:"runtime"`
	// Left lists the processes left out, each with why.
	Left []LeftOut `json:"left_out,omitempty"`
}

// LeftOut is a process a report over many processes leaves out.
type LeftOut struct {
	Process string `json:"process"`
	Why     string `json:"why"`
}

// ProcessReport is one process's own report, rendered, for the detail
// after a report over many processes.
type ProcessReport struct {
	Process string
	Output  []byte // in the report's format; JSON is one value
}

// FleetSection is one table of a report over many processes.
type FleetSection struct {
	Title string // "Types"
	Key   string // what a row's key is: "type", "held by"
	// Change names what a row's Count and Bytes are, per process:
	// "growth", "change".
	Change string
	// CountOnly: the rows' changes are in objects (or entries) only.
	CountOnly bool
	// Held: the rows' Count and Bytes are what each process holds (a
	// leak finding's objects and retained bytes), not changes: they are
	// written without a sign, as bytes of so many objects.
	Held bool
	// ClassTitle heads the rows' classes; "" is "class".
	ClassTitle string
	Rows       []analyze.FleetRow
	Total      int    // rows before a --top cut
	None       string // what to say when there are no rows
}

// Fleet renders a report over many processes: for each section, each
// row's class, on which processes, and its change on each of them (the
// median, and the range when they differ); then, when detail holds any,
// each process's own report.
func Fleet(w io.Writer, f Format, src FleetSource, sections []FleetSection, detail []ProcessReport) error {
	if f == JSON {
		return fleetJSON(w, src, sections, detail)
	}
	if err := fleetHeader(w, f, src); err != nil {
		return err
	}
	for _, s := range sections {
		section(w, f, s.Title)
		if len(s.Rows) == 0 {
			if _, err := fmt.Fprintln(w, s.None); err != nil {
				return err
			}
			continue
		}
		class := cmp.Or(s.ClassTitle, "class")
		t := Table{Columns: []Column{{class, false}, {"on", false}, {s.Change + " each (median)", true}, {"range", false}, {"elsewhere", false}, {s.Key, false}}}
		for _, r := range s.Rows {
			change, span := changeText(r.Bytes.Median, r.Count.Median), rangeText(r.Bytes, SignedBytes)
			switch {
			case s.CountOnly:
				change, span = SignedCount(int(r.Count.Median)), rangeText(r.Count, func(n int64) string { return SignedCount(int(n)) })
			case s.Held:
				change = fmt.Sprintf("%s (%s)", Bytes(uint64(max(r.Bytes.Median, 0))), counted(int(r.Count.Median), "object"))
				span = rangeText(r.Bytes, func(n int64) string { return Bytes(uint64(max(n, 0))) })
			}
			t.Add(r.Class, onText(src, r.On), change, span, othersText(r.Others), r.Key)
		}
		if err := t.Write(w, f); err != nil {
			return err
		}
		if err := more(w, f, len(s.Rows), s.Total, "rows"); err != nil {
			return err
		}
	}
	for _, d := range detail {
		title := fmt.Sprintf("== %s ==", d.Process)
		if f == Markdown {
			title = "## " + mdLine(d.Process)
		}
		if _, err := fmt.Fprintf(w, "\n%s\n\n", title); err != nil {
			return err
		}
		if _, err := w.Write(d.Output); err != nil {
			return err
		}
	}
	return nil
}

// fleetHeader says what was read: "4 ranks (rank-0 … rank-3) at 3
// times (0001, 0002, 0003) in snaps, python", and what was left out.
func fleetHeader(w io.Writer, f Format, src FleetSource) error {
	procs := src.Processes
	names := strings.Join(procs, ", ")
	if len(procs) > 4 {
		names = procs[0] + " … " + procs[len(procs)-1]
	}
	line := fmt.Sprintf("%d %s (%s) at %s (%s) in %s, %s", len(procs), nounFor(src.Noun, len(procs)), names,
		plural(len(src.Times), "time"), strings.Join(src.Times, ", "), strings.Join(src.Dirs, " "), src.Runtime)
	lines := []string{line}
	for _, l := range src.Left {
		lines = append(lines, fmt.Sprintf("left out: %s: %s", l.Process, l.Why))
	}
	return headerLines(w, f, lines)
}

// nounFor is noun in the plural when n is not 1 ("process": processes).
func nounFor(noun string, n int) string {
	switch {
	case n == 1:
		return noun
	case strings.HasSuffix(noun, "s"):
		return noun + "es"
	}
	return noun + "s"
}

// onText says on which processes: "all 4 ranks", "only rank-3",
// "rank-1, rank-3 (2 of 4)", "5 of 6 ranks (not rank-2)", "12 of 64
// ranks".
func onText(src FleetSource, on []int) string {
	n := len(src.Processes)
	switch {
	case len(on) == n && n > 1:
		return fmt.Sprintf("all %d %s", n, nounFor(src.Noun, n))
	case len(on) == 1:
		return "only " + src.Processes[on[0]]
	case len(on) <= 3:
		names := make([]string, len(on))
		for i, p := range on {
			names[i] = src.Processes[p]
		}
		return fmt.Sprintf("%s (%d of %d)", strings.Join(names, ", "), len(on), n)
	case n-len(on) <= 2:
		var not []string
		k := 0
		for p := range n {
			if k < len(on) && on[k] == p {
				k++
				continue
			}
			not = append(not, src.Processes[p])
		}
		return fmt.Sprintf("%d of %d %s (not %s)", len(on), n, nounFor(src.Noun, n), strings.Join(not, ", "))
	}
	return fmt.Sprintf("%d of %d %s", len(on), n, nounFor(src.Noun, n))
}

// changeText is a change in bytes with the change in objects: "+40.0
// MiB (+10,000)".
func changeText(b, n int64) string {
	return fmt.Sprintf("%s (%s)", SignedBytes(b), SignedCount(int(n)))
}

// rangeText is the smallest and largest change, when they differ.
func rangeText(s analyze.Spread, text func(int64) string) string {
	if s.Min == s.Max {
		return ""
	}
	return text(s.Min) + " … " + text(s.Max)
}

// othersText says what the other processes called it: "warm-up on 2".
func othersText(cs []analyze.ClassCount) string {
	s := make([]string, len(cs))
	for i, c := range cs {
		s[i] = fmt.Sprintf("%s on %d", c.Class, c.Processes)
	}
	return strings.Join(s, ", ")
}

func fleetJSON(w io.Writer, src FleetSource, sections []FleetSection, detail []ProcessReport) error {
	type rowJSON struct {
		Type string `json:"type,omitempty"` // the key of a section of types
		Path string `json:"path,omitempty"` // the key of a section of paths
		// Finding is the key of a section of leak findings: what the
		// finding mostly is, and where (see FindingKey).
		Finding string               `json:"finding,omitempty"`
		Class   string               `json:"class"`
		On      []string             `json:"on"`
		Count   analyze.Spread       `json:"count"`
		Bytes   analyze.Spread       `json:"bytes"`
		Others  []analyze.ClassCount `json:"others"`
	}
	type sectionJSON struct {
		Title     string    `json:"title"`
		Key       string    `json:"key"`
		Change    string    `json:"change"`
		Rows      []rowJSON `json:"rows"`
		Truncated bool      `json:"truncated"`
	}
	type detailJSON struct {
		Process string          `json:"process"`
		Report  json.RawMessage `json:"report"`
	}
	out := struct {
		Set       FleetSource   `json:"set"`
		Sections  []sectionJSON `json:"sections"`
		Processes []detailJSON  `json:"per_process,omitempty"`
	}{Set: src, Sections: []sectionJSON{}}
	for _, s := range sections {
		sj := sectionJSON{Title: s.Title, Key: s.Key, Change: s.Change, Rows: []rowJSON{}, Truncated: len(s.Rows) < s.Total}
		for _, r := range s.Rows {
			on := make([]string, len(r.On))
			for i, p := range r.On {
				on[i] = src.Processes[p]
			}
			rj := rowJSON{Class: r.Class, On: on, Count: r.Count, Bytes: r.Bytes, Others: nonNil(r.Others)}
			switch s.Key {
			case "type":
				rj.Type = r.Key
			case "finding":
				rj.Finding = r.Key
			default:
				rj.Path = r.Key
			}
			sj.Rows = append(sj.Rows, rj)
		}
		out.Sections = append(out.Sections, sj)
	}
	for _, d := range detail {
		out.Processes = append(out.Processes, detailJSON{d.Process, json.RawMessage(bytes.TrimSpace(d.Output))})
	}
	return WriteJSON(w, out)
}
