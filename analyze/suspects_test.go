package analyze

import (
	"fmt"
	"math/rand"
	"strings"
	"testing"

	"github.com/heapscope/heapscope/heap"
	"github.com/heapscope/heapscope/internal/heaptest"
)

// javaCache writes, in the graph language of heaptest, a class object
// named "class NAME" whose static field holds a HashMap of n entries
// (key Integer, value VALUE with a 100-byte array), with every fifth node
// chained to the next one in its bucket, as HotSpot lays out a HashMap.
// Objects are prefixed with p; the class object is p+"cls".
func javaCache(p, name, field, value string, n int) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%scls java.lang.Class 100 -> %s=%smap\nname %scls class %s\n", p, field, p, p, name)
	fmt.Fprintf(&b, "%smap java.util.HashMap 48 -> table=%stab\n", p, p)
	var slots []string
	for i := 0; i < n; i++ {
		chained := i%5 == 1 // chained to node i-1
		if !chained {
			slots = append(slots, fmt.Sprintf("[%d]=%sn%d", i, p, i))
		}
		next := ""
		if i%5 == 0 && i+1 < n {
			next = fmt.Sprintf(" next=%sn%d", p, i+1)
		}
		fmt.Fprintf(&b, "%sn%d java.util.HashMap$Node 32 -> key=%sk%d value=%sv%d%s\n", p, i, p, i, p, i, next)
		fmt.Fprintf(&b, "%sk%d java.lang.Integer 16\n", p, i)
		fmt.Fprintf(&b, "%sv%d %s 24 -> body=%sb%d\n", p, i, value, p, i)
		fmt.Fprintf(&b, "%sb%d byte[] 100\n", p, i)
	}
	fmt.Fprintf(&b, "%stab java.util.HashMap$Node[] %d -> %s\n", p, 16+4*n, strings.Join(slots, " "))
	return b.String()
}

// jdkNoise writes k small objects held by sticky classes, the runtime's
// own part of a heap.
func jdkNoise(k int) string {
	var b strings.Builder
	for i := 0; i < k; i++ {
		fmt.Fprintf(&b, "jdk%d java.lang.Class 200 -> s=jdks%d\nname jdk%d class jdk.C%d\nroot class jdk%d sticky class\n", i, i, i, i, i)
		fmt.Fprintf(&b, "jdks%d java.lang.String 40\n", i)
	}
	return b.String()
}

// TestSuspectsStaticMap: a static HashMap of sessions held by a class
// that its class loader holds. The suspect is the class (not the loader
// above it), the accumulation point the map's table, its holder the map,
// and the elements the sessions, counted through the nodes and the nodes
// chained to them.
func TestSuspectsStaticMap(t *testing.T) {
	g := heaptest.MustParse(t, "runtime java\n"+jdkNoise(20)+`
root global loader jni global
loader jdk.internal.loader.ClassLoaders$AppClassLoader 100 -> classes=list
list java.util.ArrayList 24 -> elementData=arr
arr java.lang.Object[] 32 -> [0]=ccls [1]=other
other java.lang.Class 100
name other class app.Other
`+javaCache("c", "app.Cache", "CACHE", "app.Session", 50))
	tree := Dominators(g, DomOptions{})
	got := Suspects(tree, SuspectOptions{})
	if len(got) != 1 {
		t.Fatalf("Suspects = %+v, want one", got)
	}
	s := got[0]
	id := func(name string) heap.ObjectID { return objectNamed(t, g, name) }
	if s.Object != id("class app.Cache") {
		t.Errorf("suspect %d, want the class app.Cache (%d)", s.Object, id("class app.Cache"))
	}
	tab := g.Edges(g.Edges(s.Object)[0].To)[0].To
	if s.Point != tab || g.TypeName(g.Type(s.Point)) != "java.util.HashMap$Node[]" {
		t.Errorf("accumulation point %d (%s), want the table %d", s.Point, g.TypeName(g.Type(s.Point)), tab)
	}
	if g.TypeName(g.Type(s.Holder)) != "java.util.HashMap" {
		t.Errorf("holder is a %s, want the java.util.HashMap", g.TypeName(g.Type(s.Holder)))
	}
	if len(s.Elements) == 0 || s.Elements[0].Type != "app.Session" || s.Elements[0].Count != 50 ||
		s.Elements[0].Retained != 50*124 {
		t.Errorf("elements %+v, want 50 app.Session retaining %d first", s.Elements, 50*124)
	}
	if s.Retained != tree.Retained(s.Object) || s.PointRetained != tree.Retained(tab) {
		t.Errorf("retained %d, point %d; want %d, %d", s.Retained, s.PointRetained, tree.Retained(s.Object), tree.Retained(tab))
	}
}

