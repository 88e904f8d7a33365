package agent

import (
	"encoding/json"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/heapscope/heapscope/analyze"
	"github.com/heapscope/heapscope/heap"
)

// TestInterpreterHoldings: what gc.get_referents does not show gets its
// edges (code objects' contents, descriptors' names, the record of a
// class's subclasses, a static type's dict), the interpreter's state is a
// root with its fields, interned strs are flagged, and a reference leaked
// with Py_IncRef is the one object held outside the heap that matters.
func TestInterpreterHoldings(t *testing.T) {
	eachPython(t, func(t *testing.T, py interp) {
		var r struct {
			Outer, Code, Consts, Const, Nested uint64
			Filename                           string
			Join, Str, Int                     uint64
			IntDict                            uint64 `json:"int_dict"`
			Base, Derived, Filters, Modules    uint64
			Name, Plain, Leak, Shared          uint64
			SharedBytes                        uint64 `json:"shared_bytes"`
		}
		path := filepath.Join(t.TempDir(), "a.pysnap")
		runPyWith(t, py.Path, nil, "roots.py", &r, path)
		g := open(t, path)
		noDangling(t, g)
		o := func(a uint64, what string) heap.ObjectID { return find(t, g, a, what) }

		code := o(r.Code, "outer's code")
		wantEdge(t, g, o(r.Outer, "outer"), code, "__code__", heap.Internal)
		wantEdge(t, g, code, o(r.Consts, "co_consts"), "co_consts", heap.Internal)
		consts := o(r.Consts, "co_consts")
		for _, k := range []struct {
			id   heap.ObjectID
			what string
		}{{o(r.Const, "the str constant"), "the str constant"}, {o(r.Nested, "inner's code"), "inner's code"}} {
			if _, ok := edgeTo(g, consts, k.id); !ok {
				t.Errorf("co_consts has no edge to %s", k.what)
			}
		}
		var fields []string
		for _, e := range g.Edges(code) {
			fields = append(fields, g.EdgeName(e.Label))
			if g.EdgeName(e.Label) == "co_filename" {
				if v, _ := g.Value(e.To); v != r.Filename {
					t.Errorf("co_filename %q, want %q", v, r.Filename)
				}
			}
		}
		want := "co_consts co_names co_filename co_name"
		if py.minor() >= 11 {
			want += " co_qualname co_linetable co_exceptiontable co_localsplusnames co_localspluskinds"
		} else {
			want += " co_varnames co_freevars co_cellvars co_code"
		}
		for _, f := range strings.Fields(want) {
			if !strings.Contains(" "+strings.Join(fields, " ")+" ", " "+f+" ") {
				t.Errorf("code object has no %s edge: %v", f, fields)
			}
		}

		join := o(r.Join, "str.join")
		wantEdge(t, g, join, o(r.Str, "str"), "__objclass__", heap.Internal)
		var named bool
		for _, e := range g.Edges(join) {
			if v, _ := g.Value(e.To); g.EdgeName(e.Label) == "__name__" && v == "join" {
				named = true
			}
		}
		if !named {
			t.Errorf("str.join has no __name__ edge to 'join'")
		}
		wantEdge(t, g, o(r.Int, "int"), o(r.IntDict, "int's dict"), "__dict__", heap.Strong)

		base, derived := o(r.Base, "Base"), o(r.Derived, "Derived")
		var rec heap.ObjectID = heap.None
		for _, e := range g.Edges(base) {
			if g.EdgeName(e.Label) == "<subclasses>" {
				rec = e.To
			}
		}
		if rec == heap.None {
			t.Fatalf("Base has no record of its subclasses")
		}
		found := false
		for _, e := range g.Edges(rec) {
			for _, e2 := range g.Edges(e.To) {
				found = found || (e2.To == derived && e2.Label.Kind() == heap.Weak)
			}
		}
		if !found {
			t.Errorf("Base's record of its subclasses does not lead to Derived")
		}

		var state heap.ObjectID = heap.None
		for _, root := range g.Roots() {
			if root.Kind == heap.RootVM && g.String(root.Name) == "interpreter" {
				state = root.Object
			}
		}
		if state == heap.None {
			t.Fatalf("no interpreter root")
		}
		if typeName(g, state) != "(interpreter state)" || g.Flags(state)&heap.FlagSynthetic == 0 || g.Size(state) != 0 {
			t.Errorf("interpreter root is a %s of %d bytes, flags %v", typeName(g, state), g.Size(state), g.Flags(state))
		}
		wantEdge(t, g, state, o(r.Filters, "warnings.filters"), "warnings.filters", heap.Strong)
		wantEdge(t, g, state, o(r.Modules, "sys.modules"), "modules", heap.Strong)

		if g.Flags(o(r.Name, "the interned str"))&heap.FlagInterned == 0 {
			t.Errorf("the interned str is not flagged interned")
		}
		if g.Flags(o(r.Plain, "the plain str"))&heap.FlagInterned != 0 {
			t.Errorf("a str that is not interned is flagged interned")
		}

		// The leaked list is held outside the heap, and retains the
		// most of what is.
		leak := o(r.Leak, "the leaked list")
		held := analyze.NativeHeld(g)
		tree := analyze.Dominators(g, analyze.DomOptions{ExtraRoots: analyze.NativeRoots(held)})
		groups := analyze.NativeByType(tree, held)
		if len(groups) == 0 || groups[0].Sample != leak {
			t.Errorf("the leaked list is not the first held outside the heap: %+v", groups)
		}

		// No path stealing: what a module reaches gets the module's path,
		// though the interpreter state or a leaked reference holds it too;
		// the leaked list, which no module reaches, gets the native one.
		paths := analyze.ShortestPaths(g, analyze.PathOptions{ExtraRoots: analyze.NativeRoots(held)})
		for _, w := range []struct {
			id          heap.ObjectID
			what, roots string // the names the path may start at, split by "|"
			kind        heap.RootKind
		}{
			{o(r.Filters, "warnings.filters"), "warnings.filters", "warnings|_warnings", heap.RootModule},
			{o(r.Modules, "sys.modules"), "sys.modules", "sys", heap.RootModule},
			{o(r.Shared, "the shared list"), "the list held outside and by __main__", "__main__", heap.RootModule},
			{o(r.SharedBytes, "the shared bytearray"), "the bytearray in that list", "__main__", heap.RootModule},
			{leak, "the leaked list", analyze.NativeRootName, heap.RootNative},
		} {
			p, ok := paths.Path(w.id)
			if !ok {
				t.Errorf("no path to %s", w.what)
				continue
			}
			if p.RootKind != w.kind || !slices.Contains(strings.Split(w.roots, "|"), p.RootName) {
				t.Errorf("the path to %s starts at %s %q, want %s %q", w.what, p.RootKind, p.RootName, w.kind, w.roots)
			}
		}
	})
}

