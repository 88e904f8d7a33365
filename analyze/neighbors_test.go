package analyze

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/heapscope/heapscope/heap"
	"github.com/heapscope/heapscope/internal/heaptest"
)

// retainersGraph: an item held by a module's cache (a dict), by a list
// in a holder object, weakly by a weakref, and by an object that the item
// holds back (a cycle); many entries held by one dict each, under one
// map.
const retainersGraph = `
runtime python
root module app app
app module 72 -> .cache=cache .holder=holder .weak=wr .entries=m
cache dict 200 -> ['a']=item ['b']=other
holder app.Holder 48 -> .items=lst
lst list 88 -> [0]=item [1]=item
wr weakref 64 -> weak:referent=item
item app.Item 56 -> .parent=back
back app.Back 40 -> .child=item
other app.Item 56
m dict 500 -> ['x1']=e1 ['x2']=e2 ['x3']=e3
e1 app.Entry 30
e2 app.Entry 30
e3 app.Entry 30
`

// groupText writes a level of groups, indented by depth.
func groupText(g *heap.Graph, groups []NeighborGroup, depth int, b *strings.Builder) {
	for _, grp := range groups {
		fmt.Fprintf(b, "%s%s %s %s x%d edges=%d dist=%d retained=%d cycle=%d", strings.Repeat("  ", depth), grp.Edge, grp.Kind, grp.Type, len(grp.Objects), grp.Edges, grp.Distance, grp.Retained, grp.Cycle)
		if grp.Hidden > 0 {
			fmt.Fprintf(b, " hidden=%d", grp.Hidden)
		}
		b.WriteByte('\n')
		groupText(g, grp.Kids, depth+1, b)
	}
}

func neighbors(t *testing.T, g *heap.Graph, sel string, opt NeighborOptions) string {
	t.Helper()
	dt := Dominators(g, DomOptions{})
	pt := ShortestPaths(g, PathOptions{})
	s, err := ParseSelector(sel)
	if err != nil {
		t.Fatal(err)
	}
	tree, err := Neighbors(dt, pt, Select(g, s), opt)
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	groupText(g, tree.Groups, 0, &b)
	return b.String()
}

func TestNeighborsOneObject(t *testing.T) {
	g := heaptest.MustParse(t, retainersGraph)
	item := fmt.Sprintf("0x%x", 0x1000+16*5) // the 6th object declared
	got := neighbors(t, g, item, NeighborOptions{Depth: 3})
	// Each edge on its own, nearest the root first: the cache (distance
	// 1), the list (2: app -> holder -> lst), the back object (3, through
	// the item itself: a cycle), the weakref (1; weak edges do not lead
	// a shortest path, but the weakref itself is one step from app).
	want := `['a'] strong dict x1 edges=1 dist=1 retained=256 cycle=0
  .cache strong module x1 edges=1 dist=0 retained=1214 cycle=0
weak:referent weak weakref x1 edges=1 dist=1 retained=64 cycle=0
  .weak strong module x1 edges=1 dist=0 retained=1214 cycle=0
[0] strong list x1 edges=1 dist=2 retained=88 cycle=0
  .items strong app.Holder x1 edges=1 dist=1 retained=136 cycle=0
    .holder strong module x1 edges=1 dist=0 retained=1214 cycle=0
[1] strong list x1 edges=1 dist=2 retained=88 cycle=0
  .items strong app.Holder x1 edges=1 dist=1 retained=136 cycle=0
    .holder strong module x1 edges=1 dist=0 retained=1214 cycle=0
.child strong app.Back x1 edges=1 dist=3 retained=40 cycle=0
  .parent strong app.Item x1 edges=1 dist=2 retained=96 cycle=1
`
	want = strings.ReplaceAll(want, "weak:referent weak", "referent weak")
	if got != want {
		t.Errorf("retainers of the item:\n%s\nwant:\n%s", got, want)
	}
}

func TestNeighborsGrouped(t *testing.T) {
	g := heaptest.MustParse(t, retainersGraph)
	// Three entries, one edge each from one dict: grouped (Each: 1), the
	// per-entry names as [*].
	got := neighbors(t, g, "app.Entry", NeighborOptions{Each: 1, Depth: 2})
	want := `[*] strong dict x1 edges=3 dist=1 retained=590 cycle=0
  .entries strong module x1 edges=1 dist=0 retained=1214 cycle=0
`
	if got != want {
		t.Errorf("retainers of the entries:\n%s\nwant:\n%s", got, want)
	}
	// What the module holds, grouped, largest first.
	got = neighbors(t, g, "module", NeighborOptions{Out: true, Each: -1})
	want = `.entries strong dict x1 edges=1 dist=1 retained=590 cycle=0
.cache strong dict x1 edges=1 dist=1 retained=256 cycle=0
.holder strong app.Holder x1 edges=1 dist=1 retained=136 cycle=0
.weak strong weakref x1 edges=1 dist=1 retained=64 cycle=0
`
	if got != want {
		t.Errorf("references of the module:\n%s\nwant:\n%s", got, want)
	}
}

