package main

import (
	"encoding/json"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/heapscope/heapscope/analyze"
	"github.com/heapscope/heapscope/heap"
	"github.com/heapscope/heapscope/heapfile"
)

// TestTopJSONLinks: top's JSON gives each object once, as a row that
// links it to its immediate dominator and to the object before it on its
// shortest path; the objects those lead to that are not in the ranking
// are in "context". On a real Python heap, following the links from every
// listed object gives exactly its dominator chain and path, with --top 5
// and 30 (whose paths go through objects not listed) and with every
// object.
func TestTopJSONLinks(t *testing.T) {
	snap := filepath.Join(t.TempDir(), "w.pysnap")
	runPython(t, "whyalive.py", snap)
	g, err := heapfile.Open(snap)
	if err != nil {
		t.Fatal(err)
	}
	extra := analyze.NativeRoots(analyze.NativeHeld(g))
	tree := analyze.Dominators(g, analyze.DomOptions{ExtraRoots: extra})
	paths := analyze.ShortestPaths(g, analyze.PathOptions{ExtraRoots: extra})
	type row struct {
		id, dom, from heap.ObjectID
		hasDom        bool
		addr, edge    string
		hasEdge       bool
		root          string
	}
	parse := func(raw []json.RawMessage) row {
		var r row
		if len(raw) < 6 {
			t.Fatalf("row of %d places", len(raw))
		}
		var dom *heap.ObjectID
		json.Unmarshal(raw[0], &r.id)
		json.Unmarshal(raw[1], &r.addr)
		json.Unmarshal(raw[5], &dom)
		if dom != nil {
			r.dom, r.hasDom = *dom, true
		}
		r.from = r.dom
		if len(raw) > 6 {
			var edge *string
			json.Unmarshal(raw[6], &edge)
			if edge != nil {
				r.edge, r.hasEdge = *edge, true
			}
		}
		if len(raw) > 7 {
			var from *heap.ObjectID
			json.Unmarshal(raw[7], &from)
			if from != nil {
				r.from = *from
			}
		}
		if len(raw) > 8 {
			var more struct {
				Root string `json:"root"`
			}
			json.Unmarshal(raw[8], &more)
			r.root = more.Root
		}
		return r
	}
	for _, top := range []string{"5", "30", "0"} {
		var out struct {
			Columns []string            `json:"object_columns"`
			Objects [][]json.RawMessage `json:"objects"`
			Context [][]json.RawMessage `json:"context"`
		}
		runJSON(t, &out, "top", "--json", "--top", top, snap)
		if want := []string{"id", "addr", "type", "shallow_bytes", "retained_bytes", "dominator", "edge", "from", "more"}; !reflect.DeepEqual(out.Columns, want) {
			t.Fatalf("object_columns %v, want %v", out.Columns, want)
		}
		byID := map[heap.ObjectID]row{}
		var rows []row
		for i, raw := range append(out.Objects, out.Context...) {
			r := parse(raw)
			if _, dup := byID[r.id]; dup {
				t.Fatalf("--top %s: object %d written twice", top, r.id)
			}
			if r.addr != analyze.IDText(g, r.id) {
				t.Fatalf("--top %s: object %d is %s, the graph says %s", top, r.id, r.addr, analyze.IDText(g, r.id))
			}
			byID[r.id] = r
			if i < len(out.Objects) {
				rows = append(rows, r)
			}
		}
		if top == "30" && len(out.Context) == 0 {
			t.Errorf("--top 30 has no context: the test checks no link into it")
		}
		if top == "0" && len(out.Context) != 0 {
			t.Errorf("--top 0 lists every object, yet %d are context", len(out.Context))
		}
		for _, o := range rows {
			var chain []heap.ObjectID
			for x := o; x.hasDom; {
				chain = append([]heap.ObjectID{x.dom}, chain...)
				var ok bool
				if x, ok = byID[x.dom]; !ok {
					t.Fatalf("--top %s: the chain of %s leads to %d, which is not written", top, o.addr, chain[0])
				}
			}
			if want := analyze.DominatorChain(tree, o.id); !reflect.DeepEqual(chain, want) && len(chain)+len(want) > 0 {
				t.Errorf("--top %s: chain of %s by links %v, want %v", top, o.addr, chain, want)
			}
			p, ok := paths.Path(o.id)
			if !ok {
				if o.hasEdge || o.root != "" {
					t.Errorf("--top %s: %s has a path, the analysis none", top, o.addr)
				}
				continue
			}
			var steps []heap.ObjectID
			x := o
			for x.root == "" {
				steps = append([]heap.ObjectID{x.id}, steps...)
				next, ok := byID[x.from]
				if !x.hasEdge || !ok {
					t.Fatalf("--top %s: the path of %s stops at %s", top, o.addr, x.addr)
				}
				x = next
			}
			steps = append([]heap.ObjectID{x.id}, steps...)
			var want []heap.ObjectID
			for _, s := range p.Steps {
				want = append(want, s.Object)
			}
			if !reflect.DeepEqual(steps, want) {
				t.Errorf("--top %s: path of %s by links %v (root %q), want %v", top, o.addr, steps, x.root, want)
			}
		}
	}
}

// topRow is what the tests read of a row of top's JSON (see
// report/objline.go): [id, addr, type, shallow_bytes, retained_bytes,
// dominator, edge, from, more].
type topRow struct {
	ID   heap.ObjectID
	Addr string
	Type string
	Name string // more's "name"
}

func topRowOf(t *testing.T, raw []json.RawMessage) topRow {
	t.Helper()
	var r topRow
	if len(raw) < 6 {
		t.Fatalf("a row of top's JSON has %d places: %s", len(raw), raw)
	}
	for i, v := range []any{&r.ID, &r.Addr, &r.Type} {
		if err := json.Unmarshal(raw[i], v); err != nil {
			t.Fatalf("row %s, place %d: %v", raw, i, err)
		}
	}
	if len(raw) > 8 {
		var more struct {
			Name string `json:"name"`
		}
		if err := json.Unmarshal(raw[8], &more); err != nil {
			t.Fatalf("row %s: %v", raw, err)
		}
		r.Name = more.Name
	}
	return r
}
