package agent

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/heapscope/heapscope/heap"
	"github.com/heapscope/heapscope/pysnap"
)

// These tests run real python3 programs (agent/testdata/*.py) with the
// extracted agent on PYTHONPATH and read what they wrote with pysnap.

func python(t *testing.T) string {
	t.Helper()
	// HEAPSCOPE_TEST_PYTHON runs the tests with another interpreter.
	name := os.Getenv("HEAPSCOPE_TEST_PYTHON")
	if name == "" {
		name = "python3"
	}
	p, err := exec.LookPath(name)
	if err != nil {
		t.Skip("python3 not found")
	}
	out, err := exec.Command(p, "-c", "import sys; print(sys.version_info >= (3, 9))").Output()
	if err != nil || strings.TrimSpace(string(out)) != "True" {
		t.Skip("python3 is older than 3.9")
	}
	return p
}

func testdata(name string) string {
	abs, _ := filepath.Abs(filepath.Join("testdata", name))
	return abs
}

// runPy runs testdata/script with args and the agent importable, and
// decodes the JSON line it prints last into v.
func runPy(t *testing.T, script string, v any, args ...string) {
	t.Helper()
	runPyWith(t, python(t), nil, script, v, args...)
}

// runPyWith runs testdata/script with interpreter py, the agent
// importable and env added to the environment, decodes the JSON line it
// prints last into v, and returns what it wrote to stderr.
func runPyWith(t *testing.T, py string, env []string, script string, v any, args ...string) string {
	t.Helper()
	dir, err := Dir()
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 120*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, py, append([]string{testdata(script)}, args...)...)
	cmd.Env = append(append(os.Environ(), "PYTHONPATH="+dir, "PYTHONDONTWRITEBYTECODE=1"), env...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("%s: %v\nstdout:\n%s\nstderr:\n%s", script, err, stdout.String(), stderr.String())
	}
	if stderr.Len() > 0 {
		t.Logf("%s stderr:\n%s", script, stderr.String())
	}
	lines := strings.Split(strings.TrimSpace(stdout.String()), "\n")
	if err := json.Unmarshal([]byte(lines[len(lines)-1]), v); err != nil {
		t.Fatalf("%s: bad output %q: %v", script, stdout.String(), err)
	}
	return stderr.String()
}

func open(t *testing.T, path string) *heap.Graph {
	t.Helper()
	if path == "" {
		t.Fatal("the agent returned None")
	}
	g, err := pysnap.Open(path)
	if err != nil {
		t.Fatalf("pysnap.Open(%s): %v", path, err)
	}
	return g
}

func find(t *testing.T, g *heap.Graph, addr uint64, what string) heap.ObjectID {
	t.Helper()
	id, ok := g.FindAddr(addr)
	if !ok {
		t.Fatalf("%s (0x%x) is not in the snapshot", what, addr)
	}
	return id
}

func typeName(g *heap.Graph, id heap.ObjectID) string { return g.TypeName(g.Type(id)) }

// edgeTo returns the label of the first edge from -> to.
func edgeTo(g *heap.Graph, from, to heap.ObjectID) (heap.Label, bool) {
	for _, e := range g.Edges(from) {
		if e.To == to {
			return e.Label, true
		}
	}
	return 0, false
}

func wantEdge(t *testing.T, g *heap.Graph, from, to heap.ObjectID, name string, kind heap.EdgeKind) {
	t.Helper()
	l, ok := edgeTo(g, from, to)
	if !ok {
		var names []string
		for _, e := range g.Edges(from) {
			names = append(names, g.EdgeName(e.Label)+"->"+typeName(g, e.To))
		}
		t.Fatalf("no edge %s -> %s (want %q); edges: %v", typeName(g, from), typeName(g, to), name, names)
	}
	if got := g.EdgeName(l); got != name || l.Kind() != kind {
		t.Errorf("edge %s -> %s is %q (%v), want %q (%v)", typeName(g, from), typeName(g, to), got, l.Kind(), name, kind)
	}
}

