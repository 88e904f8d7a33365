package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"time"

	"github.com/heapscope/heapscope/capture"
	"github.com/heapscope/heapscope/capture/attach"
	"github.com/heapscope/heapscope/capture/dask"
	"github.com/heapscope/heapscope/capture/inspector"
	"github.com/heapscope/heapscope/capture/jvm"
)

func runSnapshot(args []string, stdout, stderr io.Writer) error {
	fs := flagSet("snapshot", "--python PID | --node PID | --java PID | --dask ADDRESS", stderr)
	pyPID := fs.Int("python", 0, "take a snapshot of the running CPython (3.9+) process `PID` with heapscope's agent, which heapscope's calls into the process queue for its main thread (with ptrace on Linux on x86-64, else with gdb)")
	nodePID := fs.Int("node", 0, "take a V8 heap snapshot of the running Node process `PID` (its inspector is opened with SIGUSR1 on 127.0.0.1 and closed again)")
	javaPID := fs.Int("java", 0, "take an HPROF dump of the running JVM `PID` (with jcmd GC.heap_dump)")
	daskAddr := fs.String("dask", "", "take a snapshot of every worker of the Dask cluster whose scheduler is at `ADDRESS` (tcp://host:8786), each into -o DIR/worker-NAME/")
	daskPython := fs.String("dask-python", "python3", "with --dask: the `PYTHON` whose distributed is the cluster's client")
	out := fs.String("o", "", "write the snapshot to `FILE` (mode 0600); with --dask, a directory")
	timeout := fs.Duration("timeout", 10*time.Minute, "give up after this long (for --python, that is also how long heapscope waits for a main thread in a long call outside Python to come back to Python code)")
	values := fs.Bool("values", true, "write string contents (false: none; Python and Node)")
	census := fs.Bool("census", false, "take a census: every object's type and size, no references (Python)")
	noCollect := fs.Bool("no-collect", false, "do not run gc.collect() before the snapshot (Python)")
	maxValue := fs.Int("max-value-len", 64, "write at most `N` characters of each str or bytes value (Python)")
	useGDB := fs.Bool("gdb", false, "with --python: have gdb make the calls into the process (it stops every thread, for longer) instead of heapscope itself (Linux on x86-64; elsewhere gdb always does)")
	fork := fs.Bool("fork", runtime.GOOS == "linux", "the process forks and the child walks its copy of the heap, so that the program stops only for the fork, not for the whole capture; needs free memory up to the program's resident heap again, and collects no garbage first (Python, Linux; --fork=false stops the program for the capture)")
	if _, err := parse(fs, args, 0, 0); err != nil {
		return err
	}
	forkSet := false
	fs.Visit(func(f *flag.Flag) { forkSet = forkSet || f.Name == "fork" })
	if *out == "" {
		return usagef("snapshot needs -o FILE (-o DIR with --dask)")
	}
	if *daskAddr != "" {
		if forkSet {
			return usagef("--fork is for --python")
		}
		if *pyPID != 0 || *nodePID != 0 || *javaPID != 0 {
			return usagef("snapshot needs exactly one of --python PID, --node PID, --java PID and --dask ADDRESS")
		}
		return snapshotDask(*daskAddr, *out, *daskPython, *timeout, dask.Options{
			NoValues: !*values, MaxValueLen: *maxValue, NoCollect: *noCollect, Census: *census,
		}, stdout, stderr)
	}
	chosen := 0
	for _, p := range []int{*pyPID, *nodePID, *javaPID} {
		if p != 0 {
			chosen++
		}
	}
	if chosen != 1 {
		return usagef("snapshot needs exactly one of --python PID, --node PID, --java PID and --dask ADDRESS")
	}
	if !*values && *javaPID != 0 {
		return usagef("--values=false is for --python and --node: the JVM writes its dump itself, with every value")
	}
	if *pyPID == 0 && (*census || *noCollect || *maxValue != 64) {
		return usagef("--census, --no-collect and --max-value-len are for --python and --dask")
	}
	if *pyPID == 0 && forkSet && *fork {
		return usagef("--fork is for --python")
	}
	if *pyPID == 0 && *useGDB {
		return usagef("--gdb is for --python")
	}
	if *fork && forkSet && runtime.GOOS != "linux" {
		return usagef("--fork is for Linux")
	}
	if *maxValue < 0 {
		return usagef("--max-value-len must not be negative")
	}
	if fi, err := os.Stat(*out); err == nil && fi.IsDir() {
		return usagef("-o %s is a directory; give the name of the snapshot file", *out)
	}
	if fi, err := os.Stat(filepath.Dir(*out)); err != nil || !fi.IsDir() {
		return usagef("-o %s: no directory %s to write it in", *out, filepath.Dir(*out))
	}
	ctx, cancel := context.WithTimeout(context.Background(), *timeout)
	defer cancel()
	risk := "" // what a second signal risks
	if *nodePID != 0 {
		risk = "; Node may crash if its connection closes during the snapshot"
	}
	ctx, cleanup, caught, stop := capture.Interruptible(ctx, stderr, risk)
	defer stop()
	var err error
	var res attach.Result
	switch {
	case *pyPID != 0:
		res, err = attach.Snapshot(ctx, *pyPID, *out, attach.Options{
			Census: *census, NoValues: !*values, MaxValueLen: *maxValue, NoCollect: *noCollect,
			Fork: *fork && runtime.GOOS == "linux", UseGDB: *useGDB, Cleanup: cleanup,
			Waiting: func() {
				fmt.Fprintf(stderr, "heapscope: waiting for the main thread of process %d to run Python code (it is in a long call: sleep, join, read?); heapscope waits up to --timeout (%v), then withdraws the request\n", *pyPID, *timeout)
			},
		})
	case *javaPID != 0:
		err = jvm.Snapshot(ctx, *javaPID, *out)
	default:
		err = withProgress(stderr, "taking a heap snapshot of node "+fmt.Sprint(*nodePID), func() error {
			return inspector.SnapshotFile(ctx, *nodePID, *out, inspector.Options{NoValues: !*values, Cleanup: cleanup})
		})
	}
	if s := caught(); s != 0 && err != nil {
		return &exitError{code: 128 + int(s), msg: fmt.Sprintf("interrupted by %v; no snapshot written (%v)", s, err)}
	}
	if errors.Is(err, inspector.ErrNotNode) || errors.Is(err, jvm.ErrNotJVM) || errors.Is(err, attach.ErrNotPython) {
		return &usageError{err.Error()}
	}
	if ce, ok := err.(*inspector.CloseError); ok {
		// The snapshot is whole, but the process is left open to others.
		fmt.Fprintf(stdout, "wrote %s\n", *out)
		return ce
	}
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "wrote %s\n", *out)
	if *pyPID != 0 {
		if line := pauseLine(*pyPID, res, *fork && runtime.GOOS == "linux"); line != "" {
			fmt.Fprintln(stderr, line)
		}
	}
	return nil
}

