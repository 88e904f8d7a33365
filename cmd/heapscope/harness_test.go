package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/heapscope/heapscope/agent"
)

var (
	binOnce sync.Once
	binPath string
	binErr  error
)

// heapscopeBinary builds the heapscope command once for the tests that
// run it as a separate program (the Python harness calls it).
func heapscopeBinary(t *testing.T) string {
	t.Helper()
	binOnce.Do(func() {
		dir, err := os.MkdirTemp("", "heapscope-bin-")
		if err != nil {
			binErr = err
			return
		}
		binPath = filepath.Join(dir, "heapscope")
		out, err := exec.Command("go", "build", "-o", binPath, ".").CombinedOutput()
		if err != nil {
			binErr = err
			binPath = string(out)
		}
	})
	if binErr != nil {
		t.Fatalf("go build: %v\n%s", binErr, binPath)
	}
	return binPath
}

// TestPythonHarness runs the leak-check harness on real Python workloads:
// a leak fails with its path and retained bytes; a bounded cache and a
// cache that fills once pass.
func TestPythonHarness(t *testing.T) {
	if _, err := exec.LookPath("python3"); err != nil {
		t.Skip("python3 is not installed")
	}
	bin := heapscopeBinary(t)
	pp, err := agent.Dir()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("python3", filepath.Join("testdata", "harness.py"))
	cmd.Env = append(os.Environ(), "PYTHONPATH="+pp, "HEAPSCOPE_BIN="+bin)
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("harness.py: %v\n%s", err, out)
	}
	got := map[string]struct {
		Leak bool
		Text string
	}{}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		var r struct {
			Name string
			Leak bool
			Text string
		}
		if err := json.Unmarshal([]byte(line), &r); err != nil {
			t.Fatalf("bad line %q: %v", line, err)
		}
		got[r.Name] = struct {
			Leak bool
			Text string
		}{r.Leak, r.Text}
	}
	for _, name := range []string{"leaky", "context"} {
		r := got[name]
		if !r.Leak {
			t.Errorf("%s: no leak reported", name)
			continue
		}
		for _, want := range []string{"40 __main__.Session in dict at module __main__.registry", "module __main__ -> .registry dict -> [*] __main__.Session", "retaining"} {
			if !strings.Contains(r.Text, want) {
				t.Errorf("%s: the failure does not say %q:\n%s", name, want, r.Text)
			}
		}
	}
	for _, name := range []string{"bounded", "fill_once"} {
		if r := got[name]; r.Leak {
			t.Errorf("%s: reported as a leak:\n%s", name, r.Text)
		}
	}
}

// pytestPython returns a python3 that can import pytest, or "".
func pytestPython() string {
	for _, py := range []string{"python3", "/usr/bin/python3"} {
		if exec.Command(py, "-c", "import pytest").Run() == nil {
			return py
		}
	}
	return ""
}

// TestPytestPlugin runs pytest with heapscope's plugin on a file with a
// leaking and a clean test for the marker and for the fixture: the
// leaking ones fail with the leak's path, the clean ones pass.
func TestPytestPlugin(t *testing.T) {
	py := pytestPython()
	if py == "" {
		t.Skip("pytest is not installed (Debian: python3-pytest)")
	}
	bin := heapscopeBinary(t)
	pp, err := agent.Dir()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(py, "-m", "pytest", "-p", "heapscope.pytest_plugin", "-q", "-p", "no:cacheprovider",
		filepath.Join("testdata", "test_pytest_plugin.py"))
	cmd.Env = append(os.Environ(), "PYTHONPATH="+pp, "HEAPSCOPE_BIN="+bin)
	out, _ := cmd.CombinedOutput()
	text := string(out)
	if !strings.Contains(text, "2 failed, 2 passed") {
		t.Fatalf("want 2 failed, 2 passed:\n%s", text)
	}
	for _, want := range []string{"FAILED", "test_marker_leaks", "test_fixture_leaks", "-> .held list -> [*] test_pytest_plugin.Record"} {
		if !strings.Contains(text, want) {
			t.Errorf("pytest output lacks %q:\n%s", want, text)
		}
	}
}