func countType(g *heap.Graph, name string) (n int, size uint64) {
	for id := range g.Objects() {
		if typeName(g, id) == name {
			n++
			size += g.Size(id)
		}
	}
	return
}

func TestInstances(t *testing.T) {
	dir := t.TempDir()
	var r struct {
		Path  string
		Total uint64
		Type  string
	}
	runPy(t, "instances.py", &r, filepath.Join(dir, "a.pysnap"))
	g := open(t, r.Path)
	n, size := countType(g, r.Type)
	if n != 12345 {
		t.Fatalf("%d instances of %s, want 12345", n, r.Type)
	}
	// Sum the instances and the bytearrays they hold.
	var total uint64
	for id := range g.Objects() {
		if typeName(g, id) != r.Type {
			continue
		}
		// The bytearray hangs off the instance (3.11+: inline values) or
		// off its __dict__ (before 3.11).
		for _, e := range g.Edges(id) {
			switch typeName(g, e.To) {
			case "bytearray":
				total += g.Size(e.To)
			case "dict":
				for _, e2 := range g.Edges(e.To) {
					if typeName(g, e2.To) == "bytearray" {
						total += g.Size(e2.To)
					}
				}
			}
		}
	}
	total += size
	diff := float64(total) - float64(r.Total)
	if diff < 0 {
		diff = -diff
	}
	if diff > 0.01*float64(r.Total) {
		t.Errorf("instances+bytearrays total %d bytes, sys.getsizeof says %d", total, r.Total)
	}
	if g.Meta().Runtime != "python" {
		t.Errorf("meta runtime %q", g.Meta().Runtime)
	}
}

func TestHostileObjects(t *testing.T) {
	eachPython(t, func(t *testing.T, py interp) { testHostileObjects(t, py.Path) })
}

func testHostileObjects(t *testing.T, py string) {
	dir := t.TempDir()
	var r struct {
		Path, Path2 string
		Raised      string
		Log         []string
		Census      string `json:"census"`
		HostileAddr uint64 `json:"hostile_addr"`
		SlottedAddr uint64 `json:"slotted_addr"`
		HdictAddr   uint64 `json:"hdict_addr"`
	}
	runPyWith(t, py, nil, "hostile.py", &r, filepath.Join(dir, "a.pysnap"), filepath.Join(dir, "b.pysnap"))
	if r.Raised != "" {
		t.Fatalf("snapshot raised into the host: %s", r.Raised)
	}
	if len(r.Log) != 0 {
		t.Fatalf("the agent ran the program's code: %v", r.Log)
	}
	// The census (edges=False) of the same hostile heap lists the objects.
	if r.Census == "" {
		t.Fatal("the census was not written")
	}
	c := open(t, r.Census)
	if h := find(t, c, r.HostileAddr, "the Hostile instance in the census"); typeName(c, h) != "__main__.Hostile" || c.Size(h) == 0 {
		t.Errorf("census: Hostile has type %q, size %d", typeName(c, h), c.Size(h))
	}
	// Path2 is taken with values=False: dict keys are not written.
	for i, p := range []string{r.Path, r.Path2} {
		g := open(t, p)
		h := find(t, g, r.HostileAddr, "the Hostile instance")
		if typeName(g, h) != "__main__.Hostile" {
			t.Errorf("type %q", typeName(g, h))
		}
		if g.Size(h) == 0 {
			t.Errorf("Hostile has size 0")
		}
		s := find(t, g, r.SlottedAddr, "the Slotted instance")
		named := false
		for _, e := range g.Edges(s) {
			if g.EdgeName(e.Label) == ".a" && typeName(g, e.To) == "list" {
				named = true
			}
		}
		if !named {
			t.Errorf("slot a of Slotted is not named .a")
		}
		hd := find(t, g, r.HdictAddr, "the HDict")
		named = false
		want := "['k']"
		if i == 1 {
			want = "<value>"
		}
		for _, e := range g.Edges(hd) {
			if g.EdgeName(e.Label) == want && e.To == h {
				named = true
			}
		}
		if !named {
			t.Errorf("HDict['k'] is not named %s", want)
		}
	}
}

