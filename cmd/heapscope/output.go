package main

import (
	"errors"
	"flag"
	"io"
	"os"
	"strconv"

	"github.com/heapscope/heapscope/heapfile"
	"github.com/heapscope/heapscope/internal/report"
	"github.com/heapscope/heapscope/internal/term"
)

// outputFlags are the flags every analysis command takes.
type outputFlags struct {
	json   bool
	format string
	// top is how many rows to show: the command's default for text and
	// Markdown, every row (0) for JSON unless --top was given.
	top        int
	defaultTop int
	topSet     bool // --top was given
	verbose    bool
	width      widthFlag
	inflate    inflateFlag
}

// defaultWidth is the line width of text written to anything but a
// terminal.
const defaultWidth = 120

// widthFlag is --width: a number of columns, or unset.
type widthFlag struct {
	n   int
	set bool
}

func (w *widthFlag) String() string {
	if w == nil || !w.set {
		return ""
	}
	return strconv.Itoa(w.n)
}

func (w *widthFlag) Set(s string) error {
	n, err := strconv.Atoi(s)
	if err != nil || n < 0 {
		return errors.New("want a number of columns, 0 for no limit")
	}
	w.n, w.set = n, true
	return nil
}

func (o *outputFlags) register(fs *flag.FlagSet, top int, stderr io.Writer) {
	o.defaultTop = top
	fs.BoolVar(&o.json, "json", false, "write JSON (same as --format json)")
	fs.StringVar(&o.format, "format", "text", "output `format`: text, json, markdown, html (top, leaks, trend), dot (why, retainers, refs) or pprof (top and summary, a gzipped profile.proto for flame graph viewers)")
	fs.IntVar(&o.top, "top", top, "show the first `N` rows (0: all; JSON and HTML have every row unless --top is given)")
	fs.BoolVar(&o.verbose, "v", false, "list the snapshots' warnings on stderr, each with what it means (without -v, one line counts them)")
	fs.Var(&o.width, "width", "fit text to `N` columns, eliding or wrapping long paths (0: no limit; default: the terminal's width, or 120 when not writing to a terminal)")
	o.inflate.register(fs)
	registerProfileFlags(fs, stderr)
}

// inflateFlag is --max-inflated: the most bytes reading one snapshot may
// write to a temporary file, in the options snapshots are opened with;
// it registers --dump too, which goes into the same options, and
// --max-memory, which every command that reads snapshots takes.
type inflateFlag struct {
	open   heapfile.Options
	memory memoryFlag
}

func (f *inflateFlag) register(fs *flag.FlagSet) {
	fs.Var(dumpFlag{&f.open.Dump}, "dump", "read heap dump `N` (from 1) of an HPROF file that holds several, as the old hprof agent wrote them (default: the last, the latest state; summary lists them)")
	fs.Var(f, "max-inflated", "write at most `SIZE` bytes (suffixes K, M, G) to a temporary file to read a snapshot: a gzip HPROF decompressed, or a snapshot from a pipe; also the most text a gzip V8 snapshot may decompress to (default: 64 times the compressed size, at least 1G)")
	f.memory.register(fs)
}

// withoutEdges returns the options for a command that needs no
// references (summary, diff): readers leave them out where they can.
func (f inflateFlag) withoutEdges() inflateFlag {
	f.open.SkipEdges = true
	return f
}

func (f *inflateFlag) String() string {
	if f == nil || f.open.MaxInflated == 0 {
		return ""
	}
	return strconv.FormatInt(f.open.MaxInflated, 10)
}

func (f *inflateFlag) Set(s string) error {
	n, err := parseLimit(s)
	f.open.MaxInflated = n
	return err
}

// parseLimit parses a size flag that must be more than 0 bytes (see
// parseSize), capped at 2^62.
func parseLimit(s string) (int64, error) {
	n, err := parseSize(s)
	if err == nil && n == 0 {
		err = errors.New("want more than 0 bytes")
	}
	if err != nil {
		return 0, err
	}
	return int64(min(n, 1<<62)), nil
}

// dumpFlag is --dump: a dump number from 1.
type dumpFlag struct{ n *int }

func (d dumpFlag) String() string {
	if d.n == nil || *d.n == 0 {
		return ""
	}
	return strconv.Itoa(*d.n)
}

