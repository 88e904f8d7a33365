package heapsnapshot

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/heapscope/heapscope/heap"
	"github.com/heapscope/heapscope/internal/heaptest"
)

// tracedSnap is tinySnap with an allocation trace: LeakItem (node 14)
// allocated by handle (app.js:4:16) called from the top level of
// app.js, the Holder (node 9) by the top level itself; the root of the
// tree is V8's (root).
func tracedSnap() *tsnap {
	s := tinySnap()
	s.functions = []tfunc{{name: "(root)"}, {name: "", script: "/srv/app.js", line: 1, column: 1}, {name: "handle", script: "/srv/app.js", line: 4, column: 16}}
	s.traces = []ttrace{{id: 1, fn: 0, parent: -1}, {id: 2, fn: 1, parent: 0}, {id: 3, fn: 2, parent: 1}}
	s.nodes[14].trace = 3
	s.nodes[9].trace = 2
	s.nodes[3].trace = 1 // the root: allocated by no JavaScript
	return s
}

func TestTraces(t *testing.T) {
	g := mustRead(t, tracedSnap().bytes(), Options{})
	if !g.HasSites() || g.NumSites() != 3 {
		t.Fatalf("HasSites %v, NumSites %d", g.HasSites(), g.NumSites())
	}
	for id, want := range map[int]string{14: "handle@/srv/app.js:4:16 /srv/app.js:1:1", 9: "/srv/app.js:1:1", 4: ""} {
		if got := heaptest.StackText(g, g.Site(heap.ObjectID(id))); got != want {
			t.Errorf("node %d allocated at %q, want %q", id, got, want)
		}
	}
	if len(g.Warnings()) != 0 {
		t.Errorf("warnings: %v", g.Warnings())
	}
	// Without tracking: no sites.
	if g := mustRead(t, tinySnap().bytes(), Options{}); g.HasSites() {
		t.Errorf("an untracked snapshot has sites")
	}
}

// TestTracesHostile: a trace that does not add up is a warning or an
// error with the offset, never a panic or an invalid graph.
func TestTracesHostile(t *testing.T) {
	s := tracedSnap()
	s.nodes[3].trace = 77 // no such trace node
	s.traces[2].fn = 40   // no such function
	g := mustRead(t, s.bytes(), Options{})
	if err := g.Validate(); err != nil {
		t.Fatal(err)
	}
	var warned []string
	for _, w := range g.Warnings() {
		warned = append(warned, w.Msg)
	}
	if w := strings.Join(warned, "; "); !strings.Contains(w, "trace node the trace tree lacks") || !strings.Contains(w, "function trace_function_infos lacks") {
		t.Errorf("warnings: %s", w)
	}
	good := tracedSnap().bytes()
	for _, tc := range []struct{ name, old, new, want string }{
		{"name out of range", `"trace_function_infos":[0,`, `"trace_function_infos":[0,9999999`, "out of range"},
		{"tree not nested", `"trace_tree":[1,0,1,16,[`, `"trace_tree":[1,0,1,16,7,[`, "want '['"},
		{"tree cut", `"trace_tree":[1,0,1,16,[`, `"trace_tree":[1,0,1,"x",[`, "unsigned integer"},
		{"function record cut", `"trace_function_infos":[0,`, `"trace_function_infos":[5,0,`, "multiple of 6"},
	} {
		p := bytes.Replace(good, []byte(tc.old), []byte(tc.new), 1)
		if bytes.Equal(p, good) {
			t.Fatalf("%s: no change", tc.name)
		}
		_, err := Read(bytes.NewReader(p))
		var fe *FormatError
		if err == nil || !errors.As(err, &fe) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want a FormatError with %q", tc.name, err, tc.want)
		}
	}
	// Deep nesting costs memory, not the stack.
	deep := bytes.Replace(good, []byte(`"trace_tree":[`), []byte(`"trace_tree":[`+strings.Repeat("9,0,1,16,[", 200000)+"]"+strings.Repeat("]", 199999)+","), 1)
	if _, err := Read(bytes.NewReader(deep)); err != nil {
		t.Errorf("deep tree: %v", err)
	}
}

// TestTracesNode reads a real snapshot of node --track-heap-objects:
// the leaked objects were allocated by the function that made them.
func TestTracesNode(t *testing.T) {
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("node not installed")
	}
	dir := t.TempDir()
	js := `
class Leaky { constructor(i) { this.i = i; } }
const keep = [];
function handle(i) {
  keep.push(new Leaky(i));
}
for (let i = 0; i < 1000; i++) handle(i);
require('v8').writeHeapSnapshot('s.heapsnapshot');
`
	os.WriteFile(filepath.Join(dir, "app.js"), []byte(js), 0o600)
	cmd := exec.Command(node, "--track-heap-objects", "app.js")
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("node: %v\n%s", err, out)
	}
	g, err := Open(filepath.Join(dir, "s.heapsnapshot"))
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for id := range g.Objects() {
		if g.TypeName(g.Type(id)) != "Leaky" {
			continue
		}
		f := g.SiteFrame(g.Site(id))
		if g.String(f.Function) != "handle" || !strings.HasSuffix(g.String(f.File), "app.js") || f.Line != 4 {
			t.Fatalf("a Leaky allocated at %q", heaptest.StackText(g, g.Site(id)))
		}
		n++
	}
	if n != 1000 {
		t.Errorf("%d Leaky objects, want 1000", n)
	}
}
