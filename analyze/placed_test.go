package analyze

import (
	"slices"
	"strings"
	"testing"

	"github.com/heapscope/heapscope/heap"
	"github.com/heapscope/heapscope/internal/heaptest"
)

// placedGraph has the places leaks and top name: a Python module whose
// namespace holds a dict of sessions (each holding a Session of its
// own, nested, that the dict does not keep directly), a Java class
// whose static field holds a HashMap (table, nodes, values), V8's
// global at an index of (root) and a Map that is a root of its own.
const placedGraph = `
root module m
root vm r
root vm rootmap
root class c
m app.module 72 -> __dict__=md
name m module app
md dict 100 -> .sessions=d .log=lg
d dict 200 -> [0]=s1 [1]=s2 [2]=s3
s1 app.Session 50 -> .inner=s4
s2 app.Session 50
s3 app.Session 50
s4 app.Session 50
lg list 40 -> [0]=s5
s5 app.Session 50
c java.lang.Class 10 -> sessions=hm
name c class Leaky
hm java.util.HashMap 48 -> table=tab
tab java.util.HashMap$Node[] 64 -> [0]=n1 [1]=n2
n1 java.util.HashMap$Node 32 -> value=v1
n2 java.util.HashMap$Node 32 -> value=v2
v1 Leaky$Session 24
v2 Leaky$Session 24
r (root) 0 -> 2=gl
gl global 40 -> a=o1 b=o2
o1 Object 16 -> x=o3
o2 Object 16
o3 Object 16
rootmap Map 32 -> [0]=k1
k1 Key 8
`

func TestSelectPlaced(t *testing.T) {
	g := heaptest.MustParse(t, placedGraph)
	types := func(ids []heap.ObjectID) []string {
		var out []string
		for _, id := range ids {
			out = append(out, g.TypeName(g.Type(id)))
		}
		return out
	}
	for _, tc := range []struct {
		sel  string
		want []string
	}{
		// A finding of leaks: the outermost sessions the dict holds,
		// not the one a session holds, nor the one in the log.
		{"3 app.Session in dict at module app.sessions", []string{"app.Session", "app.Session", "app.Session"}},
		{"300 app.Session in dict at module app.sessions (holds detached DOM)", []string{"app.Session", "app.Session", "app.Session"}},
		// A holder, a field that holds, a holder of many referrers.
		{"dict at module app.sessions", []string{"dict"}},
		{"dict at module app.sessions (3 of them)", []string{"dict"}},
		{"module app.log", []string{"list"}},
		// A finding at a field: the object there.
		{"1 list at module app.log", []string{"list"}},
		// Java: through the table and its nodes to the values.
		{"900 Leaky$Session in java.util.HashMap at class Leaky.sessions", []string{"Leaky$Session", "Leaky$Session"}},
		{"java.util.HashMap at class Leaky.sessions", []string{"java.util.HashMap"}},
		// V8: global at an index of (root), as top's suspects say.
		{"81 Object in global at (root)[2]", []string{"Object", "Object"}},
		{"global at (root)[2]", []string{"global"}},
		// A root object.
		{"1 Key in Map (vm root)", []string{"Key"}},
		{"Map (vm root)", []string{"Map"}},
		// Several kinds, and a count of others.
		{"2 Object, 1 nothing and 3 more of 2 other types in global at (root)[2]", []string{"Object", "Object"}},
		// A suspect of top that is a group of one type.
		{"2 app.Session, held by no single object", []string{"app.Session", "app.Session", "app.Session", "app.Session", "app.Session"}},
		{"5 app.Session -> 1 list, 40 B each, held outside the heap", []string{"app.Session", "app.Session", "app.Session", "app.Session", "app.Session"}},
		// Nothing there.
		{"3 app.Session in list at module app.sessions", nil},
		{"dict at module app.nowhere", nil},
		{"dict at nothing.sessions", nil},
	} {
		s, err := ParseSelector(tc.sel)
		if err != nil {
			t.Fatal(err)
		}
		if got := types(Select(g, s)); !slices.Equal(got, tc.want) {
			t.Errorf("Select(%q) = %v, want %v", tc.sel, got, tc.want)
		}
	}
	s, _ := ParseSelector("3 app.Sesion in dict at module app.sessions")
	if got := NoMatch(g, s, "3 app.Sesion in dict at module app.sessions"); !strings.Contains(got, `nearest: "app.Session"`) {
		t.Errorf("NoMatch of a misspelt finding = %q, want the nearest type", got)
	}
}

func TestWhatKinds(t *testing.T) {
	for _, tc := range []struct {
		what string
		want []Selector
	}{
		{"300 RequestContext", []Selector{{Type: "RequestContext", Loose: true}}},
		{"2,010 Node, 1,860 Position and 300 more of 3 other types", []Selector{{Type: "Node", Loose: true}, {Type: "Position", Loose: true}}},
		{"300 classes (app.u_*, app.m_* and 2 more families)", []Selector{{Class: "app.u_*"}, {Class: "app.m_*"}}},
		{"300 instances of classes app.u_*, app.m_*", []Selector{{Type: "app.u_*", Loose: true}, {Type: "app.m_*", Loose: true}}},
		{"40 Detached <div>", []Selector{{Type: "Detached <div>", Loose: true}}},
	} {
		if got := whatKinds(tc.what); !slices.Equal(got, tc.want) {
			t.Errorf("whatKinds(%q) = %+v, want %+v", tc.what, got, tc.want)
		}
	}
}

// TestNearestNames: names come by their edit distance, whether they
// are misspellings, contain the text or are part of it.
func TestNearestNames(t *testing.T) {
	g := heaptest.MustParse(t, `
runtime v8
root vm r
r (root) 0 -> a b c d
a RequestContext 8
b context+(closure) 8
c onTick+(closure) 8
d RequestContext+(closure) 8
`)
	for _, tc := range []struct {
		name string
		want []string
	}{
		{"RequstContext", []string{"RequestContext", "RequestContext (closure)", "context (closure)"}},
		{"tick", []string{"onTick (closure)"}},
		{"Reqst", nil},
		{"Context", []string{"context (closure)", "RequestContext", "RequestContext (closure)"}},
		{"requestcontext", []string{"RequestContext", "RequestContext (closure)", "context (closure)"}},
	} {
		if got := NearestNames(g, tc.name, 5); !slices.Equal(got, tc.want) {
			t.Errorf("NearestNames(%q) = %q, want %q", tc.name, got, tc.want)
		}
	}
}
