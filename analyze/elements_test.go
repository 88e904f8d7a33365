package analyze_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/heapscope/heapscope/analyze"
	"github.com/heapscope/heapscope/heap"
	"github.com/heapscope/heapscope/internal/heaptest"
)

// v8LeakHeap is a V8-like heap after n requests: a handler closure
// whose context holds a Map of sessions (its table reallocated as it
// grows, so new in every snapshot), and a listener array (a JavaScript
// Array whose backing store is reallocated too) to which every request
// adds a closure holding its response. Ids are stable across snapshots.
func v8LeakHeap(t *testing.T, n int) *heap.Graph {
	var b strings.Builder
	b.WriteString("runtime v8\nroot vm r (root)\n")
	b.WriteString("r@0x1 (root) 0 -> [1]=g\n")
	b.WriteString("g@0x3 global 40 -> onRequest=h config=em\n")
	b.WriteString("h@0x5 onRequest+(closure) 32 -> internal:context=ctx\n")
	b.WriteString("ctx@0x7 system+/+Context 40 -> sessions=m\n")
	fmt.Fprintf(&b, "m@0x9 Map 32 -> internal:table=tab\n")
	var slots, elems []string
	for i := 0; i < n; i++ {
		slots = append(slots, fmt.Sprintf("internal:%d=s%d", 3*i+1, i))
		elems = append(elems, fmt.Sprintf("[%d]=f%d", i, i))
	}
	fmt.Fprintf(&b, "tab@%x (array) %d -> %s\n", 0x1000+n, 16+8*n, strings.Join(slots, " "))
	b.WriteString("em@0xb EventEmitter 40 -> _events=ev\n")
	b.WriteString("ev@0xd Object 40 -> change=arr\n")
	fmt.Fprintf(&b, "arr@%x Array 32 -> internal:elements=store\n", 0x2000+n)
	fmt.Fprintf(&b, "store@%x (array) %d -> %s\n", 0x3000+n, 16+8*n, strings.Join(elems, " "))
	for i := 0; i < n; i++ {
		fmt.Fprintf(&b, "s%d@%x Session 56 -> user=u%d\n", i, 0x10000+i*16, i)
		fmt.Fprintf(&b, "u%d@%x (string) 24\n", i, 0x10008+i*16)
		fmt.Fprintf(&b, "f%d@%x onConfigChange+(closure) 32 -> internal:context=c%d\n", i, 0x20000+i*16, i)
		fmt.Fprintf(&b, "c%d@%x system+/+Context 40 -> res=res%d\n", i, 0x20008+i*16, i)
		fmt.Fprintf(&b, "res%d@%x ServerResponse 200\n", i, 0x30000+i*16)
	}
	return heaptest.MustParse(t, b.String())
}

// TestLeaksPreferElements checks that a leak in a Map or a listener
// array is reported by its elements and where they sit, not as the one
// new backing store that dominates them.
func TestLeaksPreferElements(t *testing.T) {
	base, target, final := v8LeakHeap(t, 2), v8LeakHeap(t, 10), v8LeakHeap(t, 20)
	rep := analyze.Leaks(base, target, final, analyze.LeakOptions{})
	var got []string
	for _, f := range rep.Findings {
		got = append(got, fmt.Sprintf("%s x%d %s", what(f), f.Count, f.Place.Where))
	}
	want := []string{
		"onConfigChange (closure) x8 in Array change of Object _events",
		"Session x8 in Map sessions of onRequest (closure)",
	}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("findings:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

func TestWhere(t *testing.T) {
	type st = analyze.SigStep
	for _, tc := range []struct {
		root string
		sig  []st // the first step is the root object's
		want string
	}{
		{"app", []st{{Type: "module"}, {Type: "dict", Edge: "__dict__"}, {Type: "dict", Edge: ".cache"}, {Type: "app.Item", Edge: "[*]"}},
			"in dict .cache of module app"},
		{"app", []st{{Type: "module"}, {Type: "dict", Edge: "__dict__"}, {Type: "list", Edge: ".log"}}, "in module app"},
		{"(root)", []st{{Type: "(root)"}, {Type: "global", Edge: "[*]"}, {Type: "onRequest (closure)", Edge: "onRequest"},
			{Type: "system / Context", Edge: "context"}, {Type: "Map", Edge: "sessions"}, {Type: "(array)", Edge: "table"},
			{Type: "Session", Edge: "[*]"}},
			"in Map sessions of onRequest (closure)"},
		{"(root)", []st{{Type: "(root)"}, {Type: "(GC roots)", Edge: "[*]"}, {Type: "(array)", Edge: "[*]"}}, ""},
		// Java: a class object by its class, not by the GC root's kind.
		{"sticky class", []st{{Type: "java.lang.Class", Name: "class app.Cache"}, {Type: "java.util.HashMap", Edge: "CACHE"},
			{Type: "java.util.HashMap$Node[]", Edge: "table"}, {Type: "java.util.HashMap$Node", Edge: "[*]"}},
			"in java.util.HashMap$Node[] table of java.util.HashMap CACHE"},
		{"sticky class", []st{{Type: "java.lang.Class", Name: "class app.Cache"}, {Type: "java.util.ArrayList", Edge: "LOG"},
			{Type: "java.lang.Object[]", Edge: "elementData"}}, "in java.util.ArrayList LOG of class app.Cache"},
		{"jni global", []st{{Type: "java.lang.invoke.MethodType"}, {Type: "java.lang.Class[]", Edge: "ptypes"}}, "in java.lang.invoke.MethodType"},
	} {
		kind := map[string]heap.RootKind{"sticky class": heap.RootClass, "jni global": heap.RootGlobal}[tc.root]
		if kind == heap.RootOther {
			kind = heap.RootModule
		}
		grp := analyze.PathGroup{RootKind: kind, RootName: tc.root, Signature: tc.sig}
		if got := analyze.Where(grp); got != tc.want {
			t.Errorf("Where(%v) = %q, want %q", tc.sig, got, tc.want)
		}
	}
}
