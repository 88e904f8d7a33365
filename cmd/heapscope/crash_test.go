//go:build linux

package main

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/heapscope/heapscope/agent"
	"github.com/heapscope/heapscope/internal/crash"
)

// TestSupervisor runs the real heapscope binary (built with the
// commands that crash on purpose, -tags crashtest) and checks its exit
// statuses: misuse 2, failure 1, a panic or fatal error 1, a real out of
// memory 1 with a message (check: 3, could not check), the program's own
// status for run (which is not supervised); and its signals: those sent
// to heapscope reach the command; a child killed ends the parent with 1;
// a parent killed takes the child with it.
func TestSupervisor(t *testing.T) {
	dir := t.TempDir()
	bin := filepath.Join(dir, "heapscope")
	build := exec.Command("go", "build", "-tags", "crashtest", "-o", bin, ".")
	// Without cgo the runtime starts in less memory: the out-of-memory
	// test can then set a limit that leaves room for the start.
	build.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	rich := filepath.Join("testdata", "rich.pysnap")

	t.Run("exit status", func(t *testing.T) {
		tests := []struct {
			args   []string
			code   int
			stderr string
		}{
			{[]string{"help"}, 0, ""},
			{[]string{"summary", rich}, 0, ""},
			{[]string{"nosuchcommand"}, 2, "heapscope: unknown command"},
			{[]string{"summary"}, 2, "run 'heapscope help'"},
			{[]string{"summary", filepath.Join(dir, "missing.pysnap")}, 1, "no such file"},
			{[]string{"_panic"}, 1, "heapscope: crashed while testing a panic: this is a bug in heapscope"},
			{[]string{"_deadlock"}, 1, "heapscope: crashed while testing a fatal error"},
			// A marker inherited from elsewhere does not make a child.
			{[]string{"env", "HEAPSCOPE_CHILD=1", bin, "_panic"}, 1, "heapscope: crashed while testing a panic"},
			// run (which runs unsupervised) leaves with its program's
			// status, 2 included.
			{[]string{"run", "-o", dir, "--at-exit", "--census", "--", "python3", "-c", "import sys; sys.exit(2)"}, 2, ""},
		}
		for _, tc := range tests {
			cmd := exec.Command(bin, tc.args...)
			if tc.args[0] == "env" {
				cmd = exec.Command(tc.args[0], tc.args[1:]...)
			}
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			code := exitStatus(t, cmd.Run())
			if code != tc.code || !strings.Contains(stderr.String(), tc.stderr) {
				t.Errorf("heapscope %s: exit %d, want %d; stderr:\n%s", strings.Join(tc.args, " "), code, tc.code, stderr.String())
			}
		}
	})

	t.Run("out of memory", func(t *testing.T) {
		if _, err := exec.LookPath("python3"); err != nil {
			t.Skip("python3 is not installed")
		}
		// A real Python heap of 700,000 linked objects: top on it needs
		// 160 to 200 MB of data segment (measured), the runtime starts
		// in about 75 MB: a limit of 110 MB leaves room for the start
		// and for small snapshots.
		snap := filepath.Join(dir, "chain.pysnap")
		script := "import sys, heapscope\nclass Node:\n    __slots__ = ('next',)\n    def __init__(self, n): self.next = n\n" +
			"head = None\nfor _ in range(700000): head = Node(head)\nheapscope.snapshot(sys.argv[1])\n"
		pp, err := agent.Dir()
		if err != nil {
			t.Fatal(err)
		}
		py := exec.Command("python3", "-c", script, snap)
		py.Env = append(os.Environ(), "PYTHONPATH="+pp)
		if out, err := py.CombinedOutput(); err != nil {
			t.Fatalf("python3: %v\n%s", err, out)
		}
		limited := func(args ...string) (int, string) {
			cmd := exec.Command("sh", append([]string{"-c", `ulimit -d 110000 && exec "$@"`, "sh", bin}, args...)...)
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			return exitStatus(t, cmd.Run()), stderr.String()
		}
		code, stderr := limited("top", snap)
		if code != 1 || !strings.Contains(stderr, "heapscope: out of memory while reading "+snap) {
			t.Errorf("top on a snapshot too big for the limit: exit %d, want 1 with a message; stderr ends:\n%s", code, tail(stderr))
		}
		// For check, 1 is a leak: a check that could not run is 3.
		code, stderr = limited("check", snap, snap, snap)
		if code != 3 || !strings.Contains(stderr, "heapscope: out of memory while reading "+snap) {
			t.Errorf("check on a snapshot too big for the limit: exit %d, want 3 with a message; stderr ends:\n%s", code, tail(stderr))
		}
		if code, stderr := limited("summary", rich); code != 0 {
			t.Errorf("summary of a small snapshot under the same limit: exit %d\n%s", code, tail(stderr))
		}
		if code, stderr := limited("top"); code != 2 {
			t.Errorf("misuse under the same limit: exit %d, want 2\n%s", code, tail(stderr))
		}
	})

	t.Run("signals", func(t *testing.T) {
		// SIGTERM to heapscope ends the command, and heapscope dies of
		// it too.
		cmd, child := startChild(t, bin, "_sleep")
		cmd.Process.Signal(syscall.SIGTERM)
		err := cmd.Wait()
		var ee *exec.ExitError
		if !errors.As(err, &ee) || !ee.Sys().(syscall.WaitStatus).Signaled() || ee.Sys().(syscall.WaitStatus).Signal() != syscall.SIGTERM {
			t.Errorf("SIGTERM: heapscope ended with %v, want death by SIGTERM", err)
		}
		waitGone(t, child)

		// A child killed (as by the out-of-memory killer): exit 1.
		cmd, child = startChild(t, bin, "_sleep")
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		syscall.Kill(child, syscall.SIGKILL)
		if code := exitStatus(t, cmd.Wait()); code != 1 {
			t.Errorf("child killed: exit %d, want 1", code)
		}

		// The parent killed: the child goes too.
		cmd, child = startChild(t, bin, "_sleep")
		cmd.Process.Kill()
		cmd.Wait()
		waitGone(t, child)
	})

}