// TestNeighborsOracle checks the first level against a scan of every
// edge on random graphs: the groups hold every edge into (or out of)
// the selection once, their objects are the neighbours, a group's
// retained size is what TopMost sums, its distance the shortest path's
// length; Path reaches the same level as Depth expands.
func TestNeighborsOracle(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	for i := range 600 {
		g, extra := randomGraph(r, 40)
		dt := Dominators(g, DomOptions{ExtraRoots: extra})
		pt := ShortestPaths(g, PathOptions{ExtraRoots: extra})
		sel := Select(g, Selector{Type: "A"})
		if len(sel) == 0 {
			continue
		}
		in := map[heap.ObjectID]bool{}
		for _, x := range sel {
			in[x] = true
		}
		for _, out := range []bool{false, true} {
			for _, each := range []int{-1, 1000} {
				tree, err := Neighbors(dt, pt, sel, NeighborOptions{Out: out, Each: each, Depth: 2})
				if err != nil {
					t.Fatal(err)
				}
				wantEdges := map[heap.ObjectID]int{} // neighbour -> edges
				total := 0
				for v := range g.NumObjects() {
					for _, e := range g.Edges(heap.ObjectID(v)) {
						switch {
						case !out && in[e.To]:
							wantEdges[heap.ObjectID(v)]++
							total++
						case out && in[heap.ObjectID(v)]:
							wantEdges[e.To]++
							total++
						}
					}
				}
				gotEdges := map[heap.ObjectID]int{}
				n := 0
				for k, grp := range tree.Groups {
					n += grp.Edges
					for _, x := range grp.Objects {
						gotEdges[x]++
					}
					_, sum := TopMost(dt, grp.Objects)
					if sum != grp.Retained {
						t.Fatalf("graph %d out=%v: group %d retains %d, TopMost %d", i, out, k, grp.Retained, sum)
					}
					d := -1
					for _, x := range grp.Objects {
						if p, ok := pt.Path(x); ok && (d < 0 || len(p.Steps)-1 < d) {
							d = len(p.Steps) - 1
						}
					}
					if d != grp.Distance {
						t.Fatalf("graph %d out=%v: group %d distance %d, paths say %d", i, out, k, grp.Distance, d)
					}
					// The group's kids are the level its path reaches.
					sub, err := Neighbors(dt, pt, sel, NeighborOptions{Out: out, Each: each, Path: []int{k}})
					if err != nil {
						t.Fatal(err)
					}
					var a, b strings.Builder
					groupText(g, grp.Kids, 0, &a)
					groupText(g, sub.Groups, 0, &b)
					if a.String() != b.String() {
						t.Fatalf("graph %d out=%v: group %d expands to\n%s\nits path to\n%s", i, out, k, a.String(), b.String())
					}
				}
				if n != total {
					t.Fatalf("graph %d out=%v each=%d: groups have %d edges, the graph %d", i, out, each, n, total)
				}
				for x := range wantEdges {
					if gotEdges[x] == 0 {
						t.Fatalf("graph %d out=%v: neighbour %d is in no group", i, out, x)
					}
				}
				if len(gotEdges) != len(wantEdges) {
					t.Fatalf("graph %d out=%v: %d neighbours in groups, %d in the graph", i, out, len(gotEdges), len(wantEdges))
				}
			}
		}
	}
}

// TestNeighborsBudget: a budget too small for the first level says so.
func TestNeighborsBudget(t *testing.T) {
	g := heaptest.MustParse(t, retainersGraph)
	dt := Dominators(g, DomOptions{})
	tree, err := Neighbors(dt, nil, Select(g, Selector{Type: "app.Entry"}), NeighborOptions{Budget: 2})
	if err != nil {
		t.Fatal(err)
	}
	if !tree.Exhausted {
		t.Error("a budget of 2 edges did not run out")
	}
	if _, err := Neighbors(dt, nil, Select(g, Selector{Type: "app.Entry"}), NeighborOptions{Path: []int{5}}); err == nil {
		t.Error("a path to group 5 of a level of 1 group is not an error")
	}
	stops := 0
	tree, _ = Neighbors(dt, nil, Select(g, Selector{Type: "app.Item"}), NeighborOptions{Depth: 4, Stop: func() bool { stops++; return true }})
	if !tree.Exhausted || stops == 0 || slices.ContainsFunc(tree.Groups, func(g NeighborGroup) bool { return g.Kids != nil }) {
		t.Errorf("Stop asked %d times; exhausted %v", stops, tree.Exhausted)
	}
}

