package attach

import (
	"bufio"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/heapscope/heapscope/internal/heaptest"
)

// python returns a CPython 3.9+ to test with.
func python(t *testing.T) string {
	t.Helper()
	for _, p := range []string{"/root/.pyenv/versions/3.12.1/bin/python3", "/usr/bin/python3"} {
		if _, err := os.Stat(p); err == nil {
			return p
		}
	}
	p, err := exec.LookPath("python3")
	if err != nil {
		t.Skip("no python3")
	}
	return p
}

// start runs python with args until the test ends, waiting for "ready".
func start(t *testing.T, py string, args ...string) *exec.Cmd {
	t.Helper()
	cmd := exec.Command(py, args...)
	stdin, _ := cmd.StdinPipe()
	out, _ := cmd.StdoutPipe()
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { stdin.Close(); cmd.Process.Kill(); cmd.Wait() })
	if l, err := bufio.NewReader(out).ReadString('\n'); err != nil || l != "ready\n" {
		t.Fatalf("%s did not start: %q %v", py, l, err)
	}
	return cmd
}

// TestInspect tells CPython from other programs by the C API they export.
func TestInspect(t *testing.T) {
	py := python(t)
	cmd := start(t, py, "-c", "import time; print('ready', flush=True); time.sleep(60)")
	p, err := Inspect(cmd.Process.Pid)
	if err != nil {
		t.Fatal(err)
	}
	if p.Lib == "" || !strings.HasPrefix(p.Version, "3.") || p.UID != os.Geteuid() {
		t.Errorf("Inspect = %+v", p)
	}
	if _, err := Inspect(os.Getpid()); !errors.Is(err, ErrNotPython) {
		t.Errorf("Inspect(the test) = %v, want ErrNotPython", err)
	}
	if _, err := Inspect(1 << 30); !errors.Is(err, ErrNotPython) {
		t.Errorf("Inspect(no process) = %v, want ErrNotPython", err)
	}
}

// TestPtraceScope: Yama's scope 3 refuses everyone, before gdb runs.
func TestPtraceScope(t *testing.T) {
	f := filepath.Join(t.TempDir(), "scope")
	old := yamaScope
	yamaScope = f
	t.Cleanup(func() { yamaScope = old })
	p := &Process{PID: os.Getpid(), UID: os.Geteuid()}
	for scope, refused := range map[string]bool{"0\n": false, "3\n": true} {
		os.WriteFile(f, []byte(scope), 0o600)
		var pe *PermissionError
		if err := checkTrace(p); errors.As(err, &pe) != refused {
			t.Errorf("scope %q: %v, want refused %v", scope, err, refused)
		}
	}
}

// TestPyBytes: any path survives the trip into a Python literal.
func TestPyBytes(t *testing.T) {
	py := python(t)
	s := "/tmp/a b'c\"d\\e\n\xff\x00é/x"
	out, err := exec.Command(py, "-c", "import sys; sys.stdout.buffer.write("+pyBytes(s)+")").Output()
	if err != nil || string(out) != s {
		t.Errorf("python read %q (%v), want %q", out, err, s)
	}
}

// pythons returns the CPython 3.9+ interpreters of the machine.
func pythons(t *testing.T) []string {
	t.Helper()
	if out := heaptest.Pythons(); len(out) > 0 {
		return out
	}
	return []string{python(t)}
}

// TestNoUserCode attaches, on every Python of the machine, with
// heapscope's own calls and with gdb, to a program whose globals shadow
// the builtins, whose import hook records every call and whose directory
// holds modules named like standard ones the agent imports: none of its
// code runs, and the snapshot is taken.
func TestNoUserCode(t *testing.T) {
	_, gdbErr := exec.LookPath("gdb")
	for _, py := range pythons(t) {
		for _, useGDB := range []bool{false, true} {
			method := "ptrace"
			if useGDB || !ownCalls {
				method = "gdb"
			}
			t.Run(filepath.Base(filepath.Dir(filepath.Dir(py)))+"/"+method, func(t *testing.T) {
				if method == "gdb" && gdbErr != nil {
					t.Skip("no gdb")
				}
				t.Parallel()
				dir := t.TempDir()
				mark := filepath.Join(dir, "mark")
				cmd := start(t, py, "testdata/hostile.py", mark)
				out := filepath.Join(dir, "x.pysnap")
				ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
				defer cancel()
				res, err := Snapshot(ctx, cmd.Process.Pid, out, Options{UseGDB: useGDB})
				if b, err := os.ReadFile(mark); err == nil {
					t.Errorf("the program's code ran:\n%s", b)
				}
				if err != nil {
					t.Fatal(err)
				}
				if fi, err := os.Stat(out); err != nil || fi.Mode().Perm() != 0o600 {
					t.Errorf("snapshot: %v %v", fi, err)
				}
				// Without Fork, the main thread ran the whole capture.
				if res.Method != method || res.Injection <= 0 || res.Capture <= 0 || res.Pause != res.Capture {
					t.Errorf("Result = %+v, want method %s", res, method)
				}
			})
		}
	}
}