func TestConcurrentMutation(t *testing.T) {
	dir := t.TempDir()
	var r struct{ Paths []string }
	runPy(t, "mutate.py", &r, filepath.Join(dir, "a.pysnap"))
	for _, p := range r.Paths {
		g := open(t, p)
		if n, _ := countType(g, "__main__.Marker"); n != 777 {
			t.Errorf("%s: %d markers, want 777", p, n)
		}
		for _, w := range g.Warnings() {
			t.Logf("%s: warning: %s", filepath.Base(p), w)
		}
	}
}

func TestFrozen(t *testing.T) {
	dir := t.TempDir()
	var r struct {
		Path     string
		None     uint64
		Immortal bool
	}
	runPy(t, "freeze.py", &r, filepath.Join(dir, "a.pysnap"))
	g := open(t, r.Path)
	if n, _ := countType(g, "__main__.Frozen"); n != 1111 {
		t.Errorf("%d frozen objects, want 1111", n)
	}
	if n, _ := countType(g, "__main__.Young"); n != 222 {
		t.Errorf("%d young objects, want 222", n)
	}
	none := find(t, g, r.None, "None")
	if got := g.Flags(none)&heap.FlagImmortal != 0; got != r.Immortal {
		t.Errorf("None immortal flag %v, want %v", got, r.Immortal)
	}
}

func TestRefcounts(t *testing.T) {
	eachPython(t, func(t *testing.T, py interp) { testRefcounts(t, py.Path) })
}

func testRefcounts(t *testing.T, py string) {
	dir := t.TempDir()
	var r map[string][2]uint64
	runPyWith(t, py, nil, "refcounts.py", &r, filepath.Join(dir, "a.pysnap"))
	g := open(t, filepath.Join(dir, "a.pysnap"))
	if !g.HasRefcounts() {
		t.Fatal("no refcounts")
	}
	keys := make([]string, 0, len(r))
	for k := range r {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		v := r[k]
		id := find(t, g, v[0], k)
		if rc, _ := g.Refcount(id); uint64(rc) != v[1] {
			t.Errorf("%s (%s): refcount %d, want %d", k, typeName(g, id), rc, v[1])
		}
	}
}

func TestEdgeNames(t *testing.T) {
	eachPython(t, func(t *testing.T, py interp) { testEdgeNames(t, py.Path) })
}