// oneSuspect parses a graph, finds its leak suspects and returns the only
// one.
func oneSuspect(t *testing.T, src string) (*heap.Graph, *DomTree, Suspect) {
	t.Helper()
	g := heaptest.MustParse(t, src)
	tree := Dominators(g, DomOptions{})
	got := Suspects(tree, SuspectOptions{})
	if len(got) != 1 {
		t.Fatalf("Suspects = %+v, want one", got)
	}
	return g, tree, got[0]
}

// objectNamed returns the object with the given name.
func objectNamed(t *testing.T, g *heap.Graph, name string) heap.ObjectID {
	t.Helper()
	for id := range g.Objects() {
		if n, ok := g.Name(id); ok && n == name {
			return id
		}
	}
	t.Fatalf("no object named %q", name)
	return heap.None
}

// TestSuspectsThroughLoader: a class loader holds two classes whose
// static maps each retain more than the threshold, and many small
// objects that together retain more too. Each map is a suspect of its
// own; the loader is one for what is left, its array the accumulation
// point, and the two big classes are not among its elements. When what
// is left is classes, the program's code, the loader is no suspect.
func TestSuspectsThroughLoader(t *testing.T) {
	for _, small := range []struct{ typ, want string }{
		{"app.Entry", "jdk.internal.loader.ClassLoaders$AppClassLoader: 40 app.Entry"},
		{"java.lang.Class", ""},
	} {
		var objs strings.Builder
		var slots []string
		for i := 0; i < 40; i++ {
			fmt.Fprintf(&objs, "s%d %s 100\n", i, small.typ)
			if small.typ == "java.lang.Class" {
				fmt.Fprintf(&objs, "name s%d class app.Small%d\n", i, i)
			}
			slots = append(slots, fmt.Sprintf("[%d]=s%d", i+2, i))
		}
		g := heaptest.MustParse(t, "runtime java\n"+jdkNoise(10)+objs.String()+`
root global loader jni global
loader jdk.internal.loader.ClassLoaders$AppClassLoader 100 -> classes=list
list java.util.ArrayList 24 -> elementData=arr
arr java.lang.Object[] 200 -> [0]=acls [1]=bcls `+strings.Join(slots, " ")+"\n"+
			javaCache("a", "app.A", "MAP", "app.Session", 40)+javaCache("b", "app.B", "BY_ID", "app.User", 30))
		tree := Dominators(g, DomOptions{})
		got := Suspects(tree, SuspectOptions{})
		var texts []string
		for _, s := range got {
			name, _ := g.Name(s.Object)
			if name == "" {
				name = g.TypeName(g.Type(s.Object))
			}
			texts = append(texts, fmt.Sprintf("%s: %d %s", name, s.Elements[0].Count, s.Elements[0].Type))
		}
		want := []string{"class app.A: 40 app.Session", "class app.B: 30 app.User"}
		if small.want != "" {
			want = append(want, small.want)
		}
		if strings.Join(texts, "; ") != strings.Join(want, "; ") {
			t.Errorf("%s: suspects:\n%s\nwant\n%s", small.typ, strings.Join(texts, "\n"), strings.Join(want, "\n"))
		}
		var sum uint64
		for _, s := range got {
			sum += s.Retained
		}
		if total := tree.Retained(SuperRoot); sum > total {
			t.Errorf("suspects retain %d together, more than the %d reachable", sum, total)
		}
		if n := len(got); n == 3 && got[2].Retained != tree.Retained(got[2].Object)-got[0].Retained-got[1].Retained {
			t.Errorf("the loader's own part is %d, want its retained size less the two maps", got[2].Retained)
		}
	}
}

// TestSuspectsChain: a linked list of one type where each node dominates
// the rest. The accumulation point is the list's head, not a node deep
// down the chain, and the elements are the items the nodes hold.
func TestSuspectsChain(t *testing.T) {
	var b strings.Builder
	b.WriteString("runtime python\nroot module m app\nm module 50 -> .queue=n0\n")
	for i := 0; i < 100; i++ {
		next := ""
		if i+1 < 100 {
			next = fmt.Sprintf(" .next=n%d", i+1)
		}
		fmt.Fprintf(&b, "n%d app.Node 48 -> .item=p%d%s\np%d app.Job 200\n", i, i, next, i)
	}
	g, tree, s := oneSuspect(t, b.String())
	if g.TypeName(g.Type(s.Point)) != "app.Node" || tree.Idom(s.Point) != 0 {
		t.Errorf("accumulation point %d (%s), want the head node", s.Point, g.TypeName(g.Type(s.Point)))
	}
	if len(s.Elements) == 0 || s.Elements[0].Type != "app.Job" || s.Elements[0].Count != 100 {
		t.Errorf("elements %+v, want 100 app.Job first", s.Elements)
	}
}

