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
// three frames are copy's and copyreg's, the program's follows). Subclasses of dict and tuple, and
// built-in classes, are refused with their reason. The watch's own
// objects are not in the snapshots. An instance made deeper in a
// library than the frames noted names the program's frame further out. The program runs
// 3,000 allocations of each accepted kind of base with a collection in
// each hook, and checks its objects are whole.
func TestWatch(t *testing.T) {
	eachPython(t, func(t *testing.T, py interp) {
		var out struct {
			Paths   []string          `json:"paths"`
			File    string            `json:"file"`
			Refused map[string]string `json:"refused"`
			Objects [][2]json.RawMessage
			Agent   []uint64  `json:"agent"`
			Deep    [3]uint64 `json:"deep"`
			Closed  []string  `json:"closed"`
		}
		runPyWith(t, py.Path, nil, "watch.py", &out, t.TempDir())
		for name, want := range map[string]string{"Table": "built on dict", "Pair": "built on tuple", "dict": "a built-in class"} {
			if !strings.HasPrefix(out.Refused[name], want) {
				t.Errorf("%s refused with %q, want %q...", name, out.Refused[name], want)
			}
		}
		// functools' C list element, a heap type from 3.10 on.
		want := 3
		if why, ok := out.Refused["_lru_list_elem"]; ok {
			want++
			if !strings.HasPrefix(why, "a class made by a C extension") {
				t.Errorf("_lru_list_elem refused with %q, want a class made by a C extension", why)
			}
		} else if py.minor() >= 10 {
			t.Errorf("_lru_list_elem, a C extension's class, was not refused")
		}
		if len(out.Refused) != want {
			t.Errorf("refused %v, want Table, Pair, dict and the C class only", out.Refused)
		}
		if len(out.Closed) != 1 || out.Closed[0] != "the interpreter is exiting" {
			t.Errorf("watch after the exit's unwatch: refused %q, want once, the interpreter is exiting", out.Closed)
		}
		if len(out.Paths) == 0 {
			t.Fatal("no snapshot")
		}
		for _, path := range out.Paths {
			g := open(t, path)
			// The watch's own state (its tables, lock and the ctypes
			// callbacks the classes' slots point to) is the agent's,
			// not the program's.
			for _, a := range out.Agent {
				if id, ok := g.FindAddr(a); ok {
					t.Errorf("%s: the snapshot has the watch's %s 0x%x", path, typeName(g, id), a)
				}
			}
			// Made 11 frames deep in a library: its 3 innermost frames,
			// then the program's function and its caller, the outermost.
			stack := g.Stack(g.Site(find(t, g, out.Deep[0], "Plain")), 0)
			ok := len(stack) == 5 // <module> is outermost
			for i, f := range stack {
				lib := strings.HasSuffix(g.String(f.File), "/site-packages/deeplib.py")
				ok = ok && lib == (i < 3)
			}
			if !ok || g.String(stack[3].Function) != "make_deep" || uint64(stack[3].Line) != out.Deep[1] ||
				g.String(stack[4].Function) != "<module>" || uint64(stack[4].Line) != out.Deep[2] {
				t.Errorf("%s: the Plain made deep in a library has the site %s, want 3 frames of deeplib.py, then make_deep:%d <- <module>:%d", path, frames(g, stack), out.Deep[1], out.Deep[2])
			}
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
					// copy's and copyreg's frames, then the program's.
					if len(stack) != 4 || !strings.HasSuffix(g.String(stack[2].File), "/copy.py") || g.String(stack[3].File) != out.File {
						t.Errorf("%s: the copy's site %s is not 3 frames of copy.py and copyreg.py, then the program's", path, frames(g, stack))
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

// TestWatchThreadInHook: a snapshot taken while another thread is inside
// the watch's hook (stopped there by the program's trace function)
// lists none of the watch's own objects, which that thread's agent
// frames hold in their locals; stop-the-world and fork, on every Python.
func TestWatchThreadInHook(t *testing.T) {
	eachPython(t, func(t *testing.T, py interp) {
		var out struct {
			Paths []string `json:"paths"`
			Agent []uint64 `json:"agent"`
		}
		runPyWith(t, py.Path, nil, "watchthread.py", &out, t.TempDir())
		if len(out.Paths) == 0 || len(out.Agent) == 0 {
			t.Fatalf("watchthread.py said %+v", out)
		}
		for _, path := range out.Paths {
			g := open(t, path)
			for _, a := range out.Agent {
				if id, ok := g.FindAddr(a); ok {
					t.Errorf("%s: the snapshot has the watch's %s 0x%x", path, typeName(g, id), a)
				}
			}
		}
	})
}
