package jvm

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
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/heapscope/heapscope/capture"
)

// ErrNotJVM is wrapped by the error for a pid that is not a JVM that
// jcmd can safely attach to.
var ErrNotJVM = errors.New("not a JVM")

// Check returns nil if process pid is a HotSpot JVM that jcmd can
// attach to without harm. jcmd asks a JVM to start its attach listener
// with SIGQUIT, whose default action ends (and core dumps) any process
// that does not handle it: a JVM started with -Xrs, or another program.
// Where /proc is missing it cannot tell and returns nil.
func Check(pid int) error {
	if _, err := os.Stat("/proc/self/status"); err != nil {
		return nil
	}
	dir := "/proc/" + strconv.Itoa(pid)
	status, err := os.ReadFile(dir + "/status")
	if err != nil {
		return fmt.Errorf("no process %d: %w", pid, ErrNotJVM)
	}
	exe, err := os.Readlink(dir + "/exe")
	if err != nil {
		return fmt.Errorf("cannot tell what process %d runs (%v); heapscope attaches only to processes it knows are JVMs: %w", pid, err, ErrNotJVM)
	}
	maps, _ := os.ReadFile(dir + "/maps")
	if filepath.Base(strings.TrimSuffix(exe, " (deleted)")) != "java" && !bytes.Contains(maps, []byte("/libjvm.so")) {
		return fmt.Errorf("process %d runs %s, not a JVM; jcmd's SIGQUIT would end it: %w", pid, exe, ErrNotJVM)
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
			return fmt.Errorf("JVM %d does not handle SIGQUIT (-Xrs?) and has no attach listener running, so jcmd's SIGQUIT would end it: %w", pid, ErrNotJVM)
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
	if start, ok := capture.ProcessStart(dir); ok && fi.ModTime().Before(start.Add(-2*time.Second)) {
		os.Remove(path)
	}
}

// hprofMagic starts every HPROF file ("JAVA PROFILE 1.0.2\0").
const hprofMagic = "JAVA PROFILE 1.0."

// Snapshot has jcmd make the JVM pid dump its heap into a temporary
// file next to path, checks that an HPROF file was written (jcmd exits 0
// when the JVM could not write it), makes it 0600 and renames it into
// place; a dump cut short (the JVM's write failed: a full disk) is an
// error, and the file is removed. The JVM writes the file itself, as the JVM's user, in its own
// view of the file system. If ctx ends first, it still waits for jcmd:
// the JVM goes on writing, and the file is removed only when it is done.
func Snapshot(ctx context.Context, pid int, path string) error {
	if err := Check(pid); err != nil {
		return err
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return err
	}
	var nonce [8]byte
	rand.Read(nonce[:])
	capture.Sweep(filepath.Dir(abs), false)
	tmp := capture.TempName(filepath.Dir(abs), ".heapscope-", hex.EncodeToString(nonce[:]), ".hprof.tmp")
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
	if !IsHPROF(tmp) {
		return fmt.Errorf("jcmd %d GC.heap_dump wrote no HPROF dump: %s", pid, said)
	}
	if err := checkComplete(tmp); err != nil {
		// The JVM could not write it all (a full disk), and said so
		// at most in its own output; the cut file is removed.
		return fmt.Errorf("jcmd %d GC.heap_dump wrote a dump cut short, which was removed: %v%s (jcmd said: %s)", pid, err, freeSpace(filepath.Dir(abs)), said)
	}
	if err := os.Chmod(tmp, 0o600); err != nil {
		return err
	}
	return os.Rename(tmp, abs)
}

// IsHPROF reports whether the file at path starts as an HPROF dump.
func IsHPROF(path string) bool {
	f, err := os.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	var head [len(hprofMagic)]byte
	_, err = io.ReadFull(f, head[:])
	return err == nil && string(head[:]) == hprofMagic
}