func testEdgeNames(t *testing.T, py string) {
	dir := t.TempDir()
	var r map[string]uint64
	runPyWith(t, py, nil, "edges.py", &r, filepath.Join(dir, "a.pysnap"))
	g := open(t, filepath.Join(dir, "a.pysnap"))
	noDangling(t, g)
	o := func(k string) heap.ObjectID { return find(t, g, r[k], k) }
	// module -> __dict__ -> .cache -> ['k']
	main := o("main")
	var isRoot bool
	for _, root := range g.Roots() {
		if root.Object == main && root.Kind == heap.RootModule && g.String(root.Name) == "__main__" {
			isRoot = true
		}
	}
	if !isRoot {
		t.Errorf("__main__ is not a module root")
	}
	wantEdge(t, g, main, o("main_dict"), "__dict__", heap.Strong)
	wantEdge(t, g, o("main_dict"), o("cache"), ".cache", heap.Strong)
	wantEdge(t, g, o("cache"), o("cache_k"), "['k']", heap.Strong)
	wantEdge(t, g, o("items"), o("item1"), "[1]", heap.Strong)
	wantEdge(t, g, o("tup"), o("tup1"), "[1]", heap.Strong)
	wantEdge(t, g, o("closure"), o("closure_tuple"), "__closure__", heap.Strong)
	wantEdge(t, g, o("closure_tuple"), o("cell"), "<cell> captured", heap.Strong)
	wantEdge(t, g, o("cell"), o("captured"), "cell_contents", heap.Strong)
	wantEdge(t, g, o("wr"), o("wr_target"), "<referent>", heap.Weak)
	wantEdge(t, g, o("slot"), o("slot_a"), ".a", heap.Strong)
	wantAttr(t, g, o("holder"), o("payload"), ".payload")
	// Attributes no method of the class names: set from outside, or by
	// argparse through setattr.
	wantAttr(t, g, o("loose"), o("attached"), ".attached")
	wantAttr(t, g, o("args"), o("chosen"), ".chosen")
	wantEdge(t, g, o("bound"), o("bm"), "__self__", heap.Strong)
	wantEdge(t, g, o("wrapper"), o("bm"), "__self__", heap.Strong)
	// A weak container's entries are held through weak references.
	for _, k := range []string{"wvd_value", "wkd_key"} {
		id := o(k)
		for _, from := range g.Referrers(id) {
			if l, _ := edgeTo(g, from, id); l.Kind() != heap.Weak && typeName(g, from) != "frame" &&
				typeName(g, from) != "dict" {
				t.Errorf("%s is held by a %s through a %v edge %q", k, typeName(g, from), l.Kind(), g.EdgeName(l))
			}
		}
		weak := false
		for _, from := range g.Referrers(id) {
			if l, _ := edgeTo(g, from, id); l.Kind() == heap.Weak {
				weak = true
			}
		}
		if !weak {
			t.Errorf("%s has no weak referrer", k)
		}
	}
	// The frame of run() names its local.
	local := o("local")
	found := false
	for _, from := range g.Referrers(local) {
		if typeName(g, from) == "frame" {
			l, _ := edgeTo(g, from, local)
			if g.EdgeName(l) == "<local> local_obj" {
				found = true
			}
		}
	}
	if !found {
		t.Errorf("no frame names its local local_obj")
	}
	// Every class instance has its type as an internal __class__ edge.
	l, ok := edgeTo(g, o("cache_k"), g.Edges(o("cache_k"))[len(g.Edges(o("cache_k")))-1].To)
	if !ok || g.EdgeName(l) != "__class__" || l.Kind() != heap.Internal {
		t.Errorf("instance's last edge is %q (%v), want internal __class__", g.EdgeName(l), l.Kind())
	}
}

// sectionKinds lists the section kinds of a snapshot file.
// noDangling fails if the reader dropped references to objects missing
// from the snapshot: in a quiet program that would mean the capture
// itself changed the heap (a cache filled while it ran, say).
func noDangling(t *testing.T, g *heap.Graph) {
	t.Helper()
	for _, w := range g.Warnings() {
		if strings.Contains(w.Msg, "no object") {
			t.Errorf("reader warning: %s", w)
		}
	}
}

func sectionKinds(t *testing.T, p []byte) []uint32 {
	t.Helper()
	var kinds []uint32
	off := 16
	for off+16 <= len(p) {
		k := binary.LittleEndian.Uint32(p[off:])
		n := binary.LittleEndian.Uint64(p[off+8:])
		kinds = append(kinds, k)
		off += 16 + int(n)
	}
	return kinds
}

func TestNoValues(t *testing.T) {
	dir := t.TempDir()
	var r struct {
		With, Without string
		Secret        string
		SecretBytes   string `json:"secret_bytes"`
		Addr          uint64
	}
	runPy(t, "novalues.py", &r, filepath.Join(dir, "a.pysnap"), filepath.Join(dir, "b.pysnap"))
	with, err := os.ReadFile(r.With)
	if err != nil {
		t.Fatal(err)
	}
	without, err := os.ReadFile(r.Without)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(with, []byte(r.Secret)) {
		t.Errorf("values=True: the secret str is not in the file")
	}
	for _, s := range []string{r.Secret, r.SecretBytes} {
		if bytes.Contains(without, []byte(s)) {
			t.Errorf("values=False: %q is in the file", s)
		}
	}
	for _, k := range sectionKinds(t, without) {
		if k == 6 {
			t.Errorf("values=False: the file has a VALUES section")
		}
	}
	if binary.LittleEndian.Uint32(without[12:])&1 == 0 {
		t.Errorf("values=False: header flag bit 0 not set")
	}
	g := open(t, r.Without)
	if g.NumValues() != 0 {
		t.Errorf("values=False: %d values", g.NumValues())
	}
	id := find(t, g, r.Addr, "the secret")
	if _, ok := g.Digest(id); !ok {
		t.Errorf("values=False: the secret str has no digest")
	}
	g = open(t, r.With)
	id = find(t, g, r.Addr, "the secret")
	if v, _ := g.Value(id); v != r.Secret {
		t.Errorf("values=True: value %q, want %q", v, r.Secret)
	}
}

