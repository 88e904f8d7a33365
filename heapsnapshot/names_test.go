package heapsnapshot

import (
	"bytes"
	"compress/gzip"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/heapscope/heapscope/heap"
	"github.com/heapscope/heapscope/internal/input"
)

// TestNames checks the names users know: closures by their function,
// synthetic roots by their own names, and a class apart from its
// constructor, which shares its name.
func TestNames(t *testing.T) {
	s := tinySnap()
	s.nodes = append(s.nodes,
		tnode{typ: "closure", name: "LeakItem", id: 33, size: 32},
		tnode{typ: "closure", name: "", id: 35, size: 32},
		tnode{typ: "synthetic", name: "C++ roots", id: 37},
	)
	g := mustRead(t, s.bytes(), Options{SkipValues: true})
	for id, want := range map[heap.ObjectID]string{
		0: "(root)", 1: "(GC roots)", 2: "(Global handles)", 14: "LeakItem",
		15: "onData (closure)", 16: "LeakItem (closure)", 17: "(anonymous) (closure)", 18: "C++ roots",
	} {
		if got := g.TypeName(g.Type(id)); got != want {
			t.Errorf("TypeName(%d) = %q, want %q", id, got, want)
		}
	}
	if g.Flags(18)&heap.FlagSynthetic == 0 {
		t.Errorf("C++ roots is not flagged synthetic")
	}
}

// TestDetached checks DevTools' DOM state propagation: a node Blink
// marks detached, and the native nodes only it reaches, are "Detached";
// a native node an attached one reaches is not, nor is a JavaScript
// object (the state does not pass through it).
func TestDetached(t *testing.T) {
	s := tinySnap()
	n := len(s.nodes)
	s.nodes[3].edges = append(s.nodes[3].edges, tedge{typ: "property", name: "kept", to: n})
	s.nodes = append(s.nodes,
		// n: a detached <div> held from the page; it holds a text node,
		// a JavaScript wrapper-like object and a span the document holds.
		tnode{typ: "native", name: "<div id=menu>", id: 40, size: 100, dom: domDetached, edges: []tedge{
			{typ: "element", index: 0, to: n + 1}, {typ: "property", name: "js", to: n + 2},
			{typ: "element", index: 1, to: n + 4}, {typ: "weak", name: "w", to: n + 5}}},
		tnode{typ: "native", name: "Text", id: 42, size: 40},
		tnode{typ: "object", name: "Wrapper", id: 43, size: 40, edges: []tedge{{typ: "property", name: "n", to: n + 3}}},
		tnode{typ: "native", name: "<span>", id: 44, size: 40},
		// n+4: attached, so is what it holds.
		tnode{typ: "native", name: "<span>", id: 46, size: 40, dom: domAttached, edges: []tedge{{typ: "element", index: 0, to: n + 6}}},
		tnode{typ: "native", name: "<p>", id: 48, size: 40},
		tnode{typ: "native", name: "<div id=x>", id: 50, size: 40},
	)
	s.nodes[0].edges = append(s.nodes[0].edges, tedge{typ: "element", index: 9, to: n + 5})
	g := mustRead(t, s.bytes(), Options{})
	for id, want := range map[int]string{
		n: "Detached <div>", n + 1: "Detached Text", n + 2: "Wrapper", n + 3: "<span>",
		n + 4: "<span>", n + 5: "<p>", n + 6: "<div>",
	} {
		if got := g.TypeName(g.Type(heap.ObjectID(id))); got != want {
			t.Errorf("TypeName(%d) = %q, want %q", id, got, want)
		}
	}
	// Without the field, nothing is detached.
	s.nodeFields = []string{"type", "name", "id", "self_size", "edge_count", "trace_node_id"}
	g = mustRead(t, s.bytes(), Options{})
	if got := g.TypeName(g.Type(heap.ObjectID(n))); got != "<div>" {
		t.Errorf("without detachedness: %q", got)
	}
}

// TestBigIndex checks that element indices beyond what a label's index
// field holds are shown as they are, and that small ones stay indices.
func TestBigIndex(t *testing.T) {
	s := tinySnap()
	s.nodes[10].edges = append(s.nodes[10].edges,
		tedge{typ: "element", index: 600_000_000, to: 14},
		tedge{typ: "element", index: heap.MaxIndex, to: 14},
		tedge{typ: "element", index: 1 << 40, to: 15},
		tedge{typ: "hidden", index: heap.MaxIndex - 1, to: 15})
	g := mustRead(t, s.bytes(), Options{})
	var names []string
	for _, e := range g.Edges(10) {
		names = append(names, g.EdgeName(e.Label))
	}
	want := "[0] [2] [600000000] [536870911] [1099511627776] [536870910]"
	if got := strings.Join(names, " "); got != want {
		t.Errorf("edge names = %s, want %s", got, want)
	}
	if e := g.Edges(10)[5]; !e.Label.IsIndex() || e.Label.Kind() != heap.Internal {
		t.Errorf("hidden [%d] is %v, index %v", heap.MaxIndex-1, e.Label.Kind(), e.Label.IsIndex())
	}
	if e := g.Edges(10)[2]; e.Label.Kind() != heap.Strong {
		t.Errorf("element [600000000] is %v, want strong", e.Label.Kind())
	}
	for _, w := range g.Warnings() {
		t.Errorf("warning: %s", w)
	}
}

// TestGzip reads a gzip-compressed snapshot through Open and Read, and
// refuses a stream that expands beyond the bound.
func TestGzip(t *testing.T) {
	plain := synthSnap(5001).bytes()
	want := mustRead(t, plain, Options{})
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write(plain)
	zw.Close()
	path := filepath.Join(t.TempDir(), "s.heapsnapshot.gz")
	if err := os.WriteFile(path, gz.Bytes(), 0o600); err != nil {
		t.Fatal(err)
	}
	if !Match(gz.Bytes()[:min(gz.Len(), 4096)]) {
		t.Errorf("Match(gzip prefix) = false")
	}
	g, err := Open(path)
	if err != nil {
		t.Fatalf("Open(gzip): %v", err)
	}
	g2 := mustRead(t, gz.Bytes(), Options{})
	for _, got := range []*heap.Graph{g, g2} {
		if got.NumObjects() != want.NumObjects() || got.NumEdges() != want.NumEdges() || got.TotalSize() != want.TotalSize() {
			t.Errorf("gzip: %d objects %d edges, want %d %d", got.NumObjects(), got.NumEdges(), want.NumObjects(), want.NumEdges())
		}
	}
	_, err = Options{MaxInflated: int64(len(plain) / 2)}.Read(bytes.NewReader(gz.Bytes()))
	var fe *FormatError
	if !errors.As(err, &fe) || fe.Offset != int64(len(plain)/2) || !errors.Is(err, input.ErrTooLarge) {
		t.Errorf("capped read: %v, want a FormatError at the bound wrapping input.ErrTooLarge", err)
	}
	cut := gz.Bytes()[:gz.Len()/2]
	if _, err := Read(bytes.NewReader(cut)); err == nil {
		t.Errorf("Read(cut gzip) succeeded")
	}
	if _, err := Read(bytes.NewReader([]byte{0x1f, 0x8b, 1, 2, 3})); !errors.As(err, &fe) {
		t.Errorf("Read(bad gzip header) = %v, want a FormatError", err)
	}
}
