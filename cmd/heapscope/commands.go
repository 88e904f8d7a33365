package main

import (
	_ "embed"
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"
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
		{name: "summary", args: "SNAPSHOT", short: "objects and shallow bytes per type", run: runSummary},
		{name: "diff", args: "BEFORE AFTER", short: "change per type between two snapshots", run: runDiff},
		{name: "top", args: "SNAPSHOT", short: "objects and types that retain the most; objects held outside the heap", run: runTop},
		{name: "tree", args: "SNAPSHOT", short: "the dominator tree, by retained size", run: runTree},
		{name: "why", args: "SNAPSHOT SELECTOR", short: "shortest retainer paths to objects (by type, 0xADDR or value:TEXT), merged", run: runWhy},
		{name: "containers", args: "SNAPSHOT", short: "dicts, lists, maps and caches that hold the most", run: runContainers},
		{name: "duplicates", args: "SNAPSHOT", short: "strings, bytes and tuples with equal content", run: runDuplicates},
		{name: "trend", args: "S1 S2 S3 ...", short: "growth per type over many snapshots: steady, warm-up, churn", run: runTrend},
		{name: "leaks", args: "BASELINE TARGET FINAL", short: "objects created between baseline and target still alive in final, by path", run: runLeaks},
		{name: "check", args: "BASELINE TARGET FINAL", short: "a CI gate: exit 1 when a leak is over the allowances", run: runCheck},
		{name: "web", args: "SNAPSHOT...", short: "a local web page: tables, the dominator tree as a treemap, paths, leaks, trends", run: runWeb},
		{name: "snapshot", args: "--node PID | --java PID -o FILE", short: "take a snapshot of a running Node process or JVM", run: runSnapshot},
		{name: "python-path", args: "", short: "print the directory to put on PYTHONPATH for 'import heapscope'", run: runPythonPath},
		{name: "run", args: "-o DIR [flags] -- CMD [ARGS...]", short: "run a Python or Node program with the agent loaded", run: runRun},
		{name: "help", args: "", short: "show this help", run: runHelp},
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
	}
	for _, c := range commands {
		if c.name == name {
			return c.run(args[1:], stdout, stderr)
		}
	}
	return usagef("unknown command %q", args[0])
}

func runHelp(args []string, stdout, stderr io.Writer) error {
	_, err := io.WriteString(stdout, usageText())
	return err
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

// flagSet returns a flag set for a command whose errors go to stderr.
func flagSet(name, args string, stderr io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprintf(stderr, "usage: heapscope %s [flags] %s\n", name, args)
		fs.PrintDefaults()
	}
	return fs
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
