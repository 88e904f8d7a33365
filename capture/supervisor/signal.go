package supervisor

import (
	"context"
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
	"github.com/heapscope/heapscope/capture/inspector"
	"github.com/heapscope/heapscope/capture/jvm"
	"github.com/heapscope/heapscope/internal/term"
)

// child is the program run started, and what heapscope does with the
// signals it receives while the program runs:
//
//   - the snapshot signal (--signal) makes the program take a snapshot:
//     a Python or Node program gets the signal, which its agent handles
//     (once it does: before, the signal would end it); for a JVM,
//     heapscope has jcmd take a dump, and the JVM gets nothing.
//   - SIGINT, SIGTERM and SIGHUP are passed on, so that the program ends
//     its own way and takes its at-exit snapshot; SIGINT and SIGHUP not
//     when heapscope is in its terminal's foreground, where the terminal
//     has sent them to the program as well. Node emits no exit event
//     when such a signal ends it (unless the program listens for the
//     signal), so with --at-exit heapscope takes a Node program's exit
//     snapshot through the inspector first. A Python program dies of an
//     unhandled SIGTERM or SIGHUP without its exit snapshot; heapscope
//     says so.
type child struct {
	cmd            *exec.Cmd
	pid            int
	snapSig        syscall.Signal // 0 for none
	java           *jvm.Run       // nil unless the program is a JVM
	atExit, values bool
	dir            string
	stderr         io.Writer
	progress       *progress // nil unless stderr is a terminal
}

func (c *child) signal(s syscall.Signal) {
	switch {
	case s == c.snapSig && c.java != nil:
		c.java.Request("signal")
	case s == c.snapSig:
		if caught, known := capture.Catches(c.pid, s); known && !caught {
			fmt.Fprintf(c.stderr, "heapscope: process %d does not handle %s (yet); not passed on\n", c.pid, capture.SignalName(s))
			return
		}
		c.progress.asked()
		c.cmd.Process.Signal(s)
	case (s == syscall.SIGINT || s == syscall.SIGHUP) && term.Foreground():
		// The terminal sent it to the program too: once is enough.
		if c.atExit && c.java == nil {
			if isNode(c.pid) {
				fmt.Fprintf(c.stderr, "heapscope: node got %s from the terminal: unless the program handles it, it ends without its at-exit snapshot\n", capture.SignalName(s))
			} else if caught, known := capture.Catches(c.pid, s); known && !caught {
				fmt.Fprintf(c.stderr, "heapscope: process %d does not handle %s: it ends without its at-exit snapshot\n", c.pid, capture.SignalName(s))
			}
		}
	default:
		if c.atExit && c.java == nil {
			if isNode(c.pid) {
				c.exitSnapshot()
			} else if caught, known := capture.Catches(c.pid, s); known && !caught {
				fmt.Fprintf(c.stderr, "heapscope: process %d does not handle %s: it ends without its at-exit snapshot\n", c.pid, capture.SignalName(s))
			}
		}
		c.cmd.Process.Signal(s)
	}
}

// isNode reports whether process pid runs node.
func isNode(pid int) bool {
	exe, err := os.Readlink("/proc/" + strconv.Itoa(pid) + "/exe")
	if err != nil {
		return false
	}
	b := filepath.Base(strings.TrimSuffix(exe, " (deleted)"))
	return b == "node" || b == "nodejs"
}

// exitSnapshot takes the at-exit snapshot of a Node program, which is
// about to get a signal that ends it without its exit event, through the
// inspector.
func (c *child) exitSnapshot() {
	name := fmt.Sprintf("%04d-%d-exit.heapsnapshot", nextSeq(c.dir, c.pid), c.pid)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	err := inspector.SnapshotFile(ctx, c.pid, filepath.Join(c.dir, name), inspector.Options{NoValues: !c.values})
	var ce *inspector.CloseError
	switch {
	case errors.As(err, &ce):
		fmt.Fprintf(c.stderr, "heapscope: %v\n", err) // the snapshot is whole
	case err != nil:
		fmt.Fprintf(c.stderr, "heapscope: no exit snapshot: %v\n", err)
	}
}

// nextSeq returns the number after the highest of the snapshots
// NNNN-PID-REASON.* of process pid in dir.
func nextSeq(dir string, pid int) int {
	entries, _ := os.ReadDir(dir)
	n := 0
	mid := "-" + strconv.Itoa(pid) + "-"
	for _, e := range entries {
		seq, rest, ok := strings.Cut(e.Name(), "-")
		if !ok || !strings.HasPrefix("-"+rest, mid) {
			continue
		}
		if v, err := strconv.Atoi(seq); err == nil && v > n {
			n = v
		}
	}
	return n + 1
}