func (d dumpFlag) Set(s string) error {
	n, err := strconv.Atoi(s)
	if err != nil || n < 1 {
		return errors.New("want a dump number from 1")
	}
	*d.n = n
	return nil
}

// lineWidth returns the width text output fits: --width, else the
// terminal's when stdout is one, else defaultWidth.
func (o *outputFlags) lineWidth(stdout io.Writer) int {
	if o.width.set {
		return o.width.n
	}
	if f, ok := stdout.(*os.File); ok {
		if n := term.Width(f); n > 0 {
			return n
		}
	}
	return defaultWidth
}

// resolve returns the chosen format.
func (o *outputFlags) resolve() (report.Format, error) {
	if o.json {
		if o.format != "text" && o.format != "json" {
			return 0, usagef("--json and --format %s disagree", o.format)
		}
		return report.JSON, nil
	}
	f, err := report.ParseFormat(o.format)
	if err != nil {
		return 0, usagef("%v", err)
	}
	if o.top < 0 {
		return 0, usagef("--top must not be negative")
	}
	return f, nil
}

// analysisFlags starts the flag set of an analysis command: the output
// flags, with --top defaulting to top. Commands add their own flags to fs
// before calling parse.
type analysisFlags struct {
	fs  *flag.FlagSet
	out outputFlags
}

// fit returns stdout for a report: text fits the line width (see
// [outputFlags.lineWidth]).
func (a *analysisFlags) fit(stdout io.Writer) io.Writer {
	return report.WithWidth(stdout, a.out.lineWidth(stdout))
}

func newAnalysis(name, args string, stderr io.Writer, top int) *analysisFlags {
	a := &analysisFlags{fs: flagSet(name, args, stderr)}
	a.out.register(a.fs, top, stderr)
	return a
}

// parse parses args (between min and max positional arguments) and
// returns the positional arguments and the output format.
func (a *analysisFlags) parse(args []string, min, max int) ([]string, report.Format, error) {
	pos, err := parse(a.fs, args, min, max)
	if err != nil {
		return nil, 0, err
	}
	a.fs.Visit(func(f *flag.Flag) { a.out.topSet = a.out.topSet || f.Name == "top" })
	f, err := a.out.resolve()
	if err == nil && f == report.HTML && !htmlCommands[a.fs.Name()] {
		err = usagef("--format html is for top, leaks, check and trend; %s writes text, json or markdown", a.fs.Name())
	}
	if err == nil && f == report.DOT && !dotCommands[a.fs.Name()] {
		err = usagef("--format dot is for why, retainers and refs; %s writes text, json or markdown", a.fs.Name())
	}
	if err == nil && f == report.Pprof && !pprofCommands[a.fs.Name()] {
		err = usagef("--format pprof is for top (retained memory by dominator chain) and summary (objects by type), not %s", a.fs.Name())
	}
	if err == nil && (f == report.JSON || f == report.HTML || f == report.Pprof) && !a.out.topSet {
		a.out.top = 0 // JSON, and the HTML page around it, is complete unless cut on purpose
	}
	return pos, f, err
}

// dotCommands are the analysis commands that draw a graph.
var dotCommands = map[string]bool{"why": true, "retainers": true, "refs": true}

// htmlCommands are the analysis commands with an HTML report.
var htmlCommands = map[string]bool{"top": true, "leaks": true, "trend": true}

// pprofCommands are the analysis commands that write a profile.
var pprofCommands = map[string]bool{"top": true, "summary": true}

// binaryOut fails when stdout is a terminal: a profile is binary, for a
// file or a pipe.
func binaryOut(stdout io.Writer) error {
	if f, ok := stdout.(*os.File); ok && isTerminal(f) {
		return usagef("--format pprof writes a binary profile: redirect it to a file (> top.pb.gz)")
	}
	return nil
}

// ranking is the length of a ranking that is never shown whole (top's
// objects, one per object in the heap): --top when given, else the
// command's default, in every format.
func (o *outputFlags) ranking() int {
	if o.topSet {
		return o.top
	}
	return o.defaultTop
}

// cut returns the first top rows of rows (all when top is 0).
func cut[T any](rows []T, top int) []T {
	if top > 0 && len(rows) > top {
		return rows[:top]
	}
	return rows
}
