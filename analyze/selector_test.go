package analyze

import (
	"slices"
	"strings"
	"testing"

	"github.com/heapscope/heapscope/heap"
	"github.com/heapscope/heapscope/internal/heaptest"
)

func TestParseSelector(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want Selector
		bad  bool
	}{
		{in: "0x4100", want: Selector{Addr: 0x4100, HasAddr: true}},
		{in: "@47297", want: Selector{Addr: 47297, HasAddr: true}},
		{in: "47297", want: Selector{Addr: 47297, HasAddr: true}},
		{in: " @47297 ", want: Selector{Addr: 47297, HasAddr: true}},
		{in: "Server @47297", want: Selector{Addr: 47297, HasAddr: true, Label: "Server"}},
		{in: "Server@47297", want: Selector{Addr: 47297, HasAddr: true, Label: "Server"}},
		{in: "app.Item@0x3000", want: Selector{Addr: 0x3000, HasAddr: true, Label: "app.Item"}},
		{in: "class app.Cache@0xff10", want: Selector{Addr: 0xff10, HasAddr: true, Label: "class app.Cache"}},
		{in: "refreshItemView (closure) @12", want: Selector{Addr: 12, HasAddr: true, Label: "refreshItemView (closure)"}},
		{in: `(string) @86973 "k850"`, want: Selector{Addr: 86973, HasAddr: true, Label: "(string)", Value: "k850"}},
		{in: `str@0x2000 "a \"b\" c"`, want: Selector{Addr: 0x2000, HasAddr: true, Label: "str", Value: `a "b" c`}},
		{in: "value:hello", want: Selector{Value: "hello"}},
		{in: "type:app.Item", want: Selector{Type: "app.Item"}},
		{in: "class:Model_*", want: Selector{Class: "Model_*"}},
		{in: "class app.Cache", want: Selector{Class: "app.Cache"}},
		{in: "refreshItemView", want: Selector{Type: "refreshItemView", Loose: true}},
		{in: "user@example", want: Selector{Type: "user@example", Loose: true}},
		{in: "Detached <div>", want: Selector{Type: "Detached <div>", Loose: true}},
		{in: "0xZZ", bad: true},
		{in: "@12x", bad: true},
		{in: "99999999999999999999999", bad: true},
		{in: "", bad: true},
		{in: "class:", bad: true},
	} {
		got, err := ParseSelector(tc.in)
		if tc.bad {
			if err == nil {
				t.Errorf("ParseSelector(%q) = %+v, want an error", tc.in, got)
			}
			continue
		}
		if err != nil || got != tc.want {
			t.Errorf("ParseSelector(%q) = %+v, %v; want %+v", tc.in, got, err, tc.want)
		}
	}
}

// selectGraph has what heapscope prints names for: a V8-like closure
// type, named objects (as the Python agent names modules and functions),
// a class family and an object whose type has a star-matched name.
const selectGraph = `
runtime v8
root vm r (root)
r@0x1 (root) 0 -> [1]=srv [2]=f1 [3]=f2 [4]=mod [5]=fn [6]=n1
srv@0xb8c1 Server 100 -> .handler=f1
f1@0x11 refreshItemView+(closure) 32
f2@0x13 refreshItemView+(closure) 32
mod@0x15 module 72
fn@0x17 function 64
n1@0x19 f_17 10
name mod module app.views
name fn function app.views.index
`

func TestSelectNames(t *testing.T) {
	g := heaptest.MustParse(t, selectGraph)
	names := func(ids []heap.ObjectID) []string {
		var out []string
		for _, id := range ids {
			out = append(out, IDText(g, id))
		}
		return out
	}
	for _, tc := range []struct {
		sel  string
		want []string
	}{
		{"Server", []string{"@47297"}},
		{"@47297", []string{"@47297"}},
		{"47297", []string{"@47297"}},
		{"0xb8c1", []string{"@47297"}},
		{"Server @47297", []string{"@47297"}},
		{"Client @47297", nil}, // the id names a Server
		{"refreshItemView", []string{"@17", "@19"}},
		{"refreshItemView (closure)", []string{"@17", "@19"}},
		{"module app.views", []string{"@21"}},
		{"function app.views.index", []string{"@23"}},
		{"function app.views.index @23", []string{"@23"}},
		{"f_* (instances of 1 classes)", []string{"@25"}},
		{"f_*", []string{"@25"}},
		{"type:refreshItemView", nil},
		{"refresh", nil},
	} {
		s, err := ParseSelector(tc.sel)
		if err != nil {
			t.Fatal(err)
		}
		if got := names(Select(g, s)); !slices.Equal(got, tc.want) {
			t.Errorf("Select(%q) = %v, want %v", tc.sel, got, tc.want)
		}
	}
}

