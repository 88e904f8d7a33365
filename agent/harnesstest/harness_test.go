package harnesstest

import (
	"encoding/json"
	"fmt"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/heapscope/heapscope/internal/heaptest"
)

// TestPythonHarness runs the leak-check harness on real Python workloads:
// a leak fails with its path and retained bytes, the cause in the first
// line; a bounded cache, a cache that fills once and an lru_cache still
// filling up to its maxsize pass, also beside a leak.
func TestPythonHarness(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("python3"); err != nil {
		t.Skip("python3 is not installed")
	}
	proj := projectDir(t, "harness.py")
	out := must(t, proj, harnessEnv(t), "python3", "harness.py")
	got := map[string]string{} // name -> failure text, for the leaks
	var names []string
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		var r struct {
			Name string
			Leak bool
			Text string
		}
		if err := json.Unmarshal([]byte(line), &r); err != nil {
			t.Fatalf("bad line %q: %v", line, err)
		}
		names = append(names, r.Name)
		if r.Leak {
			got[r.Name] = r.Text
		}
	}
	if want := []string{"leaky", "traced", "bounded", "fill_once", "filling", "leaky_filling", "lazy_history", "context"}; !slices.Equal(names, want) {
		t.Fatalf("workloads %v, want %v", names, want)
	}
	// The failure names the line that made the leak: the function and
	// line, and no frame of the check's own (the loop that calls the
	// workload) after it. With trace_alloc, from tracemalloc; without,
	// from the watch of the classes that grew, which also names the
	// callers (report(), in this file).
	site := fmt.Sprintf("allocated at leaky (%s:%d)", filepath.Join(proj, "harness.py"),
		heaptest.LineOf(t, filepath.Join(proj, "harness.py"), "the leaking line"))
	wantAll(t, "the traced leak's failure", got["traced"], site+" (40 ")
	wantAll(t, "the untraced leak's failure", got["leaky"], site+" <- report (")
	for _, name := range []string{"leaky", "traced", "context", "leaky_filling"} {
		text, ok := got[name]
		if !ok {
			t.Errorf("%s: no leak reported", name)
			continue
		}
		wantAll(t, name+"'s failure", text, "40 __main__.Session in dict at module __main__.registry",
			"module __main__ -> .registry dict -> [*] __main__.Session", "retaining")
		// The cause first, in one line; one cause, the lru_cache filling
		// beside it is none.
		first, _, _ := strings.Cut(text, "\n")
		if !strings.HasPrefix(first, "leak: 40 __main__.Session in dict at module __main__.registry, retaining") ||
			!strings.Contains(text, "\n1 cause of leaks:") {
			t.Errorf("%s's failure does not say its one cause first:\n%s", name, text)
		}
	}
	// Lists set once on first use, appended to after: what they hold is
	// what grows, and the failure says so.
	wantAll(t, "the lazily set lists' failure", got["lazy_history"], "list at __main__.Account.history",
		"what they hold grew: 40 __main__.Entry more, held 40 in the second snapshot and 80 in the third")
	for _, name := range []string{"bounded", "fill_once", "filling"} {
		if text, ok := got[name]; ok {
			t.Errorf("%s: reported as a leak:\n%s", name, text)
		}
	}
}

// TestPytestPlugin runs pytest with heapscope's plugin on a file with a
// leaking and a clean test for the marker and for the fixture: the
// leaking ones fail with the leak's path, the clean ones pass.
func TestPytestPlugin(t *testing.T) {
	t.Parallel()
	py := needPytest(t)
	proj := projectDir(t, "test_pytest_plugin.py")
	out, _ := runIn(t, proj, harnessEnv(t), py, "-m", "pytest", "-p", "heapscope.pytest_plugin", "-q", "-p", "no:cacheprovider",
		"test_pytest_plugin.py")
	want := []string{"test_pytest_plugin.py::test_fixture_leaks", "test_pytest_plugin.py::test_marker_leaks"}
	if got := failedTests(out); !slices.Equal(got, want) {
		t.Fatalf("failed %v, want %v:\n%s", got, want, out)
	}
	wantAll(t, "pytest output", out, "2 failed, 2 passed", "-> .held list -> [*] test_pytest_plugin.Record",
		fmt.Sprintf("allocated at test_marker_leaks (%s:%d)", filepath.Join(proj, "test_pytest_plugin.py"),
			heaptest.LineOf(t, filepath.Join(proj, "test_pytest_plugin.py"), "the leaking line")))
}

// TestHarnessCounts: a check decides from counts of objects per type
// when it can. A clean workload passes after two counts (warmup + k
// runs: nothing grew from A to B, so nothing can grow twice); objects
// added in the first interval only take a third count and pass, with
// their counts at A, B and C; growth that only a look inside untracked
// containers finds (strs in a module-level dict of str to int, a tuple
// of strs replaced by a longer one) goes on to full snapshots (warmup +
// 4k runs).
func TestHarnessCounts(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("python3"); err != nil {
		t.Skip("python3 is not installed")
	}
	proj := projectDir(t, "counts.py")
	out := must(t, proj, harnessEnv(t), "python3", "counts.py")
	type result struct {
		Name   string
		Runs   int
		Counts map[string][]int
		Leak   bool
	}
	got := map[string]result{}
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		var r result
		if err := json.Unmarshal([]byte(line), &r); err != nil {
			t.Fatalf("bad line %q: %v", line, err)
		}
		got[r.Name] = r
	}
	const warmup, k = 2, 10
	if r := got["clean"]; r.Runs != warmup+k || r.Counts == nil || len(r.Counts) != 0 || r.Leak {
		t.Errorf("clean: %+v; want %d runs, no type grown, no leak", r, warmup+k)
	}
	r := got["first_interval"]
	if r.Runs != warmup+2*k || r.Leak || r.Counts == nil {
		t.Errorf("first_interval: %+v; want %d runs, decided from the counts", r, warmup+2*k)
	} else if c := r.Counts["__main__.Item"]; !slices.Equal(c, []int{warmup, warmup + k, warmup + k}) {
		t.Errorf("first_interval: Item counts %v, want [%d %d %d]", c, warmup, warmup+k, warmup+k)
	}
	for _, name := range []string{"untracked_dict", "untracked_tuple"} {
		if r := got[name]; r.Runs != warmup+4*k || r.Counts != nil {
			t.Errorf("%s: %+v; want %d runs and full snapshots", name, r, warmup+4*k)
		}
	}
}
