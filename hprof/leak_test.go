package hprof

import (
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/heapscope/heapscope/analyze"
	"github.com/heapscope/heapscope/heap"
)

// TestPlantedLeak runs testdata/java/PlantedLeak.java, which grows a
// static HashMap "sessions" of 20,000 LeakedSession objects (each with a
// 1 KiB byte[] and a String) beside a bounded LRU cache and churn, dumps
// its heap, clears the map and reports the class histogram's total bytes
// before and after. What the clear freed is what the map retains, except
// the map itself and its bucket array, which HashMap.clear keeps: the map's
// retained size minus those two objects must equal the freed bytes
// (within 0.1%, for the JVM's own allocations between the histograms),
// and its retained size must be within 1% of them. The shortest paths to
// the sessions, merged, must go through the static field, as `heapscope
// why LeakedSession` shows them.
func TestPlantedLeak(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("javac"); err != nil {
		t.Skip("javac not found")
	}
	dir := t.TempDir()
	src, err := filepath.Abs("testdata/java/PlantedLeak.java")
	if err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command("javac", "-d", dir, src).CombinedOutput(); err != nil {
		t.Fatalf("javac: %v\n%s", err, out)
	}
	dump := filepath.Join(dir, "leak.hprof")
	out, err := exec.Command("java", "-Xmx256m", "-cp", dir, "PlantedLeak", dump, "20000").CombinedOutput()
	if err != nil {
		t.Fatalf("java: %v\n%s", err, out)
	}
	var before, after int64
	if _, err := fmt.Sscanf(string(out), "before %d\nafter %d\n", &before, &after); err != nil {
		t.Fatalf("PlantedLeak printed %q: %v", out, err)
	}
	freed := before - after

	g, err := Open(dump)
	if err != nil {
		t.Fatal(err)
	}
	dom := analyze.Dominators(g, analyze.DomOptions{})
	sessions := analyze.Select(g, analyze.Selector{Type: "PlantedLeak$LeakedSession"})
	if len(sessions) != 20000 {
		t.Fatalf("%d PlantedLeak$LeakedSession objects, want 20000", len(sessions))
	}
	paths := analyze.ShortestPaths(g, analyze.PathOptions{})
	groups, unreached := analyze.MergePaths(paths, dom, sessions)
	if len(groups) == 0 || unreached > 0 {
		t.Fatalf("%d path groups, %d sessions unreached", len(groups), unreached)
	}
	top := groups[0]
	var sig []string
	for _, st := range top.Signature {
		sig = append(sig, st.Type+" "+st.Edge)
	}
	t.Logf("top path group (%d sessions, %d bytes): %s", top.Count, top.Retained, strings.Join(sig, " -> "))
	if top.Count != 20000 {
		t.Errorf("the top path group holds %d sessions, want all 20000", top.Count)
	}
	// The map is the object the static field "sessions" points to.
	var hashMap heap.ObjectID = heap.None
	for _, st := range top.Sample.Steps {
		if st.Edge == "sessions" {
			hashMap = st.Object
		}
	}
	if hashMap == heap.None {
		t.Fatalf("the top path does not go through the static field sessions: %s", strings.Join(sig, " -> "))
	}
	if name := g.TypeName(g.Type(hashMap)); name != "java.util.HashMap" {
		t.Fatalf("sessions is a %s, want java.util.HashMap", name)
	}
	var table heap.ObjectID = heap.None
	for _, e := range g.Edges(hashMap) {
		if g.EdgeName(e.Label) == "table" {
			table = e.To
		}
	}
	if table == heap.None {
		t.Fatal("the map has no table")
	}
	retained := int64(dom.Retained(hashMap))
	kept := int64(g.Size(hashMap) + g.Size(table))
	t.Logf("histogram total before %d, after %d: freed %d; the map retains %d, of which the map and its table %d (HashMap.clear keeps them)",
		before, after, freed, retained, kept)
	if d := retained - freed; d*100 > freed || -d*100 > freed {
		t.Errorf("the map retains %d bytes, the clear freed %d: %+.2f%%, want within 1%%", retained, freed, 100*float64(d)/float64(freed))
	}
	if d := retained - kept - freed; d*1000 > freed || -d*1000 > freed {
		t.Errorf("the map retains %d bytes besides itself and its table, the clear freed %d: %+.3f%%, want within 0.1%%",
			retained-kept, freed, 100*float64(d)/float64(freed))
	}

	// The leak suspect is the class, its accumulation point the map's
	// table, held in the map, with the 20,000 sessions as its elements;
	// what accumulates there is what the clear freed, but the table.
	sus := analyze.Suspects(dom, analyze.SuspectOptions{})
	if len(sus) == 0 {
		t.Fatal("no leak suspect")
	}
	s := sus[0]
	if name, _ := g.Name(s.Object); name != "class PlantedLeak" || s.Point != table || s.Holder != hashMap {
		t.Errorf("suspect %q, point %d, holder %d; want class PlantedLeak, the table %d, the map %d", name, s.Point, s.Holder, table, hashMap)
	}
	if len(s.Elements) == 0 || s.Elements[0].Type != "PlantedLeak$LeakedSession" || s.Elements[0].Count != 20000 {
		t.Errorf("elements %+v, want 20000 PlantedLeak$LeakedSession first", s.Elements)
	}
	acc := int64(s.PointRetained) - int64(g.Size(table))
	if d := acc - freed; d*1000 > freed || -d*1000 > freed {
		t.Errorf("%d bytes accumulate in the table besides itself, the clear freed %d: %+.3f%%, want within 0.1%%",
			acc, freed, 100*float64(d)/float64(freed))
	}
}
