package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"

	"github.com/heapscope/heapscope/agent"
	"github.com/heapscope/heapscope/capture"
	"github.com/heapscope/heapscope/capture/jvm"
	"github.com/heapscope/heapscope/capture/mpi"
	"github.com/heapscope/heapscope/capture/supervisor"
	"github.com/heapscope/heapscope/internal/crash"
)

func runPythonPath(args []string, stdout, stderr io.Writer) error {
	fs := flagSet("python-path", "", stderr)
	if _, err := parse(fs, args, 0, 0); err != nil {
		return err
	}
	dir, err := agent.Dir()
	if err != nil {
		return err
	}
	_, err = fmt.Fprintln(stdout, dir)
	return err
}

func runRun(args []string, stdout, stderr io.Writer) error {
	fs := flagSet("run", "-o DIR [flags] -- CMD [ARGS...]", stderr)
	out := fs.String("o", "", "write snapshots into `DIR` (created if needed)")
	atExit := fs.Bool("at-exit", false, "take a snapshot when the program exits")
	sig := fs.String("signal", "", "take a snapshot when the program, or heapscope, receives `SIGNAL` (e.g. SIGUSR2)")
	every := fs.Duration("every", 0, "take a snapshot every `DURATION` (e.g. 30s)")
	values := fs.Bool("values", true, "write prefixes of string and bytes values (false: none; snapshots can hold secrets)")
	children := fs.Bool("children", false, "child processes of the program take snapshots too")
	maxValue := fs.Int("max-value-len", 64, "write at most `N` characters of each str or bytes value (Python)")
	noCollect := fs.Bool("no-collect", false, "do not run gc.collect() before each snapshot (Python)")
	census := fs.Bool("census", false, "take censuses: every object's type and size, no references; cheaper, enough for summary, diff and trend (Python)")
	metricsAt := fs.String("metrics", "", "serve the latest census of the heap (objects and bytes per type) for Prometheus at http://`ADDR`/metrics, e.g. 127.0.0.1:9464; with --census, a JVM's is its class histogram; without -o the snapshots are removed once read")
	metricsTop := fs.Int("metrics-types", 50, "with --metrics: a series for each of the `N` types with the most bytes, the rest summed as the type other")
	metricsRemote := fs.Bool("metrics-allow-remote", false, "allow a --metrics address other than loopback")
	fork := fs.Bool("fork", runtime.GOOS == "linux", "take the --signal and --every snapshots in a child process that walks a copy of the heap, so that the program stops only for the fork; no garbage is collected first (Python, Linux; the exit snapshot is taken in the process)")
	watchGrowth := fs.Bool("watch-growth", true, "record where the instances of the classes that grew between each of the last three snapshots are allocated, from then on, so that leaks, why, top and check name the sites of what keeps growing: only those classes' allocations are slowed, by 1-3 us each (Python; not with --census or --trace-alloc)")
	var trace traceAllocFlag
	fs.Var(&trace, "trace-alloc", "record where objects are allocated: tracemalloc with `N` frames (default 1) for Python, V8's allocation tracker for Node; leaks, why, top and check then name the sites")
	// Flags stop at the first argument that is not one: the program's own
	// flags must not be read as heapscope's.
	if err := fs.Parse(args); err != nil {
		return &usageError{err.Error()}
	}
	cmdArgs := fs.Args()
	if len(cmdArgs) > 0 && cmdArgs[0] == "--" {
		cmdArgs = cmdArgs[1:]
	}
	if len(cmdArgs) == 0 {
		return usagef("run needs a program to run after --")
	}
	if *out == "" && *metricsAt == "" {
		return usagef("run needs -o DIR (or --metrics ADDR)")
	}
	if *metricsAt != "" && *sig == "" && *every <= 0 {
		return usagef("--metrics needs --every DURATION or --signal SIGNAL: they take the censuses it serves")
	}
	if *metricsTop < 1 {
		return usagef("--metrics-types must be at least 1")
	}
	if *maxValue < 0 {
		return usagef("--max-value-len must not be negative")
	}
	if !*atExit && *sig == "" && *every <= 0 {
		return usagef("run needs at least one of --at-exit, --signal SIGNAL and --every DURATION")
	}
	var snapSig syscall.Signal
	if *sig != "" {
		n, name, ok := capture.ParseSignal(*sig)
		if !ok {
			return usagef("unknown signal %q (want SIGUSR1, SIGUSR2, SIGHUP, ...)", *sig)
		}
		snapSig, *sig = n, name
	}
	java := jvm.IsLauncher(cmdArgs[0])
	if java {
		if err := javaRunFlags(fs, *sig != "" || *every > 0, *metricsAt != ""); err != nil {
			return err
		}
	}
	var maddr string
	if *metricsAt != "" {
		var err error
		if maddr, err = metricsAddr(*metricsAt, *metricsRemote); err != nil {
			return err
		}
	}
	// The program's output and heapscope's messages share the writers
	// (see supervisor.Serialize).
	stdout, stderr = supervisor.Serialize(stdout, stderr)
	keep := *out != ""
	if !keep {
		// The censuses are only served: a directory of heapscope's own,
		// each snapshot removed once read, the directory at the end.
		tmp, err := os.MkdirTemp("", "heapscope-metrics-")
		if err != nil {
			return err
		}
		defer os.RemoveAll(tmp)
		*out = tmp
	}
	dir, err := filepath.Abs(*out)
	if err != nil {
		return err
	}
	if job, ok := mpi.Detect(os.Getenv); ok {
		// One of many ranks, each running this: each writes under its
		// own directory, so that none clashes with another.
		dir = filepath.Join(dir, job.Dir())
		of := ""
		if job.Size > 0 {
			of = fmt.Sprintf(" of %d", job.Size)
		}
		fmt.Fprintf(stderr, "heapscope: MPI rank %d%s (%s): snapshots in %s\n", job.Rank, of, job.Launcher, dir)
	}
	// Snapshots can hold secrets: a directory heapscope makes is the
	// user's alone (an existing one keeps its mode; the files are 0600).
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	var served *metricsServe
	if maddr != "" {
		if served, err = startMetrics(maddr, *metricsTop, dir, keep, stderr); err != nil {
			return err
		}
	}
	opt := supervisor.Options{
		Args: cmdArgs, Dir: dir, AtExit: *atExit, Signal: snapSig, Every: *every, Values: *values,
		Agent: agent.RunOptions{
			OutDir: dir, AtExit: *atExit, Signal: *sig, Every: *every,
			NoValues: !*values, Children: *children,
			MaxValueLen: *maxValue, NoCollect: *noCollect, Census: *census, TraceAlloc: int(trace),
			Fork: *fork && runtime.GOOS == "linux", WatchGrowth: *watchGrowth && !*census && trace == 0,
		},
		Stdin: os.Stdin, Stdout: stdout, Stderr: stderr,
	}
	if served != nil && java && *census {
		opt.JavaCensus = served.javaCensus
	}
	snaps, err := supervisor.Run(opt)
	if served != nil {
		served.finish()
	}
	var ee *exec.ExitError
	if err != nil && !errors.As(err, &ee) {
		return err // the program did not start
	}
	if keep {
		fmt.Fprintf(stderr, "heapscope: %d snapshot(s) in %s\n", snaps, dir)
	}
	if ee != nil {
		// Leave with the program's own status.
		code := ee.ExitCode()
		if code < 0 {
			s := ee.Sys().(syscall.WaitStatus).Signal()
			code = 128 + int(s)
			if trace > 0 && crash.IsCrash(s) {
				fmt.Fprintf(stderr, "heapscope: the program crashed (%s) with --trace-alloc on; V8's allocation tracker, which it turns on for Node, crashes some programs (TypeScript's compiler, for one) in optimized code: run node with --no-opt too (much slower), or without --trace-alloc\n", capture.SignalName(s))
			}
		}
		return &exitError{code: code}
	}
	return nil
}

