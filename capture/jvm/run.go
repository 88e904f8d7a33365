package jvm

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"syscall"
	"time"

	"github.com/heapscope/heapscope/capture"
)

// heapscope run -- java ...: the JVM has no agent of heapscope's to take
// snapshots on a signal or a timer, so heapscope has jcmd ask it for a
// dump (jcmd PID GC.heap_dump, as snapshot --java does) when heapscope
// receives the snapshot signal and every --every; the signal is not
// passed on (HotSpot uses some signals itself). --at-exit loads a small
// Java agent (agent.go) whose shutdown hook dumps the heap when the
// JVM exits. Dumps are named NNNN-PID-REASON.hprof, as the Python and
// Node agents name theirs.

// IsLauncher reports whether prog is the JVM launcher.
func IsLauncher(prog string) bool {
	b := filepath.Base(prog)
	return b == "java" || b == "java.exe"
}

// Run takes the dumps of one JVM that heapscope run started.
type Run struct {
	dir     string // the snapshot directory
	tmpDir  string // holds the agent's jar; "" without --at-exit
	exitTmp string // where the agent dumps the heap at exit

	// Census, when set, makes each snapshot asked for a class histogram
	// (see [Histogram]) handed to it, with when it was taken, instead of
	// a dump.
	Census func(rows []ClassCount, taken time.Time, err error)

	pid    int
	stderr io.Writer
	seq    int // dumps named so far
	reqs   chan string
	done   chan struct{}
	stop   chan struct{}
	timer  sync.WaitGroup
}

// NewRun prepares the dumps into dir: with atExit, the agent's jar
// in a private temporary directory.
func NewRun(dir string, atExit bool) (*Run, error) {
	j := &Run{dir: dir}
	if !atExit {
		return j, nil
	}
	jar, err := exitDumpJar()
	if err != nil {
		return nil, err
	}
	capture.Sweep(os.TempDir(), false)
	if j.tmpDir, err = capture.MkdirTemp(os.TempDir(), "heapscope-run-"); err != nil {
		return nil, err
	}
	if err := os.WriteFile(filepath.Join(j.tmpDir, "exitdump.jar"), jar, 0o600); err != nil {
		j.Cleanup()
		return nil, err
	}
	var nonce [8]byte
	rand.Read(nonce[:])
	// The JVM's dumpHeap wants a name that ends in .hprof.
	j.exitTmp = capture.TempName(dir, ".heapscope-exit-", hex.EncodeToString(nonce[:]), ".tmp.hprof")
	return j, nil
}

// Command returns the command line that starts the JVM: with the agent
// when there is one.
func (j *Run) Command(args []string) []string {
	if j.tmpDir == "" {
		return args
	}
	agent := "-javaagent:" + filepath.Join(j.tmpDir, "exitdump.jar") + "=" + j.exitTmp
	return append([]string{args[0], agent}, args[1:]...)
}

// Start begins to take dumps of the JVM pid when asked, and every
// interval if it is not 0.
func (j *Run) Start(pid int, every time.Duration, stderr io.Writer) {
	j.pid, j.stderr = pid, stderr
	j.reqs = make(chan string, 1)
	j.done = make(chan struct{})
	j.stop = make(chan struct{})
	go func() {
		defer close(j.done)
		for reason := range j.reqs {
			if j.Census != nil {
				t := time.Now()
				rows, err := Histogram(context.Background(), pid)
				j.Census(rows, t, err)
				continue
			}
			j.seq++
			name := fmt.Sprintf("%04d-%d-%s.hprof", j.seq, pid, reason)
			if err := Snapshot(context.Background(), pid, filepath.Join(j.dir, name)); err != nil {
				fmt.Fprintf(stderr, "heapscope: no %s dump: %v\n", reason, err)
			}
		}
	}()
	if every > 0 {
		j.timer.Add(1)
		go func() {
			defer j.timer.Done()
			t := time.NewTicker(every)
			defer t.Stop()
			for {
				select {
				case <-t.C:
					j.Request("interval")
				case <-j.stop:
					return
				}
			}
		}()
	}
}

// Request asks for a dump; one waits while another is taken, and
// requests beyond that are dropped.
func (j *Run) Request(reason string) {
	select {
	case j.reqs <- reason:
	default:
		fmt.Fprintf(j.stderr, "heapscope: a dump is being taken; no %s dump\n", reason)
	}
}

// Finish waits for the dumps under way once the JVM has ended (waitErr
// is its Wait error), and puts its exit dump in place: only a JVM that
// ended its own way (not killed by a signal) ran its shutdown hooks to
// the end.
func (j *Run) Finish(waitErr error, stderr io.Writer) {
	close(j.stop)
	j.timer.Wait()
	close(j.reqs)
	<-j.done
	if j.exitTmp == "" {
		return
	}
	defer os.Remove(j.exitTmp)
	if ee, ok := waitErr.(*exec.ExitError); ok && ee.Sys().(syscall.WaitStatus).Signaled() {
		fmt.Fprintf(stderr, "heapscope: no exit dump: the JVM was killed (%v)\n", ee.Sys().(syscall.WaitStatus).Signal())
		return
	}
	if !IsHPROF(j.exitTmp) {
		fmt.Fprintf(stderr, "heapscope: no exit dump: the JVM wrote none\n")
		return
	}
	j.seq++
	final := filepath.Join(j.dir, fmt.Sprintf("%04d-%d-exit.hprof", j.seq, j.pid))
	if err := os.Chmod(j.exitTmp, 0o600); err != nil {
		fmt.Fprintf(stderr, "heapscope: no exit dump: %v\n", err)
		return
	}
	if err := os.Rename(j.exitTmp, final); err != nil {
		fmt.Fprintf(stderr, "heapscope: no exit dump: %v\n", err)
	}
}

// Cleanup removes the agent's jar.
func (j *Run) Cleanup() {
	if j.tmpDir != "" {
		os.RemoveAll(j.tmpDir)
	}
}
