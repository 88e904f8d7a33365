package main

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
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

	"github.com/heapscope/heapscope/attach"
	"github.com/heapscope/heapscope/heapsnapshot"
	"github.com/heapscope/heapscope/inspector"
)

func runSnapshot(args []string, stdout, stderr io.Writer) error {
	fs := flagSet("snapshot", "--python PID | --node PID | --java PID", stderr)
	pyPID := fs.Int("python", 0, "take a snapshot of the running CPython (3.9+) process `PID` with heapscope's agent, injected with gdb")
	nodePID := fs.Int("node", 0, "take a V8 heap snapshot of the running Node process `PID` (its inspector is opened with SIGUSR1 on 127.0.0.1 and closed again)")
	javaPID := fs.Int("java", 0, "take an HPROF dump of the running JVM `PID` (with jcmd GC.heap_dump)")
	out := fs.String("o", "", "write the snapshot to `FILE` (mode 0600)")
	timeout := fs.Duration("timeout", 10*time.Minute, "give up after this long")
	values := fs.Bool("values", true, "write string contents (false: none; Python and Node)")
	census := fs.Bool("census", false, "take a census: every object's type and size, no references (Python)")
	noCollect := fs.Bool("no-collect", false, "do not run gc.collect() before the snapshot (Python)")
	maxValue := fs.Int("max-value-len", 64, "write at most `N` characters of each str or bytes value (Python)")
	if _, err := parse(fs, args, 0, 0); err != nil {
		return err
	}
	if *out == "" {
		return usagef("snapshot needs -o FILE")
	}
	chosen := 0
	for _, p := range []int{*pyPID, *nodePID, *javaPID} {
		if p != 0 {
			chosen++
		}
	}
	if chosen != 1 {
		return usagef("snapshot needs exactly one of --python PID, --node PID and --java PID")
	}
	if !*values && *javaPID != 0 {
		return usagef("--values=false is for --python and --node: the JVM writes its dump itself, with every value")
	}
	if *pyPID == 0 && (*census || *noCollect || *maxValue != 64) {
		return usagef("--census, --no-collect and --max-value-len are for --python")
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
	ctx, cleanup, caught, stop := interruptible(ctx, stderr, risk)
	defer stop()
	var err error
	switch {
	case *pyPID != 0:
		err = pythonSnapshot(ctx, *pyPID, *out, attach.Options{
			Census: *census, NoValues: !*values, MaxValueLen: *maxValue, NoCollect: *noCollect, Cleanup: cleanup,
			Waiting: func() {
				fmt.Fprintf(stderr, "heapscope: waiting for the main thread of process %d to run Python code (it is in a long call: sleep, join, read?)\n", *pyPID)
			},
		})
	case *javaPID != 0:
		err = javaSnapshot(ctx, *javaPID, *out)
	default:
		err = withProgress(stderr, "taking a heap snapshot of node "+fmt.Sprint(*nodePID), func() error {
			return nodeSnapshot(ctx, *nodePID, *out, inspector.Options{NoValues: !*values, Cleanup: cleanup})
		})
	}
	if s := caught(); s != 0 && err != nil {
		return &exitError{code: 128 + int(s), msg: fmt.Sprintf("interrupted by %v; no snapshot written (%v)", s, err)}
	}
	if errors.Is(err, inspector.ErrNotNode) || errors.Is(err, errNotJVM) || errors.Is(err, attach.ErrNotPython) {
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
	return nil
}

// interruptible returns ctx cancelled by SIGINT or SIGTERM; a context
// for the cleanup after the capture, cancelled by a second signal; a
// function that tells which signal came first (0 if none); and one that
// stops catching them. On the first signal the capture ends its own way:
// Node is left to finish the snapshot it is writing, then its inspector
// is closed, and the temporary file removed before heapscope exits. A
// second signal stops the waiting (risk, if not "", says at what cost);
// a third ends heapscope at once.
func interruptible(ctx context.Context, stderr io.Writer, risk string) (capture, cleanup context.Context, caught func() syscall.Signal, stop func()) {
	capture, cancelCapture := context.WithCancel(ctx)
	cleanup, cancelCleanup := context.WithCancel(context.Background())
	sigs := make(chan os.Signal, 2)
	signal.Notify(sigs, syscall.SIGINT, syscall.SIGTERM)
	first := make(chan syscall.Signal, 1)
	done := make(chan struct{})
	go func() {
		for n := 0; ; n++ {
			select {
			case s := <-sigs:
				if n == 0 {
					first <- s.(syscall.Signal)
					fmt.Fprintf(stderr, "heapscope: %v: stopping the capture and cleaning up (again to stop waiting%s)\n", s, risk)
					cancelCapture()
					continue
				}
				fmt.Fprintf(stderr, "heapscope: %v: not waiting for the cleanup\n", s)
				signal.Stop(sigs)
				cancelCleanup()
				return
			case <-done:
				return
			}
		}
	}()
	var sig syscall.Signal
	caught = func() syscall.Signal {
		select {
		case s := <-first:
			sig = s
		default:
		}
		return sig
	}
	stop = func() {
		close(done)
		signal.Stop(sigs)
		cancelCapture()
		cancelCleanup()
	}
	return capture, cleanup, caught, stop
}

// nodeSnapshot streams a snapshot of a Node process into path, through a
// temporary file (mode 0600) in the same directory, so that a failed or
// interrupted capture never leaves a file that looks whole, nor the
// temporary file.
func nodeSnapshot(ctx context.Context, pid int, path string, opt inspector.Options) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), ".heapscope-*.tmp")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	serr := inspector.Snapshot(ctx, pid, tmp, opt)
	if _, onlyClose := serr.(*inspector.CloseError); serr != nil && !onlyClose {
		tmp.Close()
		if errors.Is(serr, inspector.ErrNotNode) {
			return serr // it says which process
		}
		return fmt.Errorf("node %d: %w", pid, serr)
	}
	// Either no error, or only the inspector's close failed (returned
	// as it is): the snapshot is whole.
	if err := tmp.Close(); err != nil {
		return err
	}
	f, err := os.Open(tmp.Name())
	if err != nil {
		return err
	}
	var prefix [64]byte
	n, _ := io.ReadFull(f, prefix[:])
	f.Close()
	if !heapsnapshot.Match(prefix[:n]) {
		return errors.Join(fmt.Errorf("node %d: the inspector sent something that is not a heap snapshot", pid), serr)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return err
	}
	return serr
}

