// Package report renders analysis results as aligned text, JSON,
// Markdown or, for some, a self-contained HTML page. Renderers only format: every number they print was computed by
// package analyze; they sort nothing and drop nothing.
package report

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Format is an output format.
type Format int

const (
	Text Format = iota
	JSON
	Markdown
)

// ParseFormat parses a --format value: text, json, markdown (md), html
// (see [HTML]), dot (see [DOT]) or pprof (see [Pprof]).
func ParseFormat(s string) (Format, error) {
	switch s {
	case "", "text":
		return Text, nil
	case "json":
		return JSON, nil
	case "markdown", "md":
		return Markdown, nil
	case "html":
		return HTML, nil
	case "dot":
		return DOT, nil
	case "pprof":
		return Pprof, nil
	}
	return Text, fmt.Errorf("unknown format %q (want text, json, markdown, html, dot or pprof)", s)
}

// Column is one column of a [Table].
type Column struct {
	Name  string
	Right bool // right-align (numbers)
}

// Table is a titled grid of cells that renders as aligned text or as a
// Markdown table.
type Table struct {
	Columns []Column
	Rows    [][]string
	// paths holds, for rows added by AddPath, the steps of the path in
	// the last column, to elide it when the row is too wide.
	paths map[int][]string
}

// Add appends a row.
func (t *Table) Add(cells ...string) { t.Rows = append(t.Rows, cells) }

// AddPath appends a row whose last cell is a path, given as its steps.
func (t *Table) AddPath(steps []string, cells ...string) {
	if t.paths == nil {
		t.paths = map[int][]string{}
	}
	t.paths[len(t.Rows)] = steps
	t.Add(append(cells, strings.Join(steps, pathSep))...)
}

// Write renders the table as aligned text (columns separated by two
// spaces) or as Markdown. In text, the paths of rows added by AddPath
// are elided to fit the width w was given by [WithWidth].
func (t *Table) Write(w io.Writer, f Format) error {
	if f == Markdown {
		return t.markdown(w)
	}
	if lw := widthOf(w); lw > 0 && len(t.paths) > 0 {
		t.fitPaths(lw)
	}
	width := make([]int, len(t.Columns))
	for i, c := range t.Columns {
		width[i] = utf8.RuneCountInString(c.Name)
	}
	for _, r := range t.Rows {
		for i, c := range r {
			if n := utf8.RuneCountInString(c); i < len(width) && n > width[i] {
				width[i] = n
			}
		}
	}
	var out strings.Builder
	line := func(cells []string) {
		var b strings.Builder
		defer func() { out.WriteString(strings.TrimRight(b.String(), " ") + "\n") }()
		for i, c := range cells {
			if i >= len(width) {
				break
			}
			pad := strings.Repeat(" ", width[i]-utf8.RuneCountInString(c))
			last := i == len(cells)-1
			if t.Columns[i].Right {
				b.WriteString(pad + c)
			} else if last {
				b.WriteString(c)
			} else {
				b.WriteString(c + pad)
			}
			if !last {
				b.WriteString("  ")
			}
		}
	}
	names := make([]string, len(t.Columns))
	for i, c := range t.Columns {
		names[i] = c.Name
	}
	line(names)
	for _, r := range t.Rows {
		line(r)
	}
	_, err := io.WriteString(w, out.String())
	return err
}

// fitPaths elides the path cells so that rows fit lineWidth columns: the
// path column gets what the other columns leave, and at least
// minPathWidth.
func (t *Table) fitPaths(lineWidth int) {
	last := len(t.Columns) - 1
	prefix := 0 // the width of the columns before the path
	for i := 0; i < last; i++ {
		w := textWidth(t.Columns[i].Name)
		for _, r := range t.Rows {
			if i < len(r) {
				w = max(w, textWidth(r[i]))
			}
		}
		prefix += w + 2
	}
	var rows []int
	var paths [][]string
	for i := range t.Rows {
		if p, ok := t.paths[i]; ok && len(t.Rows[i]) == last+1 {
			rows = append(rows, i)
			paths = append(paths, p)
		}
	}
	for k, line := range elide(paths, max(minPathWidth, lineWidth-prefix)) {
		t.Rows[rows[k]][last] = line
	}
}

func (t *Table) markdown(w io.Writer) error {
	var b strings.Builder
	b.WriteString("|")
	for _, c := range t.Columns {
		b.WriteString(" " + mdEscape(c.Name) + " |")
	}
	b.WriteString("\n|")
	for _, c := range t.Columns {
		if c.Right {
			b.WriteString(" ---: |")
		} else {
			b.WriteString(" --- |")
		}
	}
	b.WriteByte('\n')
	for _, r := range t.Rows {
		b.WriteString("|")
		for _, c := range r {
			b.WriteString(" " + mdEscape(c) + " |")
		}
		b.WriteByte('\n')
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// Bytes formats a byte count for people: "512 B", "4.0 KiB", "1.2 GiB".
func Bytes(n uint64) string {
	const unit = 1024
	if n < unit {
		return strconv.FormatUint(n, 10) + " B"
	}
	v, suffix := float64(n), []string{"KiB", "MiB", "GiB", "TiB", "PiB"}
	i := -1
	for v >= unit && i < len(suffix)-1 {
		v /= unit
		i++
	}
	return strconv.FormatFloat(v, 'f', 1, 64) + " " + suffix[i]
}

// SignedBytes formats a byte change with its sign: "+4.0 KiB", "-512 B".
func SignedBytes(n int64) string {
	if n < 0 {
		return "-" + Bytes(uint64(-n))
	}
	return "+" + Bytes(uint64(n))
}

// Count formats an integer with thousands separators: "1,234,567".
func Count(n int) string {
	s := strconv.Itoa(n)
	if digits, neg := strings.CutPrefix(s, "-"); neg {
		return "-" + thousands(digits)
	}
	return thousands(s)
}

// thousands puts a comma between each group of three digits of a run of
// digits, from the right.
func thousands(digits string) string {
	var b strings.Builder
	for i, r := range digits {
		if i > 0 && (len(digits)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(r)
	}
	return b.String()
}

// SignedCount formats an integer change with its sign: "+12", "-3", "0".
func SignedCount(n int) string {
	if n > 0 {
		return "+" + Count(n)
	}
	return Count(n)
}

// SignedFloat formats a change per snapshot with its sign, one decimal
// and thousands separators: "+19,436.5", "-0.5", "+0.0".
func SignedFloat(v float64) string {
	s := strconv.FormatFloat(math.Abs(v), 'f', 1, 64)
	whole, frac, _ := strings.Cut(s, ".")
	sign := "+"
	if v < 0 && s != "0.0" {
		sign = "-"
	}
	return sign + thousands(whole) + "." + frac
}

// WriteJSON writes v as indented JSON and a newline.
func WriteJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}