// pauseLine says how long attaching kept process pid's main thread from
// the program's work, from the figures of res that were measured: with
// heapscope's own calls (ptrace), the stop they made plus the agent's
// own pause in the program; with gdb, the agent's pause, and gdb's whole
// run, part of which stopped every thread (how long is not measured);
// with sys.remote_exec, the agent's pause. fork says what the agent's
// pause was spent on; when the agent loaded on a thread of its own
// (res.Load), the line ends with how long that took beside the program.
// It returns "" when nothing was measured.
func pauseLine(pid int, res attach.Result, fork bool) string {
	spent, beside := "loading the agent and the capture", ""
	switch {
	case fork && res.Load > 0:
		spent = "starting the agent's thread and forking"
		beside = fmt.Sprintf("; the agent loaded beside the program, on a thread of its own, in %s", millis(res.Load))
	case fork:
		spent = "loading the agent and forking"
	}
	head := fmt.Sprintf("heapscope: paused process %d's main thread for ", pid)
	switch {
	case res.Method == "ptrace" && res.Pause > 0:
		return fmt.Sprintf("%s%s: %s stopped by heapscope's calls (ptrace), %s in the program (%s)%s",
			head, millis(res.Injection+res.Pause), millis(res.Injection), millis(res.Pause), spent, beside)
	case res.Method == "ptrace":
		return fmt.Sprintf("heapscope: heapscope's calls (ptrace) stopped process %d's main thread for %s; its pause in the program is not known", pid, millis(res.Injection))
	case res.Method == "gdb" && res.Pause > 0:
		return fmt.Sprintf("%s%s in the program (%s); before that gdb stopped every thread for part of its %s run%s",
			head, millis(res.Pause), spent, millis(res.Injection), beside)
	case res.Method == "gdb":
		return fmt.Sprintf("heapscope: gdb stopped every thread of process %d for part of its %s run; the pause in the program is not known", pid, millis(res.Injection))
	case res.Method == "sys.remote_exec" && res.Pause > 0:
		return fmt.Sprintf("%s%s in the program (%s), after sys.remote_exec%s", head, millis(res.Pause), spent, beside)
	}
	return ""
}

// millis formats d in milliseconds: to a tenth under 10 ms, else whole.
func millis(d time.Duration) string {
	ms := float64(d) / float64(time.Millisecond)
	if ms < 10 {
		return fmt.Sprintf("%.1f ms", ms)
	}
	return fmt.Sprintf("%.0f ms", ms)
}

// snapshotDask takes a snapshot of every worker of the Dask cluster at
// address into dir, saying on stdout what each wrote and on stderr why a
// worker failed; it fails when any did (the others are written).
func snapshotDask(address, dir, python string, timeout time.Duration, o dask.Options, stdout, stderr io.Writer) error {
	if o.MaxValueLen < 0 {
		return usagef("--max-value-len must not be negative")
	}
	if fi, err := os.Stat(dir); err == nil && !fi.IsDir() {
		return usagef("-o %s is a file; with --dask, give a directory (each worker's snapshots go under DIR/worker-NAME/)", dir)
	}
	ctx, cancel := context.WithTimeout(context.Background(), timeout+time.Minute)
	defer cancel()
	ctx, _, caught, stop := capture.Interruptible(ctx, stderr, "")
	defer stop()
	o.Address, o.Dir, o.Python, o.Timeout = address, dir, python, timeout
	o.Progress = func(w dask.Worker) {
		if w.Err != nil {
			fmt.Fprintf(stderr, "heapscope: worker %s (%s): %v\n", w.Name, w.Address, w.Err)
			return
		}
		fmt.Fprintf(stdout, "wrote %s (worker %s, %s, pid %d, %.1f s)\n", w.Path, w.Name, w.Address, w.PID, w.Seconds)
	}
	var workers []dask.Worker
	err := withProgress(stderr, "taking a snapshot of every worker of "+address, func() error {
		var err error
		workers, err = dask.Snapshot(ctx, o)
		return err
	})
	if s := caught(); s != 0 {
		return &exitError{code: 128 + int(s), msg: fmt.Sprintf("interrupted by %v", s)}
	}
	if err != nil {
		return err
	}
	failed := 0
	for _, w := range workers {
		if w.Err != nil {
			failed++
		}
	}
	if failed > 0 {
		return fmt.Errorf("%d of %d workers have no snapshot (the others' are in %s)", failed, len(workers), dir)
	}
	return nil
}
