package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/heapscope/heapscope/agent"
)

// runPython runs a Python program from testdata with the agent on its
// path and returns its stdout.
func runPython(t *testing.T, script string, args ...string) []byte {
	t.Helper()
	if _, err := exec.LookPath("python3"); err != nil {
		t.Skip("python3 is not installed")
	}
	pp, err := agent.Dir()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("python3", append([]string{filepath.Join("testdata", script)}, args...)...)
	cmd.Env = append(os.Environ(), "PYTHONPATH="+pp)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("%s: %v\n%s", script, err, stderr.String())
	}
	return out
}

// runJSON runs heapscope with args and decodes its JSON output into v.
func runJSON(t *testing.T, v any, args ...string) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	if err := run(args, &stdout, &stderr); err != nil {
		t.Fatalf("heapscope %s: %v\n%s", strings.Join(args, " "), err, stderr.String())
	}
	if err := json.Unmarshal(stdout.Bytes(), v); err != nil {
		t.Fatalf("heapscope %s: %v", strings.Join(args, " "), err)
	}
}

// TestPythonWhyAlive checks top, tree and why on a real Python heap
// against what sys.getsizeof says: a planted structure's retained size is
// exact, a memoryview kept alive only by a leaked reference count is held
// outside the heap with the 4 MiB buffer it keeps, and why finds the path
// through a module-level cache.
func TestPythonWhyAlive(t *testing.T) {
	snap := filepath.Join(t.TempDir(), "w.pysnap")
	var want struct {
		Holder         string `json:"holder"`
		HolderRetained uint64 `json:"holder_retained"`
		View           string `json:"view"`
		NativeMin      uint64 `json:"native_min"`
	}
	if err := json.Unmarshal(runPython(t, "whyalive.py", snap), &want); err != nil {
		t.Fatal(err)
	}

	var tree struct {
		Lines []struct {
			Addr     string `json:"addr"`
			Retained uint64 `json:"retained_bytes"`
		} `json:"lines"`
	}
	runJSON(t, &tree, "tree", "--json", "--depth", "1", "--from", want.Holder, snap)
	if len(tree.Lines) == 0 || tree.Lines[0].Addr != want.Holder || tree.Lines[0].Retained != want.HolderRetained {
		t.Errorf("holder retains %+v, want exactly %d bytes", tree.Lines, want.HolderRetained)
	}

	var top struct {
		Native []struct {
			Type     string `json:"type"`
			Retained uint64 `json:"retained_bytes"`
			Sample   string `json:"sample"`
		} `json:"held_outside_heap"`
	}
	runJSON(t, &top, "top", "--json", "--top", "0", snap)
	found := false
	for _, n := range top.Native {
		if n.Type == "memoryview" && strings.HasPrefix(n.Sample, "memoryview@"+want.View) {
			found = true
			if n.Retained < want.NativeMin {
				t.Errorf("the memoryview held outside the heap retains %d bytes, want at least %d", n.Retained, want.NativeMin)
			}
		}
	}
	if !found {
		t.Errorf("the memoryview %s is not reported as held outside the heap: %+v", want.View, top.Native)
	}

	why := whyText(t, snap, "__main__.Planted")
	if !strings.Contains(why, "25 objects") || !strings.Contains(why, "module __main__ -> ._cache dict -> [*] __main__.Planted") {
		t.Errorf("why does not find the cache:\n%s", why)
	}
	why = whyText(t, snap, want.View)
	if !strings.Contains(why, "held outside the heap") {
		t.Errorf("why of the memoryview does not say it is held outside the heap:\n%s", why)
	}
}

// TestPythonDiffExact runs a program that leaks exactly 7 objects of a
// class per loop iteration, 30 iterations between two snapshots: diff
// reports exactly 210 more of them.
func TestPythonDiffExact(t *testing.T) {
	dir := t.TempDir()
	runPython(t, "perloop.py", dir)
	var d struct {
		Rows []struct {
			Type       string `json:"type"`
			CountDelta int    `json:"count_delta"`
		} `json:"rows"`
	}
	runJSON(t, &d, "diff", "--json", "--top", "0", filepath.Join(dir, "before.pysnap"), filepath.Join(dir, "after.pysnap"))
	got := map[string]int{}
	for _, r := range d.Rows {
		got[r.Type] = r.CountDelta
	}
	if got["__main__.Leaked"] != 7*30 {
		t.Errorf("diff says %d more __main__.Leaked, want %d", got["__main__.Leaked"], 7*30)
	}
	if n, ok := got["__main__.Churn"]; ok {
		t.Errorf("diff says %d more __main__.Churn, which does not grow", n)
	}
}

// TestPythonTrend follows the planted-leak program's three snapshots:
// both leaking collections grow in every snapshot; the bounded cache
// does not.
func TestPythonTrend(t *testing.T) {
	dir := t.TempDir()
	runPython(t, "leaky.py", dir)
	var tr struct {
		Collections []struct {
			Type string `json:"type"`
			Path string `json:"path"`
		} `json:"unbounded_collections"`
	}
	snaps := []string{"trend", "--json"}
	for _, n := range []string{"baseline", "target", "final"} {
		snaps = append(snaps, filepath.Join(dir, n+".pysnap"))
	}
	runJSON(t, &tr, snaps...)
	var paths []string
	for _, c := range tr.Collections {
		paths = append(paths, fmt.Sprintf("%s (%s)", c.Path, c.Type))
	}
	all := strings.Join(paths, "\n")
	for _, want := range []string{"module __main__ -> .contexts dict", "module __main__ -> .listeners list"} {
		if !strings.Contains(all, want) {
			t.Errorf("unbounded collections lack %q:\n%s", want, all)
		}
	}
	if strings.Contains(all, ".lru") {
		t.Errorf("the bounded LRU is reported as unbounded:\n%s", all)
	}
}
