package heapsnapshot

import (
	"strings"
	"testing"

	"github.com/heapscope/heapscope/analyze"
	"github.com/heapscope/heapscope/heap"
)

// TestOffPageWeakMapValue checks the case DevTools handles by hanging
// nodes under the root: a WeakMap on the page whose key only a handle
// holds. Both edges to the value are non-essential (the table's, and
// the key's from outside the page), so no retaining path reaches it;
// it is alive all the same, retained under the root node (as in
// DevTools, whose root is that node), and why finds it
// through the demoted edge.
func TestOffPageWeakMapValue(t *testing.T) {
	eph := "1 / part of key (Key @9) -> value (Meta @11) pair in WeakMap (table @7)"
	s := &tsnap{nodes: []tnode{
		{typ: "synthetic", name: "", id: 1, edges: []tedge{{typ: "element", index: 1, to: 1}, {typ: "shortcut", name: "1", to: 3}}},
		{typ: "synthetic", name: "(GC roots)", id: 3, edges: []tedge{{typ: "element", index: 0, to: 2}}},
		{typ: "synthetic", name: "(Global handles)", id: 5, edges: []tedge{{typ: "internal", name: "0 / handle", to: 6}}},
		{typ: "object", name: "global", id: 13, size: 40, edges: []tedge{{typ: "property", name: "meta", to: 4}}},
		{typ: "object", name: "WeakMap", id: 15, size: 32, edges: []tedge{{typ: "internal", name: "table", to: 5}}},
		{typ: "array", name: "", id: 7, size: 80, edges: []tedge{{typ: "internal", name: eph, to: 7}, {typ: "weak", name: "key", to: 6}}},
		{typ: "object", name: "Key", id: 9, size: 16, edges: []tedge{{typ: "internal", name: eph, to: 7}}},
		{typ: "object", name: "Meta", id: 11, size: 64, edges: []tedge{{typ: "property", name: "notes", to: 8}}},
		{typ: "string", name: "notes", id: 17, size: 24},
	}}
	g := mustRead(t, s.bytes(), Options{})
	if !g.Meta().Live {
		t.Fatalf("a V8 snapshot is not marked live")
	}
	tree := analyze.Dominators(g, analyze.DomOptions{})
	meta := heap.ObjectID(7)
	if tree.Idom(meta) != 0 || tree.Retained(meta) != 64+24 || tree.Retained(0) != g.TotalSize() {
		t.Errorf("Meta: idom %v, retained %d; root retains %d; want the root, 88, all %d",
			tree.Idom(meta), tree.Retained(meta), tree.Retained(0), g.TotalSize())
	}
	if u := analyze.Unreachables(tree); u.Count != 0 {
		t.Errorf("%d objects unreachable, want none", u.Count)
	}
	p, ok := analyze.ShortestPaths(g, analyze.PathOptions{}).Path(meta)
	if !ok {
		t.Fatalf("no path to Meta")
	}
	last := p.Steps[len(p.Steps)-1]
	if last.Kind != heap.Weak || !strings.Contains(last.Edge, "pair in WeakMap") {
		t.Errorf("path to Meta ends with %q (%v), want the demoted ephemeron edge", last.Edge, last.Kind)
	}
}
