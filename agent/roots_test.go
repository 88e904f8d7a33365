package agent

import (
	"path/filepath"
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
			Name, Plain, Leak                  uint64
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
