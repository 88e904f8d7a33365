package report

import (
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/heapscope/heapscope/analyze"
)

// stackFrames is how many frames of an allocation stack text shows: the
// site and its nearest callers.
const stackFrames = 3

// FrameText names a frame as a stack trace does: "app.py:12" (Python's
// tracemalloc records no function), "handle (/srv/app.js:4:16)" (V8).
func FrameText(f analyze.Frame) string {
	loc := f.File
	if loc == "" {
		loc = "?"
	}
	if f.Line > 0 {
		loc += ":" + strconv.FormatUint(uint64(f.Line), 10)
		if f.Column > 0 {
			loc += ":" + strconv.FormatUint(uint64(f.Column), 10)
		}
	}
	if f.Function != "" {
		return f.Function + " (" + loc + ")"
	}
	return loc
}

// StackText writes the first max frames of a stack (all when max <= 0),
// innermost first, joined by " <- ": "app.py:12 <- app.py:40".
func StackText(stack []analyze.Frame, max int) string {
	if max > 0 && len(stack) > max {
		stack = stack[:max]
	}
	parts := make([]string, len(stack))
	for i, f := range stack {
		parts[i] = FrameText(f)
	}
	return strings.Join(parts, " <- ")
}

// SiteText writes a site's stack as text shows it: its first
// stackFrames frames, and when the frame of the program's own code
// that it is keyed by comes later, the innermost frame, then that one
// and its caller: "Basic.__new__ (basic.py:127) <- ... <- compute
// (app.py:9) <- main (app.py:20)".
func SiteText(s analyze.SiteStat) string {
	if s.Program < stackFrames {
		return StackText(s.Stack, stackFrames)
	}
	tail := s.Stack[s.Program:min(len(s.Stack), s.Program+2)]
	return FrameText(s.Stack[0]) + " <- ... <- " + StackText(tail, 0)
}

// objectsText is "1 object" or "12 objects".
func objectsText(n int) string {
	if n == 1 {
		return "1 object"
	}
	return Count(n) + " objects"
}

// SitesLine says on one line where most of a set was allocated: its
// heaviest site, "app.py:12 (40 objects, 3.1 KiB)", how many other
// sites there are, and how many objects have none recorded; "" when the
// snapshot records no sites.
func SitesLine(a *analyze.Allocations) string {
	if a == nil {
		return ""
	}
	var parts []string
	if len(a.Sites) > 0 {
		s := a.Sites[0]
		at := s.Stack[:1]
		if s.Program > 0 {
			at = s.Stack[s.Program : s.Program+1]
		}
		line := fmt.Sprintf("%s (%s, %s)", StackText(at, 1), objectsText(s.Count), Bytes(s.Bytes))
		if n := len(a.Sites) - 1; n > 0 {
			line += " and " + Count(n) + " more"
		}
		parts = append(parts, line)
	}
	if a.Unknown > 0 {
		parts = append(parts, fmt.Sprintf("%s not recorded", objectsText(a.Unknown)))
	}
	return strings.Join(parts, "; ")
}

// writeSites writes the sites of a, one per line under a label:
//
//	allocated at  app.py:12 <- app.py:40  (2 objects, 112 B)
//	              not recorded  (1 object, 50 B)
func writeSites(w io.Writer, a *analyze.Allocations, indent, label string) error {
	if a == nil {
		return nil
	}
	pad := indent + strings.Repeat(" ", len(label)+2)
	first := indent + label + "  "
	line := func(what string, n int, b uint64) error {
		_, err := fmt.Fprintf(w, "%s%s  (%s, %s)\n", first, what, objectsText(n), Bytes(b))
		first = pad
		return err
	}
	for _, s := range a.Sites {
		if err := line(SiteText(s), s.Count, s.Bytes); err != nil {
			return err
		}
	}
	if a.Unknown > 0 {
		return line("not recorded", a.Unknown, a.UnknownBytes)
	}
	return nil
}

// writePartSites writes where the parts of a finding were allocated,
// one line per site under a label, with what of each part was made
// there (parts that share a site share its line, in the parts' order):
//
//	allocated at  compute (app.py:9) <- main (app.py:20)  (20 app.Result, 5 app.Node; 1.4 KiB)
//	              not recorded  (20 dict, 2.2 KiB)
func writePartSites(w io.Writer, parts []analyze.LeakPart, indent, label string) error {
	type line struct {
		where string
		what  []string       // part labels, in order
		n     map[string]int // objects by part label
		bytes uint64
	}
	var lines []*line
	at := map[string]*line{}
	add := func(where string, n int, p analyze.LeakPart, b uint64) {
		l := at[where]
		if l == nil {
			l = &line{where: where, n: map[string]int{}}
			at[where] = l
			lines = append(lines, l)
		}
		what := PartLabel(p)
		if _, ok := l.n[what]; !ok {
			l.what = append(l.what, what)
		}
		l.n[what] += n
		l.bytes += b
	}
	for _, p := range parts {
		if a := p.Alloc; a != nil {
			for _, s := range a.Sites {
				add(SiteText(s), s.Count, p, s.Bytes)
			}
		}
	}
	for _, p := range parts {
		if a := p.Alloc; a != nil && a.Unknown > 0 {
			add("not recorded", a.Unknown, p, a.UnknownBytes)
		}
	}
	pad := indent + strings.Repeat(" ", len(label)+2)
	first := indent + label + "  "
	for _, l := range lines {
		what := make([]string, len(l.what))
		for i, x := range l.what {
			what[i] = Count(l.n[x]) + " " + x
		}
		sep := ", "
		if len(what) > 1 {
			sep = "; "
		}
		if _, err := fmt.Fprintf(w, "%s%s  (%s%s%s)\n", first, l.where, strings.Join(what, ", "), sep, Bytes(l.bytes)); err != nil {
			return err
		}
		first = pad
	}
	return nil
}

// siteJSON is an allocation site as JSON shows it.
type siteJSON struct {
	Count  int         `json:"count"`
	Bytes  uint64      `json:"bytes"`
	Frames []frameJSON `json:"frames"`
	// Program is the index in Frames of the innermost frame of the
	// program's own code, -1 when none (analyze.SiteStat).
	Program int `json:"program"`
}

type frameJSON struct {
	Function string `json:"function,omitempty"`
	File     string `json:"file"`
	Line     uint32 `json:"line"`
	Column   uint32 `json:"column,omitempty"`
}

// allocJSON is where a set was allocated, as JSON shows it: the sites
// with their whole stacks, and what was not recorded.
type allocJSON struct {
	Sites        []siteJSON `json:"sites"`
	Unknown      int        `json:"unknown"`
	UnknownBytes uint64     `json:"unknown_bytes"`
}

func allocToJSON(a *analyze.Allocations) *allocJSON {
	if a == nil {
		return nil
	}
	out := &allocJSON{Sites: []siteJSON{}, Unknown: a.Unknown, UnknownBytes: a.UnknownBytes}
	for _, s := range a.Sites {
		j := siteJSON{Count: s.Count, Bytes: s.Bytes, Frames: []frameJSON{}, Program: s.Program}
		for _, f := range s.Stack {
			j.Frames = append(j.Frames, frameJSON(f))
		}
		out.Sites = append(out.Sites, j)
	}
	return out
}
