package main

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"
)

// TestSympyCleanCheck runs a real sympy workload that keeps nothing
// (testdata/sympyclean.py): check passes it. sympy's lru_caches fill as
// it runs (bounded), the assumptions sympy computes on first use for the
// numbers in them are set once per number the baseline had (bounded,
// per object), and what grew only from baseline to target stopped
// growing; check failed on five findings of these before. --strict
// fails on what stopped growing, when there is some, and only on it.
func TestSympyCleanCheck(t *testing.T) {
	py := debianPython(t, "sympy")
	dir := t.TempDir()
	runPythonWith(t, py, "sympyclean.py", dir)
	snaps := []string{filepath.Join(dir, "a.pysnap"), filepath.Join(dir, "b.pysnap"), filepath.Join(dir, "c.pysnap")}
	var out bytes.Buffer
	if err := run(append([]string{"check"}, snaps...), &out, &bytes.Buffer{}); err != nil {
		t.Fatalf("check of a clean sympy workload: %v\n%s", err, out.String())
	}
	var rep leakRows
	runJSON(t, &rep, append([]string{"leaks", "--json", "--top", "0"}, snaps...)...)
	stopped, perObject := 0, 0
	for _, r := range rep.Rows {
		switch {
		case r.Verdict == "grows":
			t.Errorf("a clean workload grows: %s", r.Text)
		case r.Verdict == "stopped":
			stopped++
		case r.Bound != nil && r.Bound.Kind == "per-object":
			perObject++
		}
	}
	if perObject == 0 {
		t.Errorf("no finding set once per object: the test checks that bound on nothing\n%s", out.String())
	}
	out.Reset()
	err := run(append([]string{"check", "--strict"}, snaps...), &out, &bytes.Buffer{})
	if fails := strings.Count(out.String(), "\nleak: "); (stopped > 0) != (exitCode(err) == 1) || fails != stopped {
		t.Errorf("check --strict: exit %d, %d leaks, with %d findings that stopped growing\n%s", exitCode(err), fails, stopped, out.String())
	}
}
