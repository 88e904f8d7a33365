package agent

import (
	"path/filepath"
	"testing"
)

// TestSites: under tracemalloc, a snapshot says where each object was
// allocated, the line and its caller, each with its function (make, and
// the module's code that runs it), on every CPython (3.11's managed
// dicts included); without it, nothing. Lists and dicts may come from
// CPython's free lists, reused without the allocator: tracemalloc then
// saw no allocation, and they may have no site.
func TestSites(t *testing.T) {
	eachPython(t, func(t *testing.T, py interp) {
		for _, frames := range []string{"2", ""} {
			var out struct {
				Path    string              `json:"path"`
				File    string              `json:"file"`
				Objects map[string][]uint64 `json:"objects"`
			}
			var env []string
			if frames != "" {
				env = []string{"PYTHONTRACEMALLOC=" + frames}
			}
			runPyWith(t, py.Path, env, "sites.py", &out, t.TempDir())
			g := open(t, out.Path)
			if frames == "" {
				if g.HasSites() {
					t.Errorf("sites without tracemalloc")
				}
				continue
			}
			for name, o := range out.Objects {
				id := find(t, g, o[0], name)
				stack := g.Stack(g.Site(id), 0)
				if len(stack) == 0 && (name == "list" || name == "dict") {
					continue
				}
				if len(stack) != 2 {
					t.Errorf("%s: a stack of %d frames, want 2", name, len(stack))
					continue
				}
				for i, want := range o[1:] {
					fn := []string{"make", "<module>"}[i]
					if f := stack[i]; g.String(f.File) != out.File || f.Line != uint32(want) || g.String(f.Function) != fn {
						t.Errorf("%s: frame %d is %s %s:%d, want %s %s:%d", name, i, g.String(f.Function), g.String(f.File), f.Line,
							fn, filepath.Base(out.File), want)
					}
				}
			}
		}
	})
}
