package main

import (
	_ "embed"
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/heapscope/heapscope/analyze"
)

//go:embed doc.go
var doc string

// command is one heapscope command.
type command struct {
	name  string
	args  string // the arguments, for usage lines
	short string
	run   func(args []string, stdout, stderr io.Writer) error
}

// commands is every command, in the order help lists them.
var commands []command

func init() {
	commands = []command{
		{name: "summary", args: "SNAPSHOT [SELECTOR]", short: "objects and shallow bytes per type", run: runSummary},
		{name: "diff", args: "BEFORE AFTER | DIR...", short: "change per type between two snapshots", run: runDiff},
		{name: "top", args: "SNAPSHOT", short: "objects and types that retain the most; objects held outside the heap", run: runTop},
		{name: "tree", args: "SNAPSHOT", short: "the dominator tree, by retained size", run: runTree},
		{name: "why", args: "SNAPSHOT SELECTOR", short: "shortest retainer paths to objects (by type or name, id, value:TEXT or class:NAME), merged", run: runWhy},
		{name: "retainers", args: "SNAPSHOT SELECTOR", short: "every reference to the selected objects, grouped, level by level: what holds them", run: runRetainers},
		{name: "refs", args: "SNAPSHOT SELECTOR", short: "every reference the selected objects hold, grouped, level by level", run: runRefs},
		{name: "retained", args: "SNAPSHOT SELECTOR", short: "the retained set of the selected objects: what would be freed if all of them went, by type", run: runRetained},
		{name: "containers", args: "SNAPSHOT [SELECTOR]", short: "dicts, lists, maps and caches that hold the most", run: runContainers},
		{name: "duplicates", args: "SNAPSHOT", short: "strings, bytes and tuples with equal content", run: runDuplicates},
		{name: "trend", args: "S1 S2 S3 ... | DIR...", short: "growth per type over many snapshots: steady, warm-up, churn", run: runTrend},
		{name: "leaks", args: "BASELINE TARGET FINAL | DIR...", short: "objects created between baseline and target still alive in final, by path", run: runLeaks},
		{name: "check", args: "BASELINE TARGET FINAL", short: "a CI gate: exit 1 when a leak is over the allowances, 3 when it cannot check", run: runCheck},
		{name: "web", args: "SNAPSHOT...", short: "a local web page: tables, the dominator tree as a treemap, paths, leaks, trends", run: runWeb},
		{name: "snapshot", args: "--python PID | --node PID | --java PID -o FILE | --dask ADDRESS -o DIR", short: "take a snapshot of a running Python or Node process, a JVM, or every worker of a Dask cluster", run: runSnapshot},
		{name: "python-path", args: "", short: "print the directory to put on PYTHONPATH for 'import heapscope'", run: runPythonPath},
		{name: "run", args: "-o DIR [flags] -- CMD [ARGS...]", short: "run a Python or Node program with the agent loaded", run: runRun},
		{name: "version", args: "", short: "print heapscope's version, commit and Go version", run: runVersion},
		{name: "completion", args: "bash|zsh|fish", short: "print a shell completion script", run: runCompletion},
		{name: "help", args: "[COMMAND]", short: "show this help, or a command's", run: runHelp},
	}
}

// usageError is a misuse of the command line: exit status 2.
type usageError struct{ msg string }

func (e *usageError) Error() string { return e.msg }

func usagef(format string, args ...any) error {
	return &usageError{fmt.Sprintf(format, args...)}
}

// exitError ends the program with a status and an optional message,
// for commands whose verdict is the exit status (check).
type exitError struct {
	code int
	msg  string
}

func (e *exitError) Error() string { return e.msg }

// run is the whole program: it runs the command args name and writes to
// stdout and stderr.
func run(args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 {
		return usagef("no command given")
	}
	name := args[0]
	switch name {
	case "-h", "-help", "--help":
		name = "help"
	case "-version", "--version":
		name = "version"
	}
	c, ok := lookup(name)
	if !ok {
		return unknownCommand(args[0])
	}
	err := c.run(args[1:], stdout, stderr)
	if perr := stopProfiles(); err == nil {
		err = perr
	}
	var ue *usageError
	if errors.As(err, &ue) {
		if ue.msg == flag.ErrHelp.Error() {
			return nil // -h: the usage is printed
		}
		if bad, ok := strings.CutPrefix(ue.msg, "flag provided but not defined: "); ok {
			ue.msg += didYouMean(strings.TrimLeft(bad, "-"), flagNames(c), "--")
		}
	}
	return err
}

// lookup returns the command called name.
func lookup(name string) (command, bool) {
	for _, c := range commands {
		if c.name == name {
			return c, true
		}
	}
	return command{}, false
}

func unknownCommand(name string) error {
	names := make([]string, len(commands))
	for i, c := range commands {
		names[i] = c.name
	}
	return usagef("unknown command %q%s", name, didYouMean(name, names, ""))
}

func runHelp(args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 {
		_, err := io.WriteString(stdout, usageText())
		return err
	}
	if len(args) > 1 {
		return usagef("help takes at most 1 argument, got %d", len(args))
	}
	c, ok := lookup(args[0])
	if !ok {
		return unknownCommand(args[0])
	}
	writeUsage(stdout, c.name, c.args, flagsOf(c))
	return nil
}