// startChild starts heapscope with args and returns it and the pid of
// the child that runs the command.
func startChild(t *testing.T, bin string, args ...string) (*exec.Cmd, int) {
	t.Helper()
	cmd := exec.Command(bin, args...)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill() })
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		tasks, _ := filepath.Glob(filepath.Join("/proc", strconv.Itoa(cmd.Process.Pid), "task", "*", "children"))
		for _, f := range tasks {
			b, _ := os.ReadFile(f)
			if fs := strings.Fields(string(b)); len(fs) > 0 {
				pid, _ := strconv.Atoi(fs[0])
				// Give the child time to reach its command.
				time.Sleep(200 * time.Millisecond)
				return cmd, pid
			}
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatal("heapscope started no child")
	return nil, 0
}

// waitGone waits for process pid to end (or become a zombie).
func waitGone(t *testing.T, pid int) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		b, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "stat"))
		if err != nil {
			return
		}
		if _, rest, ok := strings.Cut(string(b), ") "); ok && strings.HasPrefix(rest, "Z") {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Errorf("child %d still runs", pid)
}

// exitStatus is the exit status a command's Run or Wait error means.
func exitStatus(t *testing.T, err error) int {
	t.Helper()
	if err == nil {
		return 0
	}
	var ee *exec.ExitError
	if !errors.As(err, &ee) {
		t.Fatal(err)
	}
	return ee.ExitCode()
}

// tail is the end of a long stderr (the runtime's stacks come first).
func tail(s string) string {
	if len(s) > 2000 {
		return "..." + s[len(s)-2000:]
	}
	return s
}

// BenchmarkStartup measures what the supervisor adds to every command:
// heapscope help as a user runs it (a parent and its child) beside the
// child alone (started as the parent starts it, with the two pipes).
//
//	go test -run XXX -bench Startup -benchtime 200x ./cmd/heapscope/
func BenchmarkStartup(b *testing.B) {
	bin := filepath.Join(b.TempDir(), "heapscope")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		b.Fatalf("go build: %v\n%s", err, out)
	}
	b.Run("supervised", func(b *testing.B) {
		for range b.N {
			if err := exec.Command(bin, "help").Run(); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("child-alone", func(b *testing.B) {
		for range b.N {
			cmd := exec.Command(bin, "help")
			cmd.Env = append(os.Environ(), crash.ChildEnv+"="+strconv.Itoa(os.Getpid()))
			var rs, ws []*os.File
			for range 2 {
				r, w, err := os.Pipe()
				if err != nil {
					b.Fatal(err)
				}
				rs, ws = append(rs, r), append(ws, w)
			}
			cmd.ExtraFiles = ws
			err := cmd.Start()
			for _, w := range ws {
				w.Close()
			}
			if err == nil {
				err = cmd.Wait()
			}
			for _, r := range rs {
				r.Close()
			}
			if err != nil {
				b.Fatal(err)
			}
		}
	})
}
