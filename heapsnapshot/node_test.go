package heapsnapshot

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"

	"github.com/heapscope/heapscope/heap"
)

// leakJS grows a global Map by exactly N LeakItems between two
// snapshots, adds listeners that are never removed, and keeps a bounded
// cache. It writes s1.heapsnapshot and s2.heapsnapshot into its working
// directory.
const leakJS = `
const v8 = require('v8');
const { EventEmitter } = require('events');
const N = 1000;
class LeakItem { constructor(i) { this.i = i; this.tag = 'item-' + i; } }
class Anchor { constructor() { this.name = 'anchor'; } }
class CacheEntry { constructor(k) { this.k = k; } }
class BoundedCache {
  constructor(max) { this.max = max; this.cache = new Map(); }
  put(k) { this.cache.set(k, new CacheEntry(k)); if (this.cache.size > this.max) this.cache.delete(this.cache.keys().next().value); }
}
globalThis.anchor = new Anchor();
globalThis.leak = new Map();
globalThis.bounded = new BoundedCache(50);
globalThis.emitter = new EventEmitter();
globalThis.emitter.setMaxListeners(0);
globalThis.firstItems = [new LeakItem(-1), new LeakItem(-2), new LeakItem(-3)];
globalThis.dup1 = ['dup', 'licate', 'string'].join('-');
globalThis.dup2 = ['dup', 'licate', 'string'].join('-');
function step(k) {
  for (let i = 0; i < k; i++) {
    const n = globalThis.leak.size;
    globalThis.leak.set('k' + n, new LeakItem(n));
    globalThis.emitter.on('tick', function onTick() { return n; });
    globalThis.bounded.put(n);
  }
}
step(N);
v8.writeHeapSnapshot('s1.heapsnapshot');
step(N);
v8.writeHeapSnapshot('s2.heapsnapshot');
`

func nodeSnapshots(t *testing.T) (s1, s2 string) {
	t.Helper()
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("node not installed")
	}
	dir := t.TempDir()
	cmd := exec.Command(node, "-e", leakJS)
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("node: %v\n%s", err, out)
	}
	return filepath.Join(dir, "s1.heapsnapshot"), filepath.Join(dir, "s2.heapsnapshot")
}

func countType(g *heap.Graph, name string) (n int, ids []heap.ObjectID) {
	for id := range g.Objects() {
		if g.TypeName(g.Type(id)) == name {
			n++
			ids = append(ids, id)
		}
	}
	return n, ids
}

// globalProp returns the target of the global object's property edge
// named name: the root's shortcut edges lead to the globals.
func globalProp(t *testing.T, g *heap.Graph, name string) heap.ObjectID {
	t.Helper()
	for _, e := range g.Edges(g.Roots()[0].Object) {
		if e.Label.Kind() != heap.Shortcut {
			continue
		}
		for _, p := range g.Edges(e.To) {
			if !p.Label.IsIndex() && g.String(p.Label.Name()) == name {
				return p.To
			}
		}
	}
	t.Fatalf("no global property %q", name)
	return heap.None
}