func TestOwnObjectsExcluded(t *testing.T) {
	dir := t.TempDir()
	var r struct {
		Paths         []string
		Before, After int
	}
	runPy(t, "own.py", &r, filepath.Join(dir, "a.pysnap"), filepath.Join(dir, "b.pysnap"))
	if r.Before != 4321 || r.After != 4321 {
		t.Errorf("markers before %d after %d", r.Before, r.After)
	}
	for _, p := range r.Paths {
		g := open(t, p)
		noDangling(t, g)
		if n, _ := countType(g, "__main__.Marker"); n != 4321 {
			t.Errorf("%d markers in the snapshot, want 4321", n)
		}
		for _, root := range g.Roots() {
			if n := g.String(root.Name); n == "heapscope" || strings.HasPrefix(n, "heapscope.") {
				t.Errorf("the agent's module %s is a root", n)
			}
		}
		for id := range g.Objects() {
			name := typeName(g, id)
			if strings.HasPrefix(name, "heapscope.") {
				t.Errorf("agent object of type %s in the snapshot", name)
			}
			if name == "code" {
				for _, e := range g.Edges(id) {
					if v, _ := g.Value(e.To); g.EdgeName(e.Label) == "co_filename" && strings.Contains(v, "/heapscope/") {
						t.Errorf("the agent's code %s is in the snapshot", v)
					}
				}
			}
			for _, e := range g.Edges(id) {
				// The agent's per-capture state dict and its locals.
				switch g.EdgeName(e.Label) {
				case "['tmp']", "<local> objs", "<local> chunk", "<local> cap", "._LENPFX", ".snapshot":
					t.Errorf("agent bookkeeping in the snapshot: %s %s", name, g.EdgeName(e.Label))
				}
			}
			if name == "frame" {
				for _, e := range g.Edges(id) {
					if g.EdgeName(e.Label) == "f_code" {
						for _, e2 := range g.Edges(e.To) {
							if v, ok := g.Value(e2.To); ok && strings.Contains(v, "/heapscope/_") {
								t.Errorf("an agent frame is in the snapshot (%s)", v)
							}
						}
					}
				}
			}
		}
	}
}

func TestFailedWrite(t *testing.T) {
	dir := t.TempDir()
	var r struct {
		MissingDir *string `json:"missing_dir"`
		TooBig     *string `json:"too_big"`
		Ok         string
		Files      []string
	}
	runPy(t, "failwrite.py", &r, dir)
	if r.MissingDir != nil || r.TooBig != nil {
		t.Errorf("failed snapshots returned %v, %v, want None", r.MissingDir, r.TooBig)
	}
	if strings.Join(r.Files, ",") != "ok.pysnap" {
		t.Errorf("files after the failures: %v, want only ok.pysnap", r.Files)
	}
	open(t, r.Ok)
}

func TestInterrupted(t *testing.T) {
	// The program's SIGALRM handler raises while the agent works: the
	// exception reaches the program and no file is left, final or
	// temporary. The alarm lands at a different point each run.
	for i := 0; i < 3; i++ {
		dir := t.TempDir()
		var r struct {
			Raised *string
			Result *string
			Files  []string
		}
		runPy(t, "interrupt.py", &r, dir)
		if r.Raised == nil || *r.Raised != "Timeout" {
			t.Errorf("the program's exception did not reach it (snapshot returned %v)", r.Result)
		}
		if len(r.Files) != 0 {
			t.Errorf("files left: %v", r.Files)
		}
	}
}

