package agent

import (
	"strings"
	"testing"
)

// TestUntracedCapture: under tracemalloc (25 frames), a snapshot of a
// heap of 24,000 objects of its own leaves tracemalloc as it was: at most a few hundred
// traced blocks more (each of the agent's allocations traced, it was
// thousands, and tracemalloc's tables grew by megabytes of the agent's
// tracebacks), an object made after the snapshot is traced again, and
// objects made before keep their site. With a hook of the program's on
// top of tracemalloc's, the agent sets nothing aside, says so, and the
// sites are still there.
func TestUntracedCapture(t *testing.T) {
	eachPython(t, func(t *testing.T, py interp) {
		for _, mode := range []string{"plain", "hooked"} {
			t.Run(mode, func(t *testing.T) {
				var out struct {
					Path   string `json:"path"`
					Addr   uint64 `json:"addr"`
					Line   uint32 `json:"line"`
					File   string `json:"file"`
					Blocks int    `json:"blocks"`
					Traced int    `json:"traced"`
					Tables int    `json:"tables"`
					After  bool   `json:"after"`
				}
				runPyWith(t, py.Path, nil, "untraced.py", &out, t.TempDir(), mode)
				t.Logf("%d traced blocks, %d bytes traced, %d bytes of tables more", out.Blocks, out.Traced, out.Tables)
				g := open(t, out.Path)
				stack := g.Stack(g.Site(find(t, g, out.Addr, "mark")), 0)
				if len(stack) == 0 || g.String(stack[0].File) != out.File || stack[0].Line != out.Line {
					t.Errorf("the site of mark is %v, want %s:%d first", stack, out.File, out.Line)
				}
				if !out.After {
					t.Errorf("an object made after the snapshot is not traced")
				}
				warned := false
				for _, w := range g.Warnings() {
					if strings.Contains(w.Msg, "allocation sites:") {
						warned = true
						if mode == "plain" {
							t.Errorf("warning: %s", w.Msg)
						}
					}
				}
				if mode == "hooked" {
					if !warned {
						t.Errorf("no warning that the hooks were not set aside: %v", g.Warnings())
					}
					if out.Blocks < 1000 {
						t.Errorf("with a hook on top, %d traced blocks more: was the agent traced?", out.Blocks)
					}
					return
				}
				if out.Blocks > 600 || out.Tables > 400<<10 {
					t.Errorf("the snapshot left %d traced blocks (%d bytes) and %d bytes of tracemalloc's tables more",
						out.Blocks, out.Traced, out.Tables)
				}
			})
		}
	})
}
