package main

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/heapscope/heapscope/analyze"
	"github.com/heapscope/heapscope/heap"
	"github.com/heapscope/heapscope/heapfile"
)

// TestSkipEdgesSameAnswers: summary and diff read snapshots without
// their references (heapfile.Options.SkipEdges). On sympy's heaps, where
// classes are named and grouped into families through the edges of
// class objects, every object keeps its type, size, name and value, and
// both commands say what the analyses say of the snapshots read whole.
func TestSkipEdgesSameAnswers(t *testing.T) {
	py := debianPython(t, "sympy")
	dir := t.TempDir()
	runPythonWith(t, py, "sympyclasses.py", dir)
	a, b := filepath.Join(dir, "a.pysnap"), filepath.Join(dir, "b.pysnap")

	read := func(path string, skip bool) *heap.Graph {
		g, err := heapfile.Options{SkipEdges: skip}.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		return g
	}
	fullA, fullB := read(a, false), read(b, false)
	skipA := read(a, true)
	if !skipA.EdgesSkipped() || fullA.EdgesSkipped() {
		t.Fatalf("EdgesSkipped: %v with SkipEdges, %v without", skipA.EdgesSkipped(), fullA.EdgesSkipped())
	}
	if skipA.NumEdges()*10 > fullA.NumEdges() {
		t.Errorf("SkipEdges kept %d of %d edges", skipA.NumEdges(), fullA.NumEdges())
	}
	if skipA.NumObjects() != fullA.NumObjects() {
		t.Fatalf("%d objects with SkipEdges, %d without", skipA.NumObjects(), fullA.NumObjects())
	}
	named := 0
	for id := range fullA.Objects() {
		fn, fok := fullA.Name(id)
		sn, sok := skipA.Name(id)
		fv, _ := fullA.Value(id)
		sv, _ := skipA.Value(id)
		if fullA.Addr(id) != skipA.Addr(id) || fullA.Size(id) != skipA.Size(id) ||
			fullA.TypeName(fullA.Type(id)) != skipA.TypeName(skipA.Type(id)) || fn != sn || fok != sok || fv != sv {
			t.Fatalf("object %d: %#x %s %q %d %q with SkipEdges, %#x %s %q %d %q without", id,
				skipA.Addr(id), skipA.TypeName(skipA.Type(id)), sn, skipA.Size(id), sv,
				fullA.Addr(id), fullA.TypeName(fullA.Type(id)), fn, fullA.Size(id), fv)
		}
		if fok {
			named++
		}
	}
	if named < 100 {
		t.Errorf("only %d named objects: sympy's heap should have hundreds of classes and functions", named)
	}

	jsonOf := func(v any) string {
		var buf bytes.Buffer
		enc := json.NewEncoder(&buf)
		enc.SetIndent("", " ")
		if err := enc.Encode(v); err != nil {
			t.Fatal(err)
		}
		return buf.String()
	}
	var summary struct {
		Rows []analyze.TypeSummary `json:"rows"`
	}
	runJSON(t, &summary, "summary", "--json", a)
	if got, want := jsonOf(summary.Rows), jsonOf(analyze.Summary(fullA)); got != want {
		t.Errorf("summary differs from the whole snapshot's:\n%s\nwant\n%s", got, want)
	}
	var diff struct {
		Rows []analyze.TypeDelta `json:"rows"`
	}
	runJSON(t, &diff, "diff", "--json", a, b)
	want := analyze.Diff(fullA, fullB, analyze.DiffOptions{})
	if !reflect.DeepEqual(diff.Rows, want) {
		t.Errorf("diff differs from the whole snapshots':\n%s\nwant\n%s", jsonOf(diff.Rows), jsonOf(want))
	}
	families := 0
	for _, r := range want {
		if r.Classes != "" {
			families++
		}
	}
	if families == 0 {
		t.Errorf("no class family in the diff of sympy's heaps: the test checks nothing of names")
	}
}