func TestNumpy(t *testing.T) {
	py := python(t)
	env := os.Environ()
	if exec.Command(py, "-c", "import numpy").Run() != nil {
		// Debian's python3-numpy, when the interpreter is compatible.
		env = append(env, "PYTHONPATH=/usr/lib/python3/dist-packages")
		cmd := exec.Command(py, "-c", "import numpy")
		cmd.Env = env
		if cmd.Run() != nil {
			t.Skip("numpy is not importable")
		}
	}
	dir := t.TempDir()
	pkg, err := Dir()
	if err != nil {
		t.Fatal(err)
	}
	script := `
import json, sys, numpy as np, heapscope
base = np.arange(100000, dtype=np.float64)
view = base[10:20]
objs = np.array([object(), [1, 2]], dtype=object)
grid = np.zeros((3, 4), dtype=np.int32)
mv = memoryview(grid)
gone = memoryview(b"x"); gone.release()
held = [view, objs, grid, mv, gone]
del base
p = heapscope.snapshot(sys.argv[1])
print(json.dumps({"view": id(view), "base": id(view.base), "objs": id(objs), "grid": id(grid), "mv": id(mv),
                  "gone": id(gone), "path": p}))
`
	cmd := exec.Command(py, "-c", script, filepath.Join(dir, "n.pysnap"))
	var pp string
	for _, kv := range env {
		if v, ok := strings.CutPrefix(kv, "PYTHONPATH="); ok {
			pp = v
		}
	}
	cmd.Env = append(env, "PYTHONPATH="+pkg+string(os.PathListSeparator)+pp)
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	var r map[string]any
	if err := json.Unmarshal(out, &r); err != nil {
		t.Fatal(err)
	}
	g := open(t, r["path"].(string))
	view := find(t, g, uint64(r["view"].(float64)), "the view")
	base := find(t, g, uint64(r["base"].(float64)), "the base array")
	wantEdge(t, g, view, base, "base", heap.Strong)
	if g.Size(base) < 800000 {
		t.Errorf("base array size %d, want its 800000-byte buffer", g.Size(base))
	}
	objs := find(t, g, uint64(r["objs"].(float64)), "the object array")
	if g.Flags(objs)&heap.FlagOpaque == 0 {
		t.Errorf("an object array is not flagged opaque")
	}
	// dtypes and shapes, read from the arrays' C structs and the
	// memoryviews' buffers, as numpy and memoryview name them.
	for _, c := range []struct{ key, want string }{
		{"view", "float64 (10,)"}, {"base", "float64 (100000,)"}, {"objs", "object (2,)"},
		{"grid", "int32 (3, 4)"}, {"mv", "int32 (3, 4)"}, {"gone", "released"},
	} {
		id := find(t, g, uint64(r[c.key].(float64)), c.key)
		if v, _ := g.Value(id); v != c.want {
			t.Errorf("%s: value %q, want %q", c.key, v, c.want)
		}
		if g.Flags(id)&heap.FlagWhole != 0 {
			t.Errorf("%s: flagged whole, but its buffer is not in the snapshot", c.key)
		}
	}
}

// TestWhole: the agent flags whole the objects whose state the snapshot
// shows entirely (instances of classes defined in Python, containers,
// strings, numbers, bools with their values), and no other (classes,
// modules, C objects with fields of their own, ints too big for a
// value, instances of a subclass of a C type).
func TestWhole(t *testing.T) {
	dir := t.TempDir()
	var r map[string]uint64
	runPy(t, "whole.py", &r, filepath.Join(dir, "w.pysnap"))
	g := open(t, filepath.Join(dir, "w.pysnap"))
	for key, addr := range r {
		id := find(t, g, addr, key)
		whole := g.Flags(id)&heap.FlagWhole != 0
		if want := strings.HasPrefix(key, "whole_"); whole != want {
			t.Errorf("%s (%s): whole %v, want %v", key, typeName(g, id), whole, want)
		}
	}
	for key, want := range map[string]string{"whole_true": "True", "whole_int": "12345"} {
		if v, _ := g.Value(find(t, g, r[key], key)); v != want {
			t.Errorf("%s: value %q, want %q", key, v, want)
		}
	}
}