// TestSuspectsGroup: many objects of one type, each a root, that retain
// much together: one group suspect. The classes the runtime keeps loaded
// retain as much, but are code, not a group suspect.
func TestSuspectsGroup(t *testing.T) {
	var b strings.Builder
	b.WriteString("runtime java\n" + jdkNoise(40))
	for i := 0; i < 30; i++ {
		fmt.Fprintf(&b, "t%d java.lang.Thread 120 -> locals=l%d\nl%d java.lang.Object[] 100\nroot thread t%d thread object\n", i, i, i, i)
	}
	_, _, s := oneSuspect(t, b.String())
	if len(s.Members) != 30 || s.Point != heap.None || s.Retained != 30*220 ||
		len(s.Elements) != 1 || s.Elements[0] != (ElementGroup{Type: "java.lang.Thread", Count: 30, Retained: 30 * 220}) {
		t.Errorf("group suspect %+v, want the 30 threads retaining %d", s, 30*220)
	}
}

// TestSuspectsPython: a module-level dict of objects; the dict is the
// accumulation point and its own holder, the values its elements.
func TestSuspectsPython(t *testing.T) {
	var b strings.Builder
	b.WriteString("runtime python\nroot module m app\nm module 50 -> internal:__dict__=md\nmd dict 100 -> .cache=d\n")
	var items []string
	for i := 0; i < 20; i++ {
		items = append(items, fmt.Sprintf("<key>=k%d ['k%d']=v%d", i, i, i))
		fmt.Fprintf(&b, "k%d str 50\nv%d app.Session 300\n", i, i)
	}
	fmt.Fprintf(&b, "d dict 1000 -> %s\n", strings.Join(items, " "))
	g, _, s := oneSuspect(t, b.String())
	if g.TypeName(g.Type(s.Point)) != "dict" || s.Holder != s.Point || s.Point == 1 {
		t.Errorf("point %d, holder %d; want the cache dict for both", s.Point, s.Holder)
	}
	want := []ElementGroup{{Type: "app.Session", Count: 20, Retained: 6000}, {Type: "str", Count: 20, Retained: 1000}}
	if fmt.Sprint(s.Elements) != fmt.Sprint(want) {
		t.Errorf("elements %v, want %v", s.Elements, want)
	}
}

// TestSuspectsRandom checks what holds for any graph: suspects retain
// more than the threshold each and no more than the heap together, a
// single suspect dominates its accumulation point and the holder
// dominates the point, and the search is deterministic.
func TestSuspectsRandom(t *testing.T) {
	rng := rand.New(rand.NewSource(7))
	for iter := 0; iter < 300; iter++ {
		n := 2 + rng.Intn(60)
		b := heap.NewBuilder(heap.ByID)
		types := []heap.TypeID{b.Type("A"), b.Type("B"), b.Type("C")}
		for i := 0; i < n; i++ {
			b.Object(uint64(0x1000+16*i), types[rng.Intn(3)], uint64(1+rng.Intn(1000)))
		}
		for i := 0; i < n; i++ {
			for k := rng.Intn(4); k > 0; k-- {
				b.Edge(heap.ObjectID(i), uint64(rng.Intn(n)), heap.NamedLabel(heap.Strong, b.String("f")))
			}
		}
		for k := 1 + rng.Intn(4); k > 0; k-- {
			b.Root(heap.RootKind(rng.Intn(8)), uint64(rng.Intn(n)), 0)
		}
		g, err := b.Build()
		if err != nil {
			t.Fatal(err)
		}
		tree := Dominators(g, DomOptions{})
		share := 0.05 + 0.3*rng.Float64()
		got := Suspects(tree, SuspectOptions{MinShare: share})
		threshold := uint64(share * float64(tree.Retained(SuperRoot)))
		var sum uint64
		for _, s := range got {
			sum += s.Retained
			if s.Retained <= threshold {
				t.Fatalf("graph %d: suspect %d retains %d, not over the threshold %d", iter, s.Object, s.Retained, threshold)
			}
			if s.Members == nil && (!tree.Dominates(s.Object, s.Point) || !tree.Dominates(s.Holder, s.Point)) {
				t.Fatalf("graph %d: suspect %d, point %d, holder %d: not a chain of dominators", iter, s.Object, s.Point, s.Holder)
			}
		}
		if sum > tree.Retained(SuperRoot) {
			t.Fatalf("graph %d: suspects retain %d together, more than the %d reachable", iter, sum, tree.Retained(SuperRoot))
		}
		if again := Suspects(tree, SuspectOptions{MinShare: share}); fmt.Sprint(again) != fmt.Sprint(got) {
			t.Fatalf("graph %d: two runs disagree:\n%v\n%v", iter, got, again)
		}
	}
}

