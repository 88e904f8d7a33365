package analyze

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/heapscope/heapscope/heap"
	"github.com/heapscope/heapscope/internal/heaptest"
)

func TestFoldName(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"app.Model_17", "app.Model_*"},
		{"app.Model_3fa2b1c9", "app.Model_*"},
		{"app.make.<locals>.Handler", "app.make.<locals>.Handler"},
		{"f_100", "f_*"},
		{"Point2D", "Point*D"},
		{"app.Foo$$Lambda$14/0x0800c0b238", "app.Foo$$Lambda$*/*"},
		{"app.v2.Cache", "app.v*.Cache"},
		{"deadbeef", "deadbeef"},
		{"Index", "Index"},
		{"a1b2", "a*b*"},
		{"", ""},
	} {
		if got := FoldName(tc.in); got != tc.want {
			t.Errorf("FoldName(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestMatchClass(t *testing.T) {
	for _, tc := range []struct {
		name, want string
		ok         bool
	}{
		{"app.models.Model_17", "app.models.Model_17", true},
		{"app.models.Model_17", "Model_17", true},
		{"app.models.Model_17", "models.Model_17", true},
		{"app.models.Model_17", "odel_17", false},
		{"app.models.Model_17", "Model_1", false},
		{"app.models.Model_17", "app.models.Model_*", true},
		{"app.models.Model_17", "Model_*", true},
		{"app.models.Model_17", "*_17", true},
		{"app.models.Model_17", "Model_*8", false},
		{"app.make.<locals>.Handler", "Handler", true},
		{"app.make.<locals>.Handler", "app.*.Handler", true},
		{"f_17", "f_*", true},
		{"xf_17", "f_*", false},
	} {
		if got := MatchClass(tc.name, tc.want); got != tc.ok {
			t.Errorf("MatchClass(%q, %q) = %v, want %v", tc.name, tc.want, got, tc.ok)
		}
	}
}

// classGraph has classes as the Python agent writes them: a heap type's
// __qualname__ and __name__ (internal edges to strs with values), its
// __mro__, and its namespace dict with __module__. m1..m3 come from one
// factory (names that differ in a number), h1 and h2 from another (one
// name), meta1 is a class of a metaclass, Solo has no namespace and
// Other's __module__ is None.
const classGraph = `
root module mod app
mod module 100 -> .REG=reg .SOLO=solo .META=meta1 .OTHER=other
reg dict 100 -> ['a']=m1 ['b']=m2 ['c']=m3 ['d']=h1 ['e']=h2
m1 type 900 -> internal:__qualname__=q1 internal:__mro__=mro __dict__=d1
m2 type 900 -> internal:__qualname__=q2 internal:__mro__=mro __dict__=d1
m3 type 900 -> internal:__qualname__=q3 internal:__mro__=mro __dict__=d1
h1 type 800 -> internal:__qualname__=qh internal:__mro__=mro __dict__=d1
h2 type 800 -> internal:__qualname__=qh internal:__mro__=mro __dict__=d1
other type 900 -> internal:__qualname__=qo internal:__mro__=mro __dict__=d2
solo type 700 -> internal:__name__=qs internal:__mro__=mro
meta1 app.Meta 600 -> internal:__qualname__=qm internal:__mro__=mro __dict__=d1
mro tuple 40
d1 dict 100 -> .__module__=modname
d2 dict 100 -> .__module__=none
q1 str 50
q2 str 50
q3 str 50
qh str 50
qo str 50
qs str 50
qm str 50
modname str 50
none NoneType 16
value q1 Model_1
value q2 Model_2
value q3 Model_13
value qh make.<locals>.Handler
value qo Other
value qs Solo
value qm f_7
value modname app
runtime python
`

// declared maps the object names of a heaptest graph to their IDs (the
// order of their declaration).
func declared(src string) map[string]heap.ObjectID {
	ids := map[string]heap.ObjectID{}
	for _, line := range strings.Split(src, "\n") {
		f := strings.Fields(line)
		if len(f) < 3 || strings.HasPrefix(f[0], "#") {
			continue
		}
		switch f[0] {
		case "root", "value", "refcount", "digest", "flags", "runtime":
			continue
		}
		ids[f[0]] = heap.ObjectID(len(ids))
	}
	return ids
}

func TestClassNames(t *testing.T) {
	g := heaptest.MustParse(t, classGraph)
	ids := declared(classGraph)
	id := func(name string) heap.ObjectID { return ids[name] }
	for _, tc := range []struct {
		obj, want string
	}{
		{"m1", "app.Model_1"},
		{"m3", "app.Model_13"},
		{"h1", "app.make.<locals>.Handler"},
		{"other", "Other"}, // __module__ is not a string
		{"solo", "Solo"},   // no namespace: no module
		{"meta1", "app.f_7"},
		{"reg", ""},
	} {
		got, _ := ClassName(g, id(tc.obj))
		if got != tc.want {
			t.Errorf("ClassName(%s) = %q, want %q", tc.obj, got, tc.want)
		}
	}
	isClass := classTypes(g)
	for ty := range isClass {
		name := g.TypeName(heap.TypeID(ty))
		if want := name == "type" || name == "app.Meta"; isClass[ty] != want {
			t.Errorf("classTypes: %s is a class type: %v, want %v", name, isClass[ty], want)
		}
	}

	for _, tc := range []struct {
		sel  Selector
		want []string
	}{
		{Selector{Class: "Model_1"}, []string{"m1"}},
		{Selector{Class: "app.Model_13"}, []string{"m3"}},
		{Selector{Class: "app.Model_*"}, []string{"m1", "m2", "m3"}},
		{Selector{Class: "Handler"}, []string{"h1", "h2"}},
		{Selector{Class: "f_7"}, []string{"meta1"}},
		{Selector{Class: "Model_1", Type: "app.Meta"}, nil},
		{Selector{Class: "Model_2", Addr: g.Addr(id("m2")), HasAddr: true}, []string{"m2"}},
		{Selector{Class: "Model_2", Addr: g.Addr(id("m1")), HasAddr: true}, nil},
	} {
		var want []heap.ObjectID
		for _, n := range tc.want {
			want = append(want, id(n))
		}
		if got := Select(g, tc.sel); !slices.Equal(got, want) {
			t.Errorf("Select(%+v) = %v, want %v (%v)", tc.sel, got, want, tc.want)
		}
	}
}

// TestDiffClassFamilies: classes of one family (more than one class of
// the folded name, in either snapshot) get a row of their own; the rest
// of the classes stay in their type's row.
func TestDiffClassFamilies(t *testing.T) {
	before := heaptest.MustParse(t, `
root module mod app
mod module 100 -> .s=solo .m=m1
solo type 700 -> internal:__name__=qs internal:__mro__=mro
m1 type 900 -> internal:__qualname__=q1 internal:__mro__=mro
mro tuple 40
qs str 50
q1 str 50
value qs Solo
value q1 Model_1
runtime python
`)
	after := heaptest.MustParse(t, classGraph)
	rows := map[string]TypeDelta{}
	for _, d := range Diff(before, after, DiffOptions{}) {
		rows[d.Type+"/"+d.Classes] = d
	}
	// Before, Model_1 has no namespace, so no module: another family,
	// of one class, in the type row with Solo; after, Solo and Other.
	want := map[string][2]int{ // count before, after
		"type/app.Model_*":               {0, 3},
		"type/app.make.<locals>.Handler": {0, 2},
		"type/":                          {2, 2},
		"app.Meta/":                      {0, 1},
		"dict/":                          {0, 3},
		"module/":                        {1, 1},
		"tuple/":                         {1, 1},
		"str/":                           {2, 8},
		"NoneType/":                      {0, 1},
	}
	for k, w := range want {
		d, ok := rows[k]
		if w[0] == w[1] {
			if ok {
				t.Errorf("row %s: %+v, want none (no change)", k, d)
			}
			continue
		}
		if !ok || d.CountBefore != w[0] || d.CountAfter != w[1] {
			t.Errorf("row %s: %+v, want counts %d -> %d", k, d, w[0], w[1])
		}
	}
}

// factoryGraph is a heap with n classes f_0 ... f_n-1 of a factory in a
// registry, an instance of each in a list, and two classes a program
// defines, Point2D and Point3D, with an instance each.
func factoryGraph(n int) string {
	var b strings.Builder
	b.WriteString("runtime python\nroot module mod app\nmod module 100 -> .F=reg .C=creg .P=p2 .Q=p3\nmro tuple 40\n")
	var reg, creg []string
	for i := 0; i < n; i++ {
		fmt.Fprintf(&b, "c%d@%x type 900 -> internal:__qualname__=q%d internal:__mro__=mro\nq%d@%x str 50\nvalue q%d f_%d\n", i, 0x10000+i*16, i, i, 0x20000+i*16, i, i)
		fmt.Fprintf(&b, "i%d@%x f_%d 48 -> internal:__class__=c%d\n", i, 0x30000+i*16, i, i)
		reg = append(reg, fmt.Sprintf("[%d]=i%d", i, i))
		creg = append(creg, fmt.Sprintf("[%d]=c%d", i, i))
	}
	fmt.Fprintf(&b, "reg@9000 list 100 -> %s\ncreg@9100 list 100 -> %s\n", strings.Join(reg, " "), strings.Join(creg, " "))
	b.WriteString(`p2@a000 Point2D 32
p3@a100 Point3D 32
k2@a200 type 900 -> internal:__qualname__=n2 internal:__mro__=mro
k3@a300 type 900 -> internal:__qualname__=n3 internal:__mro__=mro
n2@a400 str 50
n3@a500 str 50
value n2 Point2D
value n3 Point3D
`)
	return b.String()
}

// TestDiffFoldsInstances: the instances of the classes of a family of
// many names (a type per class) are one row, named by the pattern; a
// family of few names keeps a row per type.
func TestDiffFoldsInstances(t *testing.T) {
	n := minFoldNames + 1
	after := heaptest.MustParse(t, factoryGraph(n))
	before := heaptest.MustParse(t, "runtime python\nroot module mod app\nmod module 100\n")
	rows := map[string]TypeDelta{}
	for _, d := range Diff(before, after, DiffOptions{}) {
		rows[d.Type+"/"+d.Classes] = d
	}
	if d := rows["f_*/"]; d.Types != n || d.CountAfter != n {
		t.Errorf("row f_*: %+v, want %d instances of %d types", d, n, n)
	}
	if d := rows["type/f_*"]; d.CountAfter != n {
		t.Errorf("row of the classes: %+v", d)
	}
	for _, name := range []string{"Point2D/", "Point3D/"} {
		if d := rows[name]; d.CountAfter != 1 || d.Types != 0 {
			t.Errorf("row %s: %+v, want its own", name, d)
		}
	}
	if _, ok := rows["f_0/"]; ok {
		t.Errorf("f_0 has a row of its own")
	}
}

// TestLeaksFoldInstances: leaked instances of the classes of a large
// family, a type per class, held by one list, are one finding that says
// how many types it sums; their classes are one finding named by their
// family.
func TestLeaksFoldInstances(t *testing.T) {
	// The lists are there before: what is new is their entries.
	base := heaptest.MustParse(t, "runtime python\nroot module mod app\nmod module 100 -> .F=reg .C=creg\nreg@9000 list 100\ncreg@9100 list 100\n")
	n := minFoldNames + 3
	g := heaptest.MustParse(t, factoryGraph(n))
	rep := Leaks(base, g, g, LeakOptions{Noise: []NoiseRule{}})
	var inst, classes int
	for _, f := range rep.Findings {
		for _, p := range f.Parts {
			switch {
			case p.Type == "f_*":
				inst++
				if p.Types != n || p.Count != n {
					t.Errorf("part %+v, want %d instances of %d types", p, n, n)
				}
			case strings.HasPrefix(p.Type, "f_"):
				t.Errorf("part of one type: %+v", p)
			case p.Type == "type" && p.Classes == "f_*":
				classes++
				if p.Count != n {
					t.Errorf("part %+v, want %d classes", p, n)
				}
			}
		}
	}
	if inst != 1 || classes != 1 {
		t.Errorf("%d parts of instances and %d of classes, want 1 and 1: %+v", inst, classes, rep.Findings)
	}
}