// traceAllocFlag is --trace-alloc[=N]: 0 when off, else the number of
// frames tracemalloc records (1 for a bare --trace-alloc).
type traceAllocFlag int

func (f *traceAllocFlag) String() string { return strconv.Itoa(int(*f)) }

func (f *traceAllocFlag) IsBoolFlag() bool { return true }

func (f *traceAllocFlag) Set(s string) error {
	switch s {
	case "true":
		*f = 1
		return nil
	case "false":
		*f = 0
		return nil
	}
	n, err := strconv.Atoi(s)
	if err != nil || n < 1 || n > 65535 {
		return fmt.Errorf("want a number of frames from 1 to 65535, got %q", s)
	}
	*f = traceAllocFlag(n)
	return nil
}

// javaRunFlags refuses the flags that mean nothing for a JVM, and wants
// jcmd when the snapshots need it.
func javaRunFlags(fs *flag.FlagSet, needJcmd, metrics bool) error {
	var bad []string
	fs.Visit(func(f *flag.Flag) {
		switch {
		case f.Name == "census" && metrics:
			// --census --metrics: class histograms, served
		case f.Name == "census" || f.Name == "max-value-len" || f.Name == "no-collect" || f.Name == "children" || f.Name == "trace-alloc" && f.Value.String() != "0":
			bad = append(bad, "--"+f.Name)
		case f.Name == "values" && f.Value.String() == "false":
			bad = append(bad, "--values=false")
		case (f.Name == "fork" || f.Name == "watch-growth") && f.Value.String() == "true":
			bad = append(bad, "--"+f.Name)
		}
	})
	if len(bad) > 0 {
		return usagef("%s: not for java (the JVM writes its dumps itself, with every value; run follows no child JVM, nor forks one; a JVM's census is its class histogram, for --metrics)", strings.Join(bad, ", "))
	}
	if needJcmd {
		if _, err := exec.LookPath("jcmd"); err != nil {
			return usagef("run -- java with --signal or --every needs jcmd (from a JDK) on PATH")
		}
	}
	return nil
}
