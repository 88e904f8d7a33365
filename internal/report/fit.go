package report

import (
	"io"
	"slices"
	"strings"
	"unicode/utf8"
)

// Text reports fit a line width: retainer paths, which run to hundreds of
// columns, are elided in the middle in tables (the root and the end, which
// names what is held, stay) and wrapped at steps elsewhere. JSON and
// Markdown are never cut.

// widthWriter is a writer with a line width for text reports.
type widthWriter struct {
	io.Writer
	width int
}

// WithWidth returns w with a line width for text reports: they fit their
// lines to width columns. width 0 sets no limit.
func WithWidth(w io.Writer, width int) io.Writer {
	return &widthWriter{w, width}
}

// widthOf returns the line width w was given by [WithWidth], or 0.
func widthOf(w io.Writer) int {
	if ww, ok := w.(*widthWriter); ok {
		return ww.width
	}
	return 0
}

// ellipsis stands for the steps an elided path leaves out.
const ellipsis = "…"

// minPathWidth is the least room a path gets, however narrow the line:
// below that, too little of it would show to be of use.
const minPathWidth = 40

func textWidth(s string) int { return utf8.RuneCountInString(s) }

// stepsWidth is the width of steps joined by pathSep.
func stepsWidth(steps []string) int {
	n := len(pathSep) * max(0, len(steps)-1)
	for _, s := range steps {
		n += textWidth(s)
	}
	return n
}

// keepSteps returns steps with those whose indices are not in keep
// replaced by one ellipsis per run.
func keepSteps(steps []string, keep []bool) []string {
	var out []string
	for i, s := range steps {
		switch {
		case keep[i]:
			out = append(out, s)
		case i == 0 || keep[i-1]:
			out = append(out, ellipsis)
		}
	}
	return out
}

// elide shortens paths that are wider than width: each keeps its root
// and as many of its last steps as fit, an ellipsis standing for the
// steps in between; a path never loses its root, its last step, or part
// of a step, so an elided path may still be wider than width. Paths that
// differ keep the steps where they part, so that no two print the same
// (failing that, they are shown whole). It returns one line per path.
func elide(paths [][]string, width int) []string {
	must := make([][]bool, len(paths)) // steps a path keeps whatever its width
	for i, p := range paths {
		must[i] = make([]bool, len(p))
		must[i][0], must[i][len(p)-1] = true, true
		if width <= 0 || stepsWidth(p) <= width {
			for j := range p {
				must[i][j] = true
			}
		}
	}
	var out []string
	for round := 0; ; round++ {
		out = make([]string, len(paths))
		for i, p := range paths {
			out[i] = strings.Join(keepSteps(p, fill(p, must[i], width)), pathSep)
		}
		if round == 3 {
			return out
		}
		same := map[string][]int{}
		for i, line := range out {
			same[line] = append(same[line], i)
		}
		clash := false
		for _, group := range same {
			for a, i := range group {
				for _, j := range group[a+1:] {
					if !slices.Equal(paths[i], paths[j]) {
						clash = true
						unclash(paths, must, i, j, round == 2)
					}
				}
			}
		}
		if !clash {
			return out
		}
	}
}

// fill returns which steps of p to show: those in must, and then, from
// the end, as many more as fit width.
func fill(p []string, must []bool, width int) []bool {
	keep := slices.Clone(must)
	for j := len(p) - 2; j > 0; j-- {
		if keep[j] {
			continue
		}
		keep[j] = true
		if stepsWidth(keepSteps(p, keep)) > width {
			keep[j] = false
			break
		}
	}
	return keep
}

// unclash makes paths i and j, which differ but print the same, keep the
// first step where they part, or with whole all their steps.
func unclash(paths [][]string, must [][]bool, i, j int, whole bool) {
	d := 0
	for d < len(paths[i]) && d < len(paths[j]) && paths[i][d] == paths[j][d] {
		d++
	}
	for _, x := range []int{i, j} {
		switch {
		case whole:
			for k := range must[x] {
				must[x][k] = true
			}
		case d < len(must[x]):
			must[x][d] = true
		default:
			must[x][len(must[x])-1] = true
		}
	}
}

// wrapSteps writes a path after prefix, on as many lines as it takes to
// fit width: lines break before a "->", and the lines after the first
// are indented as far as prefix is wide. width 0 sets no limit.
func wrapSteps(prefix string, steps []string, width int) string {
	var b strings.Builder
	indent := strings.Repeat(" ", textWidth(prefix))
	b.WriteString(prefix)
	col := textWidth(prefix)
	for i, s := range steps {
		piece := s
		if i > 0 {
			piece = pathSep + s
			if width > 0 && col+textWidth(piece) > width && col > len(indent) {
				b.WriteString("\n" + indent)
				col = len(indent)
				piece = strings.TrimPrefix(pathSep, " ") + s
			}
		}
		b.WriteString(piece)
		col += textWidth(piece)
	}
	b.WriteByte('\n')
	return b.String()
}
