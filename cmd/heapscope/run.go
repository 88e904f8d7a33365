package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/heapscope/heapscope/agent"
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
	if *out == "" {
		return usagef("run needs -o DIR")
	}
	if *maxValue < 0 {
		return usagef("--max-value-len must not be negative")
	}
	if !*atExit && *sig == "" && *every <= 0 {
		return usagef("run needs at least one of --at-exit, --signal SIGNAL and --every DURATION")
	}
	var snapSig syscall.Signal
	if *sig != "" {
		n, ok := signalNumbers[strings.ToUpper(*sig)]
		if !ok {
			return usagef("unknown signal %q (want SIGUSR1, SIGUSR2, SIGHUP, ...)", *sig)
		}
		*sig = strings.ToUpper(*sig)
		if !strings.HasPrefix(*sig, "SIG") {
			*sig = "SIG" + *sig
		}
		snapSig = n
	}
	java := isJava(cmdArgs[0])
	if java {
		if err := javaRunFlags(fs, *sig != "" || *every > 0); err != nil {
			return err
		}
	}
	dir, err := filepath.Abs(*out)
	if err != nil {
		return err
	}
	// Snapshots can hold secrets: a directory heapscope makes is the
	// user's alone (an existing one keeps its mode; the files are 0600).
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	env := os.Environ()
	var jv *javaRun
	if java {
		if jv, err = newJavaRun(dir, *atExit); err != nil {
			return err
		}
		defer jv.cleanup()
		cmdArgs = jv.command(cmdArgs)
	} else if env, err = agentEnv(agent.RunOptions{
		OutDir: dir, AtExit: *atExit, Signal: *sig, Every: *every,
		NoValues: !*values, Children: *children,
		MaxValueLen: *maxValue, NoCollect: *noCollect, Census: *census, TraceAlloc: int(trace),
	}); err != nil {
		return err
	}

	cmd := exec.Command(cmdArgs[0], cmdArgs[1:]...)
	cmd.Env = env
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, stdout, stderr
	start := time.Now()
	// Catch the signals before the program starts, so that none is lost.
	sigs := make(chan os.Signal, 4)
	caught := []os.Signal{syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP}
	if snapSig != 0 {
		caught = append(caught, snapSig)
	}
	signal.Notify(sigs, caught...)
	defer signal.Stop(sigs)
	if err := cmd.Start(); err != nil {
		return err
	}
	pid := cmd.Process.Pid
	switch {
	case snapSig != 0 && java:
		fmt.Fprintf(stderr, "heapscope: child PID %d (send %s to heapscope %d for a snapshot)\n", pid, *sig, os.Getpid())
	case snapSig != 0:
		fmt.Fprintf(stderr, "heapscope: child PID %d (send %s to %d or to heapscope %d for a snapshot)\n", pid, *sig, pid, os.Getpid())
	default:
		fmt.Fprintf(stderr, "heapscope: child PID %d\n", pid)
	}
	if java {
		jv.start(pid, *every, stderr)
	}
	c := &child{cmd: cmd, pid: pid, snapSig: snapSig, java: jv, atExit: *atExit, values: *values, dir: dir, stderr: stderr}
	done := make(chan struct{})
	go func() {
		defer close(done)
		for s := range sigs {
			c.signal(s.(syscall.Signal))
		}
	}()
	err = cmd.Wait()
	signal.Stop(sigs)
	close(sigs)
	<-done
	if java {
		jv.finish(err, stderr)
	}
	snaps := newSnapshots(dir, start)
	fmt.Fprintf(stderr, "heapscope: %d snapshot(s) in %s\n", snaps, dir)
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		// Leave with the program's own status.
		code := ee.ExitCode()
		if code < 0 {
			s := ee.Sys().(syscall.WaitStatus).Signal()
			code = 128 + int(s)
			if trace > 0 && crashSignal(s) {
				fmt.Fprintf(stderr, "heapscope: the program crashed (%s) with --trace-alloc on; V8's allocation tracker, which it turns on for Node, crashes some programs (TypeScript's compiler, for one) in optimized code: run node with --no-opt too (much slower), or without --trace-alloc\n", signalName(s))
			}
		}
		return &exitError{code: code}
	}
	return err
}

// crashSignal reports whether s is the signal of a crash rather than of
// someone who asked the program to end.
func crashSignal(s syscall.Signal) bool {
	switch s {
	case syscall.SIGSEGV, syscall.SIGBUS, syscall.SIGILL, syscall.SIGFPE, syscall.SIGABRT, syscall.SIGTRAP, syscall.SIGSYS:
		return true
	}
	return false
}

// agentEnv returns the environment that makes a Python or Node program
// take snapshots as o says.
func agentEnv(o agent.RunOptions) ([]string, error) {
	var err error
	if o.PackageDir, err = agent.Dir(); err != nil {
		return nil, err
	}
	if o.SiteDir, err = agent.RunDir(); err != nil {
		return nil, err
	}
	preload, err := agent.NodePreload()
	if err != nil {
		return nil, err
	}
	return agent.NodeEnv(agent.Env(os.Environ(), o), preload, o.TraceAlloc > 0), nil
}

// newSnapshots counts the snapshots written in dir since start.
func newSnapshots(dir string, start time.Time) int {
	entries, _ := os.ReadDir(dir)
	n := 0
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), ".") {
			continue
		}
		if info, err := e.Info(); err == nil && !info.ModTime().Before(start.Add(-time.Second)) {
			n++
		}
	}
	return n
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

var signalNumbers = map[string]syscall.Signal{
	"SIGUSR1": syscall.SIGUSR1, "SIGUSR2": syscall.SIGUSR2, "SIGHUP": syscall.SIGHUP,
	"USR1": syscall.SIGUSR1, "USR2": syscall.SIGUSR2, "HUP": syscall.SIGHUP,
	"SIGWINCH": syscall.SIGWINCH, "WINCH": syscall.SIGWINCH,
}