// TestSuspectsSynthetic: V8's synthetic root dominates the page, and its
// synthetic sub-roots hold the VM's own objects. Neither is a suspect:
// the global object holding a Map of contexts is, with the Map's table as
// its accumulation point; what the sub-roots hold is not reported.
func TestSuspectsSynthetic(t *testing.T) {
	var b strings.Builder
	b.WriteString(`runtime v8
root vm r (root)
r (synthetic) 0 -> [1]=gc [2]=global
flags r synthetic
gc (synthetic) 0 -> [1]=h1 [2]=h2 [3]=h3
flags gc synthetic
h1 (synthetic) 0 -> s1
flags h1 synthetic
h2 (synthetic) 0 -> s2
flags h2 synthetic
h3 (synthetic) 0 -> s3
flags h3 synthetic
s1 (string) 3000
s2 (string) 3000
s3 (string) 3000
global Window 100 -> contexts=m
m Map 40 -> table=tab
`)
	var slots []string
	for i := 0; i < 30; i++ {
		slots = append(slots, fmt.Sprintf("%d=k%d %d=c%d", 3*i+3, i, 3*i+4, i))
		fmt.Fprintf(&b, "k%d (string) 20\nc%d RequestContext 1000\n", i, i)
	}
	fmt.Fprintf(&b, "tab (array) 500 -> %s\n", strings.Join(slots, " "))
	g, _, s := oneSuspect(t, b.String())
	if g.TypeName(g.Type(s.Object)) != "Window" || g.TypeName(g.Type(s.Holder)) != "Map" || g.TypeName(g.Type(s.Point)) != "(array)" {
		t.Errorf("suspect %s, holder %s, point %s; want the Window, the Map, its table",
			g.TypeName(g.Type(s.Object)), g.TypeName(g.Type(s.Holder)), g.TypeName(g.Type(s.Point)))
	}
	if len(s.Elements) == 0 || s.Elements[0] != (ElementGroup{Type: "RequestContext", Count: 30, Retained: 30000}) {
		t.Errorf("elements %+v, want 30 RequestContext first", s.Elements)
	}
}

// TestSuspectsCode: what importing a library makes (module namespaces,
// classes, functions), many and held by no single object, is no
// suspect; a list of the program's objects beside it is.
func TestSuspectsCode(t *testing.T) {
	for _, data := range []bool{false, true} {
		var b strings.Builder
		b.WriteString("runtime python\n")
		for i := 0; i < 30; i++ {
			// Each module's namespace is also its functions' __globals__,
			// and the next module imports its function and class, so
			// neither a module nor a function dominates another's.
			fmt.Fprintf(&b, "m%d module 50 -> internal:__dict__=d%d\nroot module m%d lib%d\n", i, i, i, i)
			fmt.Fprintf(&b, "d%d dict 400 -> .f=f%d .C=c%d .g=f%d .D=c%d\n", i, i, i, (i+29)%30, (i+29)%30)
			fmt.Fprintf(&b, "f%d function 150 -> __globals__=d%d\n", i, i)
			fmt.Fprintf(&b, "c%d type 900 -> __dict__=cd%d internal:__mro__=mro%d\ncd%d dict 300 -> .g=f%d\nmro%d tuple 40\n", i, i, i, i, i, i)
		}
		if data {
			b.WriteString("root module app app\napp module 50 -> internal:__dict__=ad\nad dict 100 -> .HISTORY=h\n")
			var items []string
			for i := 0; i < 200; i++ {
				fmt.Fprintf(&b, "s%d app.Step 300\n", i)
				items = append(items, fmt.Sprintf("[%d]=s%d", i, i))
			}
			fmt.Fprintf(&b, "h list 1600 -> %s\n", strings.Join(items, " "))
		}
		g := heaptest.MustParse(t, b.String())
		got := Suspects(Dominators(g, DomOptions{}), SuspectOptions{})
		var texts []string
		for _, s := range got {
			texts = append(texts, fmt.Sprintf("%d %s", s.Elements[0].Count, s.Elements[0].Type))
		}
		want := ""
		if data {
			want = "200 app.Step"
		}
		if strings.Join(texts, "; ") != want {
			t.Errorf("data %v: suspects %q, want %q", data, texts, want)
		}
	}
}

