package report

import (
	"bytes"
	"strings"
	"testing"

	"github.com/heapscope/heapscope/analyze"
	"github.com/heapscope/heapscope/heap"
)

// vmPath is a V8-like path: from the (root) VM root through a closure,
// five links of a list and three halves of a rope to a string.
func vmPath() analyze.Path {
	steps := []analyze.Step{
		{Type: "(root)"},
		{Edge: "app", Type: "Object"},
		{Edge: "onRequest", Type: "onRequest (closure)"},
	}
	for range 5 {
		steps = append(steps, analyze.Step{Edge: "next", Type: "Node"})
	}
	for _, e := range []string{"first", "second", "first"} {
		steps = append(steps, analyze.Step{Edge: e, Type: "(concatenated string)", Kind: heap.Internal})
	}
	steps = append(steps, analyze.Step{Edge: "first", Type: "(string)", Kind: heap.Internal})
	return analyze.Path{RootKind: heap.RootVM, RootName: "(root)", Steps: steps}
}

// TestPathText: runs of equal steps and of rope halves are one step, a
// closure is not named twice, and the root's own type is not repeated.
func TestPathText(t *testing.T) {
	want := "vm (root) -> app Object -> onRequest (closure) -> next Node (5 steps) -> " +
		"first/second (concatenated string) (3 steps) -> first (string)"
	if got := PathText(vmPath()); got != want {
		t.Errorf("PathText =\n%s\nwant\n%s", got, want)
	}
}

// TestPathFoldsThenFits: a table fits a path after folding its runs, so
// a path that fits once folded shows whole, and a narrower one keeps its
// root and folded last steps.
func TestPathFoldsThenFits(t *testing.T) {
	folded := PathText(vmPath())
	for _, tc := range []struct {
		width int
		want  string
	}{
		{len(folded) + 10, folded}, // the unfolded path is about twice as wide
		{90, "vm (root) -> … -> first/second (concatenated string) (3 steps) -> first (string)"},
	} {
		var buf bytes.Buffer
		tab := Table{Columns: []Column{{"n", true}, {"held by", false}}}
		tab.AddPath(pathSteps(vmPath()), "1")
		if err := tab.Write(WithWidth(&buf, tc.width), Text); err != nil {
			t.Fatal(err)
		}
		lines := strings.Split(strings.TrimSpace(buf.String()), "\n")
		if got := strings.TrimSpace(strings.TrimPrefix(lines[len(lines)-1], "1")); got != tc.want {
			t.Errorf("width %d: path cell %q, want %q", tc.width, got, tc.want)
		}
	}
}