// usageText is the package comment of doc.go: the same text serves
// 'go doc' and 'heapscope help'.
func usageText() string {
	start := strings.Index(doc, "/*\n")
	end := strings.Index(doc, "*/")
	if start < 0 || end < start {
		return doc
	}
	return strings.TrimLeft(doc[start+3:end], "\n")
}

// commandDoc returns what doc.go says of the command name: its entries
// in the command lists (a line that starts with the name, indented by a
// tab, and the lines indented further that follow it), without the tab.
func commandDoc(name string) string {
	var b strings.Builder
	in := false
	for _, line := range strings.Split(usageText(), "\n") {
		switch {
		case strings.HasPrefix(line, "\t"+name+" ") || line == "\t"+name:
			in = true
		case in && strings.HasPrefix(line, "\t "):
		default:
			in = false
		}
		if in {
			b.WriteString(strings.TrimPrefix(line, "\t") + "\n")
		}
	}
	return b.String()
}

// writeUsage writes a command's usage: its usage line, what doc.go says
// of it, and its flags (fs may be nil: no flags).
func writeUsage(w io.Writer, name, args string, fs *flag.FlagSet) {
	line := "usage: heapscope " + name
	if fs != nil && hasFlags(fs) {
		line += " [flags]"
	}
	if args != "" {
		line += " " + args
	}
	fmt.Fprintln(w, line)
	if d := commandDoc(name); d != "" {
		fmt.Fprintf(w, "\n%s", d)
	}
	if fs != nil && hasFlags(fs) {
		fmt.Fprintln(w, "\nflags:")
		out := fs.Output()
		fs.SetOutput(w)
		fs.PrintDefaults()
		fs.SetOutput(out)
	}
}

func hasFlags(fs *flag.FlagSet) bool {
	n := 0
	fs.VisitAll(func(*flag.Flag) { n++ })
	return n > 0
}

// flagProbe stands in for a command's stderr to learn its flags: the
// command's flag set hands itself over when asked for its usage (-h), and
// the command stops there (see [flagSet]).
type flagProbe struct{ fs *flag.FlagSet }

func (*flagProbe) Write(p []byte) (int, error) { return len(p), nil }

// flagsOf returns the flag set of command c, or nil when it has none. It
// runs c with -h and a probe for stderr: commands parse their flags
// before they do anything.
func flagsOf(c command) *flag.FlagSet {
	if c.name == "help" {
		return nil
	}
	p := &flagProbe{}
	c.run([]string{"-h"}, io.Discard, p)
	return p.fs
}

// flagNames returns the names of c's flags, sorted.
func flagNames(c command) []string {
	var names []string
	if fs := flagsOf(c); fs != nil {
		fs.VisitAll(func(f *flag.Flag) { names = append(names, f.Name) })
	}
	return names
}

// didYouMean returns "; did you mean PREFIX+NAME?" for the name among
// names closest to s (edit distance at most 2, or a third of s), or "".
func didYouMean(s string, names []string, prefix string) string {
	best, bestD := "", 0
	for _, n := range names {
		d := analyze.EditDistance(s, n)
		if strings.HasPrefix(n, s) && len(s) >= 3 {
			d = min(d, 1) // a prefix: "contain" for "containers"
		}
		if best == "" || d < bestD {
			best, bestD = n, d
		}
	}
	if best == "" || bestD > max(2, len(s)/3) || bestD >= len(s) {
		return ""
	}
	return "; did you mean " + prefix + best + "?"
}

// flagSet returns a flag set for a command. -h prints the command's usage
// on stderr; a parse error is not printed here but returned, for main to
// print once.
func flagSet(name, args string, stderr io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	errs := &errorSeen{}
	fs.SetOutput(errs)
	fs.Usage = func() {
		if p, ok := stderr.(*flagProbe); ok {
			p.fs = fs
			return
		}
		if errs.seen { // the flag package writes an error before the usage
			return
		}
		if c, ok := lookup(name); ok {
			args = c.args // one usage line for -h and help COMMAND
		}
		writeUsage(stderr, name, args, fs)
	}
	return fs
}

// errorSeen is a flag set's output: it notes that the flag package wrote
// an error, and drops it.
type errorSeen struct{ seen bool }

func (e *errorSeen) Write(p []byte) (int, error) {
	e.seen = true
	return len(p), nil
}

// parse parses flags that may stand before, between or after the
// positional arguments ("--" ends the flags), and checks the number of
// positional arguments is in [min, max] (max < 0: no limit).
func parse(fs *flag.FlagSet, args []string, min, max int) ([]string, error) {
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				return nil, &exitError{code: 0}
			}
			return nil, &usageError{err.Error()}
		}
		args = fs.Args()
		if len(args) == 0 {
			break
		}
		if args[0] == "--" {
			pos = append(pos, args[1:]...)
			break
		}
		pos = append(pos, args[0])
		args = args[1:]
	}
	if len(pos) < min || (max >= 0 && len(pos) > max) {
		want := fmt.Sprintf("%d", min)
		if max != min {
			want = fmt.Sprintf("%d to %d", min, max)
			if max < 0 {
				want = fmt.Sprintf("at least %d", min)
			}
		}
		return nil, usagef("%s takes %s arguments, got %d", fs.Name(), want, len(pos))
	}
	return pos, nil
}
