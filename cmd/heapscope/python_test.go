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
	return runPythonWith(t, "python3", script, args...)
}

// runPythonWith is runPython with the interpreter py.
func runPythonWith(t *testing.T, py, script string, args ...string) []byte {
	t.Helper()
	if _, err := exec.LookPath(py); err != nil {
		t.Skipf("%s is not installed", py)
	}
	pp, err := agent.Dir()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(py, append([]string{filepath.Join("testdata", script)}, args...)...)
	cmd.Env = append(os.Environ(), "PYTHONPATH="+pp)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("%s: %v\n%s", script, err, stderr.String())
	}
	return out
}

// debianPython returns Debian's Python, which has the Debian packages
// .ci/run installs (sympy, numpy, ...), after checking that it imports
// modules (a comma-separated list); the test skips when it cannot.
func debianPython(t *testing.T, modules string) string {
	t.Helper()
	py := "/usr/bin/python3"
	if err := exec.Command(py, "-c", "import "+modules).Run(); err != nil {
		t.Skipf("%s cannot import %s", py, modules)
	}
	return py
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

// TestPythonLeakBytes runs an asyncio server that keeps each request's
// line, no two of one size: the leak's shallow bytes are the sum of
// sys.getsizeof of the values one round of requests left, not its count
// times one member's size, and never more than what they retain.
func TestPythonLeakBytes(t *testing.T) {
	dir := t.TempDir()
	var want struct{ Count, Bytes uint64 }
	if err := json.Unmarshal(runPython(t, "asyncserver.py", dir), &want); err != nil {
		t.Fatal(err)
	}
	var rep struct {
		Rows []struct {
			Place struct {
				Text string `json:"text"`
			} `json:"place"`
			Retained uint64     `json:"retained_bytes"`
			Parts    []leakPart `json:"parts"`
		} `json:"rows"`
	}
	args := []string{"leaks", "--json"}
	for _, n := range []string{"baseline", "target", "final"} {
		args = append(args, filepath.Join(dir, n+".pysnap"))
	}
	runJSON(t, &rep, args...)
	found := false
	for _, r := range rep.Rows {
		if r.Place.Text != "dict at module __main__.sessions" {
			continue
		}
		for _, p := range r.Parts {
			if p.Type != "bytes" {
				continue
			}
			found = true
			if uint64(p.Count) != want.Count || p.Shallow != want.Bytes {
				t.Errorf("%d bytes objects, shallow %d bytes; sys.getsizeof: %d, %d bytes", p.Count, p.Shallow, want.Count, want.Bytes)
			}
			if p.Shallow > p.Retained {
				t.Errorf("shallow %d bytes over retained %d", p.Shallow, p.Retained)
			}
		}
	}
	if !found {
		t.Errorf("no leak of bytes in the dict at module __main__.sessions: %+v", rep.Rows)
	}
}

// TestPythonNames checks that a real program's classes, functions and
// modules are named in paths and in top's objects, as a Python
// programmer names them, where they were type@, function@ and module@
// an address: a function attribute, a class attribute, a module made at
// run time, and the functions sympy's cache keeps.
func TestPythonNames(t *testing.T) {
	dir := t.TempDir()
	snap := filepath.Join(dir, "a.pysnap")
	var made map[string]uint64
	if err := json.Unmarshal(runPython(t, "names.py", snap), &made); err != nil {
		t.Fatal(err)
	}
	var why struct {
		Rows []struct {
			Path string `json:"path"`
		} `json:"rows"`
	}
	paths := func(typ string) string {
		runJSON(t, &why, "why", "--json", snap, typ)
		var all []string
		for _, r := range why.Rows {
			all = append(all, r.Path)
		}
		return strings.Join(all, "\n")
	}
	got := paths("bytearray")
	for _, want := range []string{
		"module __main__ -> .handler function __main__.handler -> ",
		"module __main__ -> .Registry class __main__.Registry -> .shared list -> [*] bytearray",
		"module plugins -> .table list -> [*] bytearray",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("no path %q among\n%s", want, got)
		}
	}
	if got := paths("functools._lru_cache_wrapper"); !strings.Contains(got, "-> [*] function sympy.core.") {
		t.Errorf("sympy's cached functions are not named:\n%s", got)
	}
	for k, want := range map[string]string{"handler": "function __main__.handler", "registry": "class __main__.Registry",
		"plugins": "module plugins"} {
		var w struct {
			Rows []struct {
				Sample struct {
					Steps []struct {
						Name string `json:"name"`
					} `json:"steps"`
				} `json:"sample_path"`
			} `json:"rows"`
		}
		runJSON(t, &w, "why", "--json", snap, fmt.Sprintf("%#x", made[k]))
		if len(w.Rows) != 1 || len(w.Rows[0].Sample.Steps) == 0 {
			t.Fatalf("why %s: %+v", k, w)
		}
		steps := w.Rows[0].Sample.Steps
		if got := steps[len(steps)-1].Name; got != want {
			t.Errorf("%s is named %q, want %q", k, got, want)
		}
	}
}