// TestRetainedByName: each object once per name, as TopMost sums the
// type's instances; the distance is the nearest instance's.
func TestRetainedByName(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	for i := range 300 {
		g, extra := randomGraph(r, 40)
		dt := Dominators(g, DomOptions{ExtraRoots: extra})
		pt := ShortestPaths(g, PathOptions{ExtraRoots: extra})
		for _, row := range RetainedByName(dt, pt, nil) {
			objs := Select(g, Selector{Type: row.Type})
			_, want := TopMost(dt, objs)
			d := -1
			for _, x := range objs {
				if p, ok := pt.Path(x); ok && (d < 0 || len(p.Steps)-1 < d) {
					d = len(p.Steps) - 1
				}
			}
			if row.Retained != want || row.Distance != d {
				t.Fatalf("graph %d: %s retains %d at distance %d; TopMost says %d, paths %d", i, row.Type, row.Retained, row.Distance, want, d)
			}
		}
	}
}

// TestTreemap: chains of only children are passed through, at the top
// and below; a node with more children than fit shows them by type.
func TestTreemap(t *testing.T) {
	var b strings.Builder
	b.WriteString("root vm r (root)\nr (root) 0 -> .g=glob\nglob Global 10 -> .app=app\napp App 10 -> .reqs=reqs .cfg=cfg\ncfg Config 50 -> .v=v\nv Value 7\n")
	b.WriteString("reqs Array 16 ->")
	for i := range 30 {
		fmt.Fprintf(&b, " [%d]=q%d", i, i)
	}
	b.WriteString(" [30]=odd [31]=big\nodd Odd 3\nbig Request 1000\n")
	for i := range 30 {
		fmt.Fprintf(&b, "q%d Request 10\n", i)
	}
	g := heaptest.MustParse(t, b.String())
	dt := Dominators(g, DomOptions{})
	m := Treemap(dt, SuperRoot, 2, 4)
	name := func(id heap.ObjectID) string { return g.TypeName(g.Type(id)) }
	// The super-root, (root) and Global each have one child: the map
	// starts at App, having passed three objects.
	if name(m.Object) != "App" || m.Skipped != 3 || m.Retained != dt.Retained(SuperRoot) {
		t.Fatalf("the top is %s after %d, retaining %d", name(m.Object), m.Skipped, m.Retained)
	}
	// App's children: reqs (Array) and cfg, whose only child is a
	// Value: cfg is passed through to it.
	if len(m.Kids) != 2 || name(m.Kids[0].Object) != "Array" || name(m.Kids[1].Object) != "Value" || m.Kids[1].Skipped != 1 || m.Kids[1].Retained != 57 {
		t.Fatalf("App's rectangles: %+v", m.Kids)
	}
	// The array has 32 children, more than 4: the big Request (over 2%
	// of the array) is a rectangle of its own, the 30 small ones one,
	// the Odd one another.
	arr := m.Kids[0]
	if len(arr.Kids) != 3 || arr.Kids[0].Group != 0 || arr.Kids[0].Retained != 1000 ||
		arr.Kids[1].Group != 30 || arr.Kids[1].Type != "Request" || arr.Kids[1].Retained != 300 ||
		arr.Kids[2].Group != 0 || name(arr.Kids[2].Object) != "Odd" {
		t.Fatalf("the array's rectangles: %+v", arr.Kids)
	}
}

func TestHoldsDetached(t *testing.T) {
	g := heaptest.MustParse(t, `
runtime v8
root vm r (root)
r (root) 0 -> [1]=rec [2]=far [3]=bind [4]=weakly
rec Object 20 -> panels=arr
arr Array 16 -> [0]=div
div Detached+<div> 40
far Object 20 -> a=f1
f1 Object 20 -> b=f2
f2 Object 20 -> c=f3
f3 Object 20 -> d=div
bind Object 20 -> x=node
node Detached+Node+/+BindingData 8
weakly Object 20 -> weak:w=div
`)
	byType := func(typ string, i int) heap.ObjectID { return Select(g, Selector{Type: typ})[i] }
	for _, tc := range []struct {
		id   heap.ObjectID
		want bool
	}{
		{byType("Object", 0), true},         // rec: -> panels -> [0] div
		{byType("Array", 0), true},          // arr
		{byType("Detached <div>", 0), true}, // the node itself
		{byType("Object", 1), false},        // far: the div is 4 references away
		{byType("Object", 5), false},        // bind: Node's own native object is no DOM
		{byType("Object", 6), false},        // weakly: a weak reference holds nothing
	} {
		if got := HoldsDetached(g, tc.id); got != tc.want {
			t.Errorf("HoldsDetached(%s %d) = %v, want %v", g.TypeName(g.Type(tc.id)), tc.id, got, tc.want)
		}
	}
}