func TestNodeSnapshots(t *testing.T) {
	p1, p2 := nodeSnapshots(t)
	g1, err := Open(p1)
	if err != nil {
		t.Fatal(err)
	}
	g2, err := Open(p2)
	if err != nil {
		t.Fatal(err)
	}
	for _, g := range []*heap.Graph{g1, g2} {
		if err := g.Validate(); err != nil {
			t.Fatal(err)
		}
		for _, w := range g.Warnings() {
			t.Errorf("warning: %v", w)
		}
	}

	// Exact counts per constructor.
	for _, tc := range []struct {
		name         string
		want1, want2 int
	}{
		{"LeakItem", 1000 + 3, 2000 + 3},
		{"Anchor", 1, 1},
		{"CacheEntry", 50, 50},
		{"BoundedCache", 1, 1},
	} {
		n1, _ := countType(g1, tc.name)
		n2, _ := countType(g2, tc.name)
		if n1 != tc.want1 || n2 != tc.want2 {
			t.Errorf("%s: %d then %d objects, want %d then %d", tc.name, n1, n2, tc.want1, tc.want2)
		}
	}

	// Property and element edges.
	bounded := globalProp(t, g2, "bounded")
	if g2.TypeName(g2.Type(bounded)) != "BoundedCache" {
		t.Errorf("global.bounded is a %s", g2.TypeName(g2.Type(bounded)))
	}
	cache := edge(t, g2, bounded, "cache")
	if g2.TypeName(g2.Type(cache.To)) != "Map" || cache.Label.Kind() != heap.Strong {
		t.Errorf("bounded.cache is a %s (%v)", g2.TypeName(g2.Type(cache.To)), cache.Label.Kind())
	}
	first := globalProp(t, g2, "firstItems")
	// V8 puts element edges on the JSArray itself; its backing store
	// hangs off the internal edge "elements".
	if e := edge(t, g2, first, "elements"); e.Label.Kind() != heap.Internal {
		t.Errorf("elements edge is %v, want internal", e.Label.Kind())
	}
	e2 := edge(t, g2, first, "[2]")
	if g2.TypeName(g2.Type(e2.To)) != "LeakItem" || !e2.Label.IsIndex() || e2.Label.Index() != 2 || e2.Label.Kind() != heap.Strong {
		t.Errorf("firstItems[2] is a %s, %v", g2.TypeName(g2.Type(e2.To)), e2.Label.Kind())
	}
	if listeners, _ := countType(g2, "onTick (closure)"); listeners != 2000 {
		t.Errorf("%d onTick functions, want 2000", listeners)
	}

	// Duplicate strings share a digest.
	d1, ok1 := g2.Digest(globalProp(t, g2, "dup1"))
	d2, ok2 := g2.Digest(globalProp(t, g2, "dup2"))
	if !ok1 || !ok2 || d1 != d2 {
		t.Errorf("dup1, dup2 digests %x %v, %x %v", d1, ok1, d2, ok2)
	}

	// Ids are stable across the two snapshots.
	a1, a2 := globalProp(t, g1, "anchor"), globalProp(t, g2, "anchor")
	if g1.Addr(a1) != g2.Addr(a2) {
		t.Errorf("anchor id %d then %d", g1.Addr(a1), g2.Addr(a2))
	}
	_, items1 := countType(g1, "LeakItem")
	for _, id := range items1 {
		id2, ok := g2.FindAddr(g1.Addr(id))
		if !ok || g2.TypeName(g2.Type(id2)) != "LeakItem" {
			t.Fatalf("LeakItem @%d of the first snapshot is not in the second", g1.Addr(id))
		}
	}

	// Sizes and counts agree with the file, decoded independently.
	for _, p := range []string{p1, p2} {
		g := g1
		if p == p2 {
			g = g2
		}
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		var raw struct {
			Snapshot struct {
				Meta struct {
					NodeFields []string `json:"node_fields"`
				} `json:"meta"`
			} `json:"snapshot"`
			Nodes   []uint64 `json:"nodes"`
			Edges   []uint64 `json:"edges"`
			Strings []string `json:"strings"`
		}
		if err := json.Unmarshal(data, &raw); err != nil {
			t.Fatal(err)
		}
		nf := len(raw.Snapshot.Meta.NodeFields)
		var size uint64
		for i := 3; i < len(raw.Nodes); i += nf {
			size += raw.Nodes[i]
		}
		if g.TotalSize() != size || g.NumObjects() != len(raw.Nodes)/nf || g.NumEdges() != len(raw.Edges)/3 {
			t.Errorf("%s: %d objects %d edges %d bytes, file says %d %d %d", filepath.Base(p),
				g.NumObjects(), g.NumEdges(), g.TotalSize(), len(raw.Nodes)/nf, len(raw.Edges)/3, size)
		}
		// Transient: "(Handle scope)" and the second "(Strong roots)",
		// found by name in the file (node name is field 1).
		var want []heap.ObjectID
		strong := 0
		for i := 0; i < len(raw.Nodes); i += nf {
			switch raw.Strings[raw.Nodes[i+1]] {
			case "(Handle scope)":
				want = append(want, heap.ObjectID(i/nf))
			case "(Strong roots)":
				if strong++; strong == 2 {
					want = append(want, heap.ObjectID(i/nf))
				}
			}
		}
		var got []heap.ObjectID
		for id := range g.Objects() {
			if g.Flags(id)&heap.FlagTransient != 0 {
				got = append(got, id)
			}
		}
		if len(want) != 2 || !slices.Equal(got, want) {
			t.Errorf("%s: transient objects %v, want %v", filepath.Base(p), got, want)
		}
	}
}