// TestPythonCensus takes a census and a full snapshot of the same heap:
// the census counts the same objects of the program's types with the
// same sizes, and the commands that need references refuse it.
func TestPythonCensus(t *testing.T) {
	dir := t.TempDir()
	var want struct{ Bytes uint64 }
	if err := json.Unmarshal(runPython(t, "census.py", dir), &want); err != nil {
		t.Fatal(err)
	}
	type rows struct {
		Snapshot struct {
			Overview struct {
				Census bool `json:"census"`
				Edges  int  `json:"edges"`
			} `json:"overview"`
		} `json:"snapshot"`
		Rows []struct {
			Type  string `json:"type"`
			Count int    `json:"count"`
			Bytes uint64 `json:"shallow_bytes"`
		} `json:"rows"`
	}
	dictBytes := map[string]uint64{}
	counts := func(name string) (map[string]int, uint64, rows) {
		var r rows
		runJSON(t, &r, "summary", "--json", "--top", "0", filepath.Join(dir, name))
		m := map[string]int{}
		var bytes uint64
		for _, x := range r.Rows {
			m[x.Type] = x.Count
			if x.Type == "dict" {
				dictBytes[name] = x.Bytes
			}
			if x.Type == "__main__.Item" || x.Type == "bytearray" {
				bytes += x.Bytes
			}
		}
		return m, bytes, r
	}
	cc, cbytes, cr := counts("census.pysnap")
	fc, _, _ := counts("full.pysnap")
	if !cr.Snapshot.Overview.Census || cr.Snapshot.Overview.Edges != 0 {
		t.Errorf("census overview %+v, want census and no edges", cr.Snapshot.Overview)
	}
	if cc["__main__.Item"] != 12345 || cc["bytearray"] < 12345 {
		t.Errorf("census: %d Item, %d bytearray; want 12,345 each", cc["__main__.Item"], cc["bytearray"])
	}
	for _, typ := range []string{"__main__.Item", "bytearray", "list", "dict", "str", "int"} {
		if d := cc[typ] - fc[typ]; d < -50 || d > 50 {
			t.Errorf("%s: census %d, full snapshot %d", typ, cc[typ], fc[typ])
		}
	}
	// The census's own bookkeeping (a dict of what it found) stays out.
	if c, f := float64(dictBytes["census.pysnap"]), float64(dictBytes["full.pysnap"]); c > 1.02*f || c < 0.98*f {
		t.Errorf("census: dicts %v bytes, full snapshot %v", c, f)
	}
	if diff := float64(cbytes) - float64(want.Bytes); diff < 0 || diff > 0.01*float64(want.Bytes) {
		t.Errorf("census: Items and bytearrays %d bytes, sys.getsizeof says %d", cbytes, want.Bytes)
	}
	var stdout, stderr bytes.Buffer
	err := run([]string{"top", filepath.Join(dir, "census.pysnap")}, &stdout, &stderr)
	if err == nil || !strings.Contains(err.Error(), "census") {
		t.Errorf("top on a census: %v, want an error that says it is a census", err)
	}
}