func TestRunMode(t *testing.T) {
	py := python(t)
	base := append(os.Environ(), "PYTHONDONTWRITEBYTECODE=1")
	// The reference: the program without heapscope (the signal case sends
	// itself SIGUSR2, which only the agent handles, so it has none).
	ref := exec.Command(py, testdata("runmode.py"), "plain")
	ref.Env = base
	refOut, err := ref.Output()
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 3 {
		t.Fatalf("runmode.py without heapscope: %v, want exit status 3", err)
	}
	// The program waits for the snapshots it needs to see (files that
	// appear in OUT), never for a length of time.
	cases := []struct {
		name string
		args []string // OUT is the output directory
		opts RunOptions
		want []string // reasons in order; nil: see below
	}{
		{"exit", []string{"plain"}, RunOptions{AtExit: true}, []string{"exit"}},
		{"signal", []string{"signal"}, RunOptions{AtExit: true, Signal: "SIGUSR2"}, []string{"signal", "exit"}},
		{"interval", []string{"wait", "OUT", "2"}, RunOptions{AtExit: true, Every: 300 * time.Millisecond}, nil},
		// Interval snapshots fall due while signal snapshots are taken:
		// they wait their turn, with no message and no gap in the numbers.
		// Censuses: the turns are the same, and the captures quicker.
		{"overlap", []string{"signals", "OUT", "4"}, RunOptions{AtExit: true, Signal: "SIGUSR2", Every: time.Millisecond, Census: true}, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			out := t.TempDir()
			c.opts.OutDir = out
			args := []string{testdata("runmode.py")}
			for _, a := range c.args {
				args = append(args, strings.ReplaceAll(a, "OUT", out))
			}
			cmd := exec.Command(py, args...)
			cmd.Env = Env(base, c.opts)
			var stdout, stderr bytes.Buffer
			cmd.Stdout, cmd.Stderr = &stdout, &stderr
			err := cmd.Run()
			if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 3 {
				t.Fatalf("exit: %v, want status 3; stderr:\n%s", err, stderr.String())
			}
			if stderr.Len() > 0 {
				t.Errorf("stderr:\n%s", stderr.String())
			}
			want := string(refOut)
			if c.name == "signal" {
				want = strings.Replace(want, "\nbye", "\nafter signal\nbye", 1)
			}
			// The program's output includes its PYTHONPATH and sys.path:
			// the agent leaves no trace in either.
			if stdout.String() != want {
				t.Errorf("stdout:\n%s\nwant:\n%s", stdout.String(), want)
			}
			ents, err := os.ReadDir(out)
			if err != nil {
				t.Fatal(err)
			}
			var names []string
			for _, e := range ents {
				names = append(names, e.Name())
			}
			sort.Strings(names)
			re := regexp.MustCompile(`^(\d{4})-(\d+)-([a-z]+)\.pysnap$`)
			var reasons []string
			for i, n := range names {
				m := re.FindStringSubmatch(n)
				if m == nil {
					t.Fatalf("unexpected file %q in %v", n, names)
				}
				if m[1] != fmt.Sprintf("%04d", i+1) {
					t.Errorf("file %d is %q", i, n)
				}
				reasons = append(reasons, m[3])
				g := open(t, filepath.Join(out, n))
				if got := g.Meta().Attrs["reason"]; got != m[3] {
					t.Errorf("%s: meta reason %q", n, got)
				}
			}
			switch {
			case c.name == "interval":
				if len(reasons) < 3 || reasons[0] != "interval" || reasons[1] != "interval" ||
					reasons[len(reasons)-1] != "exit" {
					t.Errorf("snapshots %v, want at least two interval snapshots then exit", names)
				}
			case c.name == "overlap":
				signals := 0
				for _, r := range reasons {
					if r == "signal" {
						signals++
					}
				}
				if signals != 4 || reasons[len(reasons)-1] != "exit" || slices.Index(reasons, "interval") < 0 {
					t.Errorf("snapshots %v, want 4 signal and some interval snapshots, then exit", names)
				}
			case strings.Join(reasons, ",") != strings.Join(c.want, ","):
				t.Errorf("snapshots %v, want reasons %v", names, c.want)
			}
		})
	}
}

