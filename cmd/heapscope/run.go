package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
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
	sig := fs.String("signal", "", "take a snapshot when the program receives `SIGNAL` (e.g. SIGUSR2)")
	every := fs.Duration("every", 0, "take a snapshot every `DURATION` (e.g. 30s)")
	values := fs.Bool("values", true, "write prefixes of string and bytes values (false: none; snapshots can hold secrets)")
	children := fs.Bool("children", false, "child processes of the program take snapshots too")
	maxValue := fs.Int("max-value-len", 64, "write at most `N` characters of each str or bytes value (Python)")
	noCollect := fs.Bool("no-collect", false, "do not run gc.collect() before each snapshot (Python)")
	census := fs.Bool("census", false, "take censuses: every object's type and size, no references; cheaper, enough for summary, diff and trend (Python)")
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
	if *sig != "" {
		if _, ok := signalNumbers[strings.ToUpper(*sig)]; !ok {
			return usagef("unknown signal %q (want SIGUSR1, SIGUSR2, SIGHUP, ...)", *sig)
		}
		*sig = strings.ToUpper(*sig)
		if !strings.HasPrefix(*sig, "SIG") {
			*sig = "SIG" + *sig
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
	pkg, err := agent.Dir()
	if err != nil {
		return err
	}
	site, err := agent.RunDir()
	if err != nil {
		return err
	}
	preload, err := agent.NodePreload()
	if err != nil {
		return err
	}
	env := agent.Env(os.Environ(), agent.RunOptions{
		OutDir: dir, AtExit: *atExit, Signal: *sig, Every: *every,
		NoValues: !*values, Children: *children, PackageDir: pkg, SiteDir: site,
		MaxValueLen: *maxValue, NoCollect: *noCollect, Census: *census,
	})
	env = agent.NodeEnv(env, preload)

	cmd := exec.Command(cmdArgs[0], cmdArgs[1:]...)
	cmd.Env = env
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, stdout, stderr
	start := time.Now()
	if err := cmd.Start(); err != nil {
		return err
	}
	// Pass on the signals a terminal or a supervisor sends, so the
	// program decides how to end, as it would without heapscope.
	sigs := make(chan os.Signal, 4)
	signal.Notify(sigs, syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP)
	go func() {
		for s := range sigs {
			cmd.Process.Signal(s)
		}
	}()
	err = cmd.Wait()
	signal.Stop(sigs)
	close(sigs)
	snaps := newSnapshots(dir, start)
	fmt.Fprintf(stderr, "heapscope: %d snapshot(s) in %s\n", snaps, dir)
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		// Leave with the program's own status.
		code := ee.ExitCode()
		if code < 0 {
			code = 128 + int(ee.Sys().(syscall.WaitStatus).Signal())
		}
		return &exitError{code: code}
	}
	return err
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

var signalNumbers = map[string]syscall.Signal{
	"SIGUSR1": syscall.SIGUSR1, "SIGUSR2": syscall.SIGUSR2, "SIGHUP": syscall.SIGHUP,
	"USR1": syscall.SIGUSR1, "USR2": syscall.SIGUSR2, "HUP": syscall.SIGHUP,
	"SIGWINCH": syscall.SIGWINCH, "WINCH": syscall.SIGWINCH,
}