func TestNoMatch(t *testing.T) {
	g := heaptest.MustParse(t, selectGraph)
	for _, tc := range []struct{ sel, want string }{
		{"refresh", `nearest: "refreshItemView (closure)"`},
		{"Sever", `nearest: "Server"`},
		{"server", `nearest: "Server"`},
		{"Client @47297", "@47297 is Server here, not Client"},
		{"@5", "no object has that id"},
		{"value:nowhere", "no value contains that text"},
		{"Zzzzzzzzzz", "no type and no class has that name"},
	} {
		s, _ := ParseSelector(tc.sel)
		if got := NoMatch(g, s, tc.sel); !strings.Contains(got, tc.want) {
			t.Errorf("NoMatch(%q) = %q, want it to say %q", tc.sel, got, tc.want)
		}
	}
	if got := NoMatch(g, Selector{Type: "Zzzzzzzzzz", Loose: true}, "Zzzzzzzzzz"); strings.Contains(got, "nearest") {
		t.Errorf("NoMatch suggests %q for a name like no other", got)
	}
}

func TestIDText(t *testing.T) {
	v8 := heaptest.MustParse(t, selectGraph)
	py := heaptest.MustParse(t, "runtime python\nroot module m m\nm@0x7f3a0c2b1e40 module 72\n")
	if got := IDText(v8, 1); got != "@47297" {
		t.Errorf("V8 IDText = %q, want @47297", got)
	}
	if got := IDText(py, 0); got != "0x7f3a0c2b1e40" {
		t.Errorf("Python IDText = %q, want 0x7f3a0c2b1e40", got)
	}
}

func TestEditDistance(t *testing.T) {
	for _, tc := range []struct {
		a, b string
		want int
	}{
		{"", "", 0}, {"a", "", 1}, {"", "abc", 3}, {"kitten", "sitting", 3},
		{"summary", "sumary", 1}, {"flaw", "lawn", 2}, {"abc", "abc", 0},
	} {
		if got := EditDistance(tc.a, tc.b); got != tc.want {
			t.Errorf("EditDistance(%q, %q) = %d, want %d", tc.a, tc.b, got, tc.want)
		}
		if got := EditDistance(tc.b, tc.a); got != tc.want {
			t.Errorf("EditDistance(%q, %q) = %d, want %d", tc.b, tc.a, got, tc.want)
		}
	}
}

func TestRuntimeType(t *testing.T) {
	for _, tc := range []struct {
		runtime, name string
		want          bool
	}{
		{"v8", "(object shape)", true}, {"v8", "(array)", true}, {"v8", "system / Context", true},
		{"v8", "RequestContext", false}, {"v8", "Object", false}, {"v8", "onTick (closure)", false}, {"v8", "Detached <div>", false},
		{"java", "java.util.HashMap$Node", true}, {"java", "byte[]", true}, {"java", "int[][]", true}, {"java", "jdk.internal.misc.Unsafe", true},
		{"java", "Leaky$Session", false}, {"java", "app.Cache[]", false}, {"java", "int", false},
		{"python", "dict", true}, {"python", "function", true}, {"python", "__main__.RequestContext", false}, {"python", "app.models.User", false}, {"python", "weakref.ReferenceType", true}, {"python", "collections.OrderedDict", true},
	} {
		if got := RuntimeType(tc.runtime, tc.name); got != tc.want {
			t.Errorf("RuntimeType(%s, %q) = %v, want %v", tc.runtime, tc.name, got, tc.want)
		}
	}
}