func TestDirIsStable(t *testing.T) {
	d1, err := Dir()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(d1, "heapscope", "__init__.py")); err != nil {
		t.Fatal(err)
	}
	r, err := RunDir()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(r, "sitecustomize.py")); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(r, "heapscope")); err == nil {
		t.Errorf("the run directory holds the package too")
	}
	// A second extraction (another process) reuses the directory.
	d2, err := extract()
	if err != nil {
		t.Fatal(err)
	}
	if filepath.Join(d2, pkgSub) != d1 {
		t.Errorf("second extraction %s, first %s", d2, d1)
	}
}

func TestEnv(t *testing.T) {
	env := Env([]string{"PATH=/bin", "PYTHONPATH=/mine", "HEAPSCOPE_OUT=/old"},
		RunOptions{OutDir: "/out", AtExit: true, Signal: "SIGUSR2", Every: 1500 * time.Millisecond,
			PackageDir: "/pkg", SiteDir: "/site"})
	got := strings.Join(env, "\n")
	for _, want := range []string{"PATH=/bin", "PYTHONPATH=/site:/mine", "HEAPSCOPE_ORIG_PYTHONPATH=/mine",
		"HEAPSCOPE_AGENT_DIR=/pkg", "HEAPSCOPE_OUT=/out", "HEAPSCOPE_AT_EXIT=1",
		"HEAPSCOPE_SIGNAL=SIGUSR2", "HEAPSCOPE_EVERY=1.5"} {
		if !strings.Contains(got, want+"\n") && !strings.HasSuffix(got, want) {
			t.Errorf("env lacks %q:\n%s", want, got)
		}
	}
	if strings.Contains(got, "/old") {
		t.Errorf("old HEAPSCOPE_OUT kept:\n%s", got)
	}
	if strings.Contains(got, "TRACEMALLOC") {
		t.Errorf("tracemalloc asked for without TraceAlloc:\n%s", got)
	}

	// Allocation tracing: tracemalloc from the start, the program's own
	// setting kept for its children; node's tracker.
	env = Env([]string{"PYTHONTRACEMALLOC=2", "NODE_OPTIONS=--max-old-space-size=100"}, RunOptions{OutDir: "/out", TraceAlloc: 5})
	env = NodeEnv(env, "/p/preload.js", true)
	got = strings.Join(env, "\n") + "\n"
	for _, want := range []string{"PYTHONTRACEMALLOC=5\n", "HEAPSCOPE_TRACE_ALLOC=5\n", "HEAPSCOPE_ORIG_PYTHONTRACEMALLOC=2\n",
		"NODE_OPTIONS=--max-old-space-size=100 --require=/p/preload.js --track-heap-objects\n"} {
		if !strings.Contains(got, want) {
			t.Errorf("env lacks %q:\n%s", want, got)
		}
	}
	if strings.Count(got, "PYTHONTRACEMALLOC=") != 2 {
		t.Errorf("PYTHONTRACEMALLOC given twice:\n%s", got)
	}
}

// wantAttr checks that attribute name of from holds to: inline (3.11+:
// named by the agent's check) or in the instance's __dict__ (before
// 3.11).
func wantAttr(t *testing.T, g *heap.Graph, from, to heap.ObjectID, name string) {
	t.Helper()
	if l, ok := edgeTo(g, from, to); ok {
		if g.EdgeName(l) != name {
			t.Errorf("%s -> %s is %q, want %s", typeName(g, from), typeName(g, to), g.EdgeName(l), name)
		}
		return
	}
	var d heap.ObjectID = heap.None
	for _, e := range g.Edges(from) {
		if g.EdgeName(e.Label) == "__dict__" {
			d = e.To
		}
	}
	if d == heap.None {
		t.Fatalf("%s has neither %s nor __dict__", typeName(g, from), name)
	}
	wantEdge(t, g, d, to, name, heap.Strong)
}