// pythonSnapshot has the CPython process pid take a snapshot with
// heapscope's agent (package attach) and puts it at path.
func pythonSnapshot(ctx context.Context, pid int, path string, opt attach.Options) error {
	_, err := attach.Snapshot(ctx, pid, path, opt)
	return err
}

// errNotJVM is wrapped by the error for a pid that is not a JVM that
// jcmd can safely attach to.
var errNotJVM = errors.New("not a JVM")

// checkJVM returns nil if process pid is a HotSpot JVM that jcmd can
// attach to without harm. jcmd asks a JVM to start its attach listener
// with SIGQUIT, whose default action ends (and core dumps) any process
// that does not handle it: a JVM started with -Xrs, or another program.
// Where /proc is missing it cannot tell and returns nil.
func checkJVM(pid int) error {
	if _, err := os.Stat("/proc/self/status"); err != nil {
		return nil
	}
	dir := "/proc/" + strconv.Itoa(pid)
	status, err := os.ReadFile(dir + "/status")
	if err != nil {
		return fmt.Errorf("no process %d: %w", pid, errNotJVM)
	}
	exe, err := os.Readlink(dir + "/exe")
	if err != nil {
		return fmt.Errorf("cannot tell what process %d runs (%v); heapscope attaches only to processes it knows are JVMs: %w", pid, err, errNotJVM)
	}
	maps, _ := os.ReadFile(dir + "/maps")
	if filepath.Base(strings.TrimSuffix(exe, " (deleted)")) != "java" && !bytes.Contains(maps, []byte("/libjvm.so")) {
		return fmt.Errorf("process %d runs %s, not a JVM; jcmd's SIGQUIT would end it: %w", pid, exe, errNotJVM)
	}
	var caught uint64
	var nspid string
	for _, l := range strings.Split(string(status), "\n") {
		if v, ok := strings.CutPrefix(l, "SigCgt:"); ok {
			caught, _ = strconv.ParseUint(strings.TrimSpace(v), 16, 64)
		}
		if v, ok := strings.CutPrefix(l, "NSpid:"); ok {
			if f := strings.Fields(v); len(f) > 0 {
				nspid = f[len(f)-1]
			}
		}
	}
	clearStaleAttachFile(dir, nspid)
	const sigquit = 3
	if caught&(1<<(sigquit-1)) == 0 {
		// Without a SIGQUIT handler (-Xrs), only an attach listener that
		// is already running can take the request.
		if _, err := os.Stat(dir + "/root/tmp/.java_pid" + nspid); err != nil {
			return fmt.Errorf("JVM %d does not handle SIGQUIT (-Xrs?) and has no attach listener running, so jcmd's SIGQUIT would end it: %w", pid, errNotJVM)
		}
	}
	return nil
}

