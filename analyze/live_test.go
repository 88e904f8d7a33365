package analyze

import (
	"slices"
	"testing"

	"github.com/heapscope/heapscope/heap"
	"github.com/heapscope/heapscope/internal/heaptest"
)

// TestHung checks that in a snapshot of live objects, objects held only
// through edges that do not retain hang under the super-root, with what
// they retain below them, and keep a path through the weak edge; in
// other snapshots they stay unreachable.
func TestHung(t *testing.T) {
	const src = `
root vm r (root)
r Root 0 -> page=g
g global 10 -> wm=w
w WeakMap 20 -> table=t
t Table 30 -> weak:value=v
k Key 5 -> weak:value=v
v Value 40 -> data=d back=g
d Data 50
lone Orphan 7 -> o=o2
o2 Orphan 8 -> back=lone
`
	for _, live := range []bool{false, true} {
		text := src
		if live {
			text = "live\n" + src
		}
		g := heaptest.MustParse(t, text)
		id := func(typ string) heap.ObjectID {
			objs := Select(g, Selector{Type: typ})
			if len(objs) == 0 {
				t.Fatalf("no %s", typ)
			}
			return objs[0]
		}
		tree := Dominators(g, DomOptions{})
		paths := ShortestPaths(g, PathOptions{})
		v, d := id("Value"), id("Data")
		if !live {
			if tree.Reachable(v) || paths.Reached(v) || len(tree.Hung()) != 0 {
				t.Errorf("not live: Value reachable %v, reached %v, hung %v", tree.Reachable(v), paths.Reached(v), tree.Hung())
			}
			continue
		}
		// Key and the lone cycle are held by nothing: hung too, each
		// with what it holds.
		want := []heap.ObjectID{v, id("Key"), id("Orphan")}
		if !slices.Equal(tree.Hung(), want) {
			t.Errorf("Hung() = %v, want %v", tree.Hung(), want)
		}
		// Hung under the only root object, as DevTools hangs them under
		// its root node; so is what both reach (the global), which the
		// super-root would otherwise dominate.
		r, glob := id("Root"), id("global")
		if tree.Idom(v) != r || tree.Idom(d) != v || tree.Retained(v) != 90 || tree.Idom(glob) != r {
			t.Errorf("Value: idom %v, retained %d; Data idom %v; global idom %v", tree.Idom(v), tree.Retained(v), tree.Idom(d), tree.Idom(glob))
		}
		if tree.Retained(r) != g.TotalSize() || tree.NumChildren(SuperRoot) != 1 {
			t.Errorf("root retains %d of %d; the super-root has %d children", tree.Retained(r), g.TotalSize(), tree.NumChildren(SuperRoot))
		}
		if u := Unreachables(tree); u.Count != 0 {
			t.Errorf("%d unreachable, want 0", u.Count)
		}
		p, ok := paths.Path(d)
		if !ok {
			t.Fatalf("no path to Data")
		}
		var steps []string
		for _, s := range p.Steps[1:] {
			steps = append(steps, s.Edge+":"+s.Kind.String())
		}
		if got := slices.Clone(steps); !slices.Equal(got, []string{"page:strong", "wm:strong", "table:strong", "value:weak", "data:strong"}) {
			t.Errorf("path to Data = %v", got)
		}
		if c, b := RetainedBySet(tree, []heap.ObjectID{id("WeakMap")}); c != 2 || b != 50 {
			t.Errorf("RetainedBySet(WeakMap) = %d, %d; want the map and its table, 2, 50", c, b)
		}
	}
}

// TestCollapseWeakMapEntry checks that V8's per-entry names of WeakMap
// edges fall in one group, as Map slots do.
func TestCollapseWeakMapEntry(t *testing.T) {
	for name, want := range map[string]string{
		"1 / part of key (Session @281221) -> value (SessionMeta @294049) pair in WeakMap (table @260643)": "[*]",
		"1020":    "[*]",
		"table":   "table",
		"WeakMap": "WeakMap",
	} {
		if got := collapseEdge(name); got != want {
			t.Errorf("collapseEdge(%q) = %q, want %q", name, got, want)
		}
	}
}
