package agent

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/heapscope/heapscope/heap"
)

// TestWatch: heapscope.watch records where the instances of the classes
// it is given are allocated, by their allocator, on every CPython, in a
// stop-the-world and a fork snapshot: each instance made since names
// its function and line and its caller's (two makers told apart, a
// thread's, comprehensions'); objects in memory freed by a watched
// instance and reused by another class, instances made before the
// watch, and those of a class unwatched before the snapshot, get none;
// copy.copy goes through the hook (its
// three frames are copy's and copyreg's). Subclasses of dict and tuple, and
// built-in classes, are refused with their reason. The program runs
// 3,000 allocations of each accepted kind of base with a collection in
// each hook, and checks its objects are whole.
func TestWatch(t *testing.T) {
	eachPython(t, func(t *testing.T, py interp) {
		var out struct {
			Paths   []string          `json:"paths"`
			File    string            `json:"file"`
			Refused map[string]string `json:"refused"`
			Objects [][2]json.RawMessage
		}
		runPyWith(t, py.Path, nil, "watch.py", &out, t.TempDir())
		for name, want := range map[string]string{"Table": "built on dict", "Pair": "built on tuple", "dict": "a built-in class"} {
			if !strings.HasPrefix(out.Refused[name], want) {
				t.Errorf("%s refused with %q, want %q...", name, out.Refused[name], want)
			}
		}
		if len(out.Refused) != 3 {
			t.Errorf("refused %v, want Table, Pair and dict only", out.Refused)
		}
		if len(out.Paths) == 0 {
			t.Fatal("no snapshot")
		}
		for _, path := range out.Paths {
			g := open(t, path)
			checked := 0
			for _, o := range out.Objects {
				var addr uint64
				if err := json.Unmarshal(o[0], &addr); err != nil {
					t.Fatal(err)
				}
				id := find(t, g, addr, "object")
				stack := g.Stack(g.Site(id), 0)
				var copyMark string
				if json.Unmarshal(o[1], &copyMark) == nil {
					if len(stack) == 0 || !strings.HasSuffix(g.String(stack[len(stack)-1].File), "copy.py") {
						t.Errorf("%s: the copy's site %s does not end in copy.py", path, frames(g, stack))
					}
					continue
				}
				var want [][2]json.RawMessage
				if err := json.Unmarshal(o[1], &want); err != nil {
					t.Fatal(err)
				}
				if len(stack) < len(want) || len(want) == 0 && len(stack) != 0 {
					t.Errorf("%s: %s 0x%x has the site %s, want %d frames", path, typeName(g, id), addr, frames(g, stack), len(want))
					continue
				}
				for i, w := range want {
					var fn string
					var line uint32
					json.Unmarshal(w[0], &fn)
					json.Unmarshal(w[1], &line)
					if f := stack[i]; g.String(f.Function) != fn || f.Line != line || g.String(f.File) != out.File {
						t.Errorf("%s: %s 0x%x frame %d is %s, want %s:%d", path, typeName(g, id), addr, i, frames(g, stack[i:i+1]), fn, line)
					}
				}
				checked++
			}
			if checked < 500 {
				t.Errorf("%s: %d objects checked", path, checked)
			}
		}
	})
}

func frames(g *heap.Graph, stack []heap.Frame) string {
	var b strings.Builder
	for i, f := range stack {
		if i > 0 {
			b.WriteString(" <- ")
		}
		fmt.Fprintf(&b, "%s %s:%d", g.String(f.Function), g.String(f.File), f.Line)
	}
	if len(stack) == 0 {
		return "(none)"
	}
	return b.String()
}

// TestGrowthWatch: heapscope.growth(watch=True) watches nothing at its
// first call, then the classes that grew since (Leaky, not Steady): the
// instances made after the second call name the line that made them,
// those made before, and the others, nothing.
func TestGrowthWatch(t *testing.T) {
	eachPython(t, func(t *testing.T, py interp) {
		var out struct {
			Path, File     string
			Line           uint32
			First, Watched []string
			Sited, Unsited []uint64
		}
		runPyWith(t, py.Path, nil, "growthwatch.py", &out, t.TempDir())
		if len(out.First) != 0 || strings.Join(out.Watched, ",") != "Leaky" {
			t.Errorf("watched %v at the first call and %v at the second, want none and [Leaky]", out.First, out.Watched)
		}
		g := open(t, out.Path)
		for _, a := range out.Sited {
			stack := g.Stack(g.Site(find(t, g, a, "Leaky")), 0)
			if len(stack) < 2 || g.String(stack[0].Function) != "leak" || stack[0].Line != out.Line || g.String(stack[0].File) != out.File {
				t.Fatalf("a Leaky made after the second call has the site %s, want leak %s:%d", frames(g, stack), out.File, out.Line)
			}
		}
		for _, a := range out.Unsited {
			if s := g.Site(find(t, g, a, "object")); s != heap.NoSite {
				t.Fatalf("0x%x has the site %s, want none", a, frames(g, g.Stack(s, 0)))
			}
		}
	})
}
