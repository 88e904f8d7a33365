package report

import (
	"testing"

	"github.com/heapscope/heapscope/analyze"
	"github.com/heapscope/heapscope/heap"
)

// TestPlaceText checks the expressions places are named by: through a
// Python namespace to its module, through V8's plain objects to the
// object whose property holds them, and not through an element or a
// runtime slot.
func TestPlaceText(t *testing.T) {
	step := func(typ, name, edge string, kind heap.EdgeKind) analyze.Step {
		return analyze.Step{Type: typ, Name: name, Edge: edge, Kind: kind}
	}
	s := func(typ, edge string) analyze.Step { return step(typ, "", edge, heap.Strong) }
	for _, c := range []struct {
		steps []analyze.Step
		want  string
	}{
		{[]analyze.Step{step("module", "module app", "", heap.Strong), s("dict", "__dict__"), s("list", ".log")}, "module app.log"},
		// An EventEmitter's listeners: _events is a plain Object.
		{[]analyze.Step{s("(root)", ""), s("EventEmitter", "config"), s("Object", "_events"), s("Array", "change")}, "EventEmitter._events.change"},
		// Plain objects in plain objects, up to what holds the first.
		{[]analyze.Step{s("(root)", ""), s("system / Context", "x"), s("Object", "a"), s("Object", "b"), s("Array", "c")}, "system / Context.a.b.c"},
		// An element, or a runtime slot, is no property: the Object stays.
		{[]analyze.Step{s("(root)", ""), s("Array", "x"), s("Object", "3"), s("Array", "c")}, "Object.c"},
		{[]analyze.Step{s("(root)", ""), s("Foo", "x"), step("Object", "", "map", heap.Internal), s("Array", "c")}, "Object.c"},
		// A named Object is named by its name.
		{[]analyze.Step{s("(root)", ""), s("Foo", "x"), step("Object", "Config", "conf", heap.Strong), s("Array", "c")}, "Config.c"},
	} {
		if got := PlaceText(analyze.Path{Steps: c.steps}); got != c.want {
			t.Errorf("PlaceText(%v) = %q, want %q", c.steps, got, c.want)
		}
	}
}