// clearStaleAttachFile removes the attach socket that an earlier process
// with the same pid left behind (dir is /proc/PID, nspid the pid as the
// process sees it). A JVM killed without running its exit (SIGKILL, the
// out-of-memory killer) leaves /tmp/.java_pidN, and when the system
// gives N to a new JVM, jcmd finds the file, connects without waking the
// JVM, and fails with "Connection refused"; and a JVM run with -Xrs would
// seem to have a listener running. A socket file is stale when it is
// older than the process: made over two seconds before it started.
func clearStaleAttachFile(dir, nspid string) {
	path := dir + "/root/tmp/.java_pid" + nspid
	fi, err := os.Lstat(path)
	if err != nil || fi.Mode().Type() != os.ModeSocket {
		return
	}
	if start, ok := processStart(dir); ok && fi.ModTime().Before(start.Add(-2*time.Second)) {
		os.Remove(path)
	}
}

// processStart returns when the process of /proc/PID dir started: its
// start time in /proc/PID/stat, in clock ticks since boot, after the boot
// time in /proc/stat. A tick is 1/100 s: USER_HZ, which the kernel uses
// for /proc on every architecture Go runs Linux on.
func processStart(dir string) (time.Time, bool) {
	stat, err := os.ReadFile(dir + "/stat")
	if err != nil {
		return time.Time{}, false
	}
	i := bytes.LastIndexByte(stat, ')')
	if i < 0 {
		return time.Time{}, false
	}
	f := strings.Fields(string(stat[i+1:])) // from field 3, the state
	if len(f) < 20 {
		return time.Time{}, false
	}
	ticks, err := strconv.ParseUint(f[19], 10, 64) // field 22, starttime
	if err != nil {
		return time.Time{}, false
	}
	all, err := os.ReadFile("/proc/stat")
	if err != nil {
		return time.Time{}, false
	}
	for _, l := range strings.Split(string(all), "\n") {
		if v, ok := strings.CutPrefix(l, "btime "); ok {
			boot, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
			if err != nil {
				return time.Time{}, false
			}
			return time.Unix(boot, 0).Add(time.Duration(ticks) * 10 * time.Millisecond), true
		}
	}
	return time.Time{}, false
}

// hprofMagic starts every HPROF file ("JAVA PROFILE 1.0.2\0").
const hprofMagic = "JAVA PROFILE 1.0."

// javaSnapshot has jcmd make the JVM pid dump its heap into a temporary
// file next to path, checks that an HPROF file was written (jcmd exits 0
// when the JVM could not write it), makes it 0600 and renames it into
// place. The JVM writes the file itself, as the JVM's user, in its own
// view of the file system. If ctx ends first, it still waits for jcmd:
// the JVM goes on writing, and the file is removed only when it is done.
func javaSnapshot(ctx context.Context, pid int, path string) error {
	if err := checkJVM(pid); err != nil {
		return err
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return err
	}
	var nonce [8]byte
	rand.Read(nonce[:])
	tmp := filepath.Join(filepath.Dir(abs), ".heapscope-"+hex.EncodeToString(nonce[:])+".hprof.tmp")
	defer os.Remove(tmp)
	var msg bytes.Buffer
	cmd := exec.Command("jcmd", strconv.Itoa(pid), "GC.heap_dump", tmp)
	cmd.Stdout, cmd.Stderr = &msg, &msg
	// In its own process group, so that a Ctrl-C at the terminal reaches
	// heapscope alone, which waits for the dump to end before removing
	// it: jcmd killed first, the JVM could create the file after that.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("jcmd: %w", err)
	}
	waited := make(chan error, 1)
	go func() { waited <- cmd.Wait() }()
	var runErr error
	select {
	case runErr = <-waited:
	case <-ctx.Done():
		runErr = <-waited
		if runErr == nil {
			runErr = ctx.Err()
		}
	}
	said := strings.TrimSpace(msg.String())
	if runErr != nil {
		return fmt.Errorf("jcmd %d GC.heap_dump: %w: %s", pid, runErr, said)
	}
	if _, err := os.Stat(tmp); err != nil {
		return fmt.Errorf("jcmd %d GC.heap_dump wrote no dump: %s", pid, said)
	}
	if !isHPROF(tmp) {
		return fmt.Errorf("jcmd %d GC.heap_dump wrote no HPROF dump: %s", pid, said)
	}
	if err := os.Chmod(tmp, 0o600); err != nil {
		return err
	}
	return os.Rename(tmp, abs)
}