// TestHeldOutsideBare: in an interpreter that runs nothing but the agent,
// what the interpreter holds is modelled (edges, the interpreter state,
// flags), and fewer than 20 objects are left held outside the heap.
func TestHeldOutsideBare(t *testing.T) {
	eachPython(t, func(t *testing.T, py interp) {
		path := filepath.Join(t.TempDir(), "bare.pysnap")
		var p string
		runPyWith(t, py.Path, nil, "bare.py", &p, path)
		g := open(t, path)
		noDangling(t, g)
		held := analyze.NativeHeld(g)
		if len(held) >= 20 {
			var s []string
			for _, h := range held {
				v, _ := g.Value(h.Object)
				s = append(s, typeName(g, h.Object)+" "+v)
			}
			t.Errorf("%d objects held outside the heap in a bare interpreter: %s", len(held), strings.Join(s, "; "))
		}
		t.Logf("%d objects held outside the heap", len(held))
	})
}

// TestSlottedEdges: instances of classes with __slots__ (empty slots, a
// subclass's slots, slots beside a __dict__) and of dict subclasses, a
// few hundred of each class, have the edges the program reads from them
// (each slot by its name, the entries by their keys, the class, the
// instance dict), read through the agent's per-class layouts.
func TestSlottedEdges(t *testing.T) {
	eachPython(t, func(t *testing.T, py interp) {
		var oracle [][3]json.RawMessage
		path := filepath.Join(t.TempDir(), "s.pysnap")
		runPyWith(t, py.Path, nil, "slotted.py", &oracle, path)
		g := open(t, path)
		noDangling(t, g)
		bad := 0
		for _, row := range oracle {
			var addr uint64
			var class string
			var want [][2]json.RawMessage
			if json.Unmarshal(row[0], &addr) != nil || json.Unmarshal(row[1], &class) != nil || json.Unmarshal(row[2], &want) != nil {
				t.Fatalf("bad oracle row %s", row)
			}
			id := find(t, g, addr, class)
			for _, w := range want {
				var name string
				var to uint64
				if json.Unmarshal(w[0], &name) != nil || json.Unmarshal(w[1], &to) != nil {
					t.Fatalf("bad oracle edge %s", w)
				}
				l, ok := edgeTo(g, id, find(t, g, to, name))
				if (!ok || g.EdgeName(l) != name) && bad < 10 {
					bad++
					var got []string
					for _, e := range g.Edges(id) {
						got = append(got, g.EdgeName(e.Label))
					}
					t.Errorf("%s@%#x: no edge %s (edges %v)", class, addr, name, got)
				}
			}
		}
	})
}