// TestSuspectsFoldFamily: a static list holds one lambda per plugin
// loader, each of a hidden class of its own (Task$$Lambda$101/0x...),
// as a class loader leak does. What accumulates is the instances of that
// family's classes, as one element group, not one lambda of one class.
func TestSuspectsFoldFamily(t *testing.T) {
	const n = minFoldNames + 2
	var b strings.Builder
	b.WriteString("runtime java\n" + jdkNoise(10))
	b.WriteString("host java.lang.Class 100 -> REGISTRY=list\nname host class Host\nroot class host sticky class\n")
	b.WriteString("list java.util.ArrayList 24 -> elementData=arr\n")
	var slots []string
	for i := 0; i < n; i++ {
		cls := fmt.Sprintf("Task$$Lambda$%d/0x0000000800c%04x", 100+i, 0x1000+i*0x28)
		fmt.Fprintf(&b, "l%d %s 16 -> internal:<class>=k%d state=s%d\n", i, cls, i, i)
		fmt.Fprintf(&b, "s%d long[] 1000\n", i)
		fmt.Fprintf(&b, "k%d java.lang.Class 100\nname k%d class %s\nroot class k%d sticky class\n", i, i, cls, i)
		slots = append(slots, fmt.Sprintf("[%d]=l%d", i, i))
	}
	fmt.Fprintf(&b, "arr java.lang.Object[] %d -> %s\n", 16+4*n, strings.Join(slots, " "))
	_, _, s := oneSuspect(t, b.String())
	if len(s.Elements) != 1 || s.Elements[0].Type != "Task$$Lambda$*/*" || s.Elements[0].Count != n || s.Elements[0].Types != n {
		t.Errorf("elements %+v, want %d instances of the %d classes Task$$Lambda$*/*", s.Elements, n, n)
	}
}

// TestSuspectsScriptSource: a large library's source text, which V8
// keeps for its script (typescript.js: 8.7 MiB, half the heap of a
// program that only loaded it), is its code, no suspect; a Map of the
// program's objects beside it is.
func TestSuspectsScriptSource(t *testing.T) {
	for _, data := range []bool{false, true} {
		var b strings.Builder
		b.WriteString("runtime v8\nroot vm r (root)\nr (root) 0 -> [1]=global\nflags r synthetic\n")
		b.WriteString("global global 40 -> ts=exports app=ctx\nexports Object 24 -> createProgram=fn\n")
		b.WriteString("fn createProgram+(closure) 56 -> internal:shared=sfi\nsfi (compiled+code) 80 -> internal:script_or_debug_info=script\n")
		b.WriteString("script (compiled+code) 72 -> internal:source=src\nsrc (string) 9000\n")
		if !data {
			b.WriteString("ctx system+/+Context 40\n")
		} else {
			var slots []string
			for i := 0; i < 30; i++ {
				slots = append(slots, fmt.Sprintf("[%d]=c%d", i, i))
				fmt.Fprintf(&b, "c%d RequestContext 300\n", i)
			}
			b.WriteString("ctx system+/+Context 40 -> sessions=m\nm Map 40 -> internal:table=tab\n")
			fmt.Fprintf(&b, "tab (array) 300 -> %s\n", strings.Join(slots, " "))
		}
		g := heaptest.MustParse(t, b.String())
		var texts []string
		for _, s := range Suspects(Dominators(g, DomOptions{}), SuspectOptions{}) {
			text := g.TypeName(g.Type(s.Point))
			if len(s.Elements) > 0 {
				text = fmt.Sprintf("%d %s", s.Elements[0].Count, s.Elements[0].Type)
			}
			texts = append(texts, text)
		}
		want := ""
		if data {
			want = "30 RequestContext"
		}
		if strings.Join(texts, "; ") != want {
			t.Errorf("data %v: suspects %q, want %q", data, texts, want)
		}
	}
}
