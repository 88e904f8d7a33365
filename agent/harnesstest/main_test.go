package harnesstest

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/heapscope/heapscope/agent"
)

// bin is the heapscope program, built by TestMain: the harness runs it
// as a separate program, as it does for users.
var bin string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "heapscope-harnesstest-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	bin = filepath.Join(dir, "heapscope")
	out, err := exec.Command("go", "build", "-o", bin, "github.com/heapscope/heapscope/cmd/heapscope").CombinedOutput()
	code := 1
	if err != nil {
		fmt.Fprintf(os.Stderr, "go build: %v\n%s", err, out)
	} else {
		code = m.Run()
	}
	os.RemoveAll(dir)
	os.Exit(code)
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

// needPytest returns pytestPython() or skips the test.
func needPytest(t *testing.T) string {
	t.Helper()
	py := pytestPython()
	if py == "" {
		t.Skip("pytest is not installed (Debian: python3-pytest)")
	}
	return py
}

// cleanEnv is the environment without anything that points Python or
// pytest at heapscope, with PATH set to path.
func cleanEnv(path string, extra ...string) []string {
	var env []string
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		if k == "PATH" || k == "PYTHONPATH" || k == "PYTEST_ADDOPTS" || k == "PYTEST_PLUGINS" || strings.HasPrefix(k, "HEAPSCOPE_") {
			continue
		}
		env = append(env, kv)
	}
	return append(append(env, "PATH="+path, "PYTHONDONTWRITEBYTECODE=1"), extra...)
}

// harnessEnv is the environment of a run with the heapscope package on
// PYTHONPATH (not installed) and the program in HEAPSCOPE_BIN.
func harnessEnv(t *testing.T) []string {
	t.Helper()
	pp, err := agent.Dir()
	if err != nil {
		t.Fatal(err)
	}
	return cleanEnv(os.Getenv("PATH"), "PYTHONPATH="+pp, "HEAPSCOPE_BIN="+bin)
}

// runIn runs a command in dir and returns its combined output and exit
// status; it fails the test if the command cannot start.
func runIn(t *testing.T, dir string, env []string, name string, args ...string) (string, int) {
	t.Helper()
	cmd := exec.Command(name, args...)
	cmd.Dir, cmd.Env = dir, env
	out, err := cmd.CombinedOutput()
	var ee *exec.ExitError
	switch {
	case err == nil:
		return string(out), 0
	case errors.As(err, &ee):
		return string(out), ee.ExitCode()
	}
	t.Fatalf("%s %s: %v\n%s", name, strings.Join(args, " "), err, out)
	return "", 0
}

// must runs a command that must succeed and returns its output.
func must(t *testing.T, dir string, env []string, name string, args ...string) string {
	t.Helper()
	out, code := runIn(t, dir, env, name, args...)
	if code != 0 {
		t.Fatalf("%s %s: exit %d\n%s", name, strings.Join(args, " "), code, out)
	}
	return out
}

// projectDir copies files of testdata into a new directory.
func projectDir(t *testing.T, files ...string) string {
	t.Helper()
	dir := t.TempDir()
	for _, f := range files {
		data, err := os.ReadFile(filepath.Join("testdata", f))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, filepath.Base(f)), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// wantAll fails the test for each string of want that text lacks.
func wantAll(t *testing.T, what, text string, want ...string) {
	t.Helper()
	for _, w := range want {
		if !strings.Contains(text, w) {
			t.Errorf("%s lacks %q:\n%s", what, w, text)
		}
	}
}

// failedTests lists the test ids pytest's short summary names FAILED.
func failedTests(out string) []string {
	var ids []string
	for _, line := range strings.Split(out, "\n") {
		if id, ok := strings.CutPrefix(line, "FAILED "); ok {
			id, _, _ = strings.Cut(id, " ")
			ids = append(ids, id)
		}
	}
	slices.Sort(ids)
	return ids
}
