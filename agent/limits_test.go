package agent

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// TestMaxlen: on every Python, a snapshot records the maxlen of each
// deque that has one, a subclass's too (whose own maxlen property, size
// and attribute lookup, and whose metaclass's checks, are never run),
// and of no other object: with values on and off (a maxlen is a size,
// not the program's data: the file without values still has no VALUES
// section), in stop-the-world and fork captures alike.
func TestMaxlen(t *testing.T) {
	eachPython(t, func(t *testing.T, py interp) {
		dir := t.TempDir()
		var r struct {
			Addr   map[string]uint64
			Maxlen map[string]*uint64
			Many   int
			Ran    []string
		}
		runPyWith(t, py.Path, nil, "maxlen.py", &r, dir)
		if len(r.Ran) > 0 {
			t.Errorf("the agent ran the program's code: %v", r.Ran)
		}
		for _, name := range []string{"world", "world-novalues", "fork", "fork-novalues"} {
			path := filepath.Join(dir, name+".pysnap")
			g := open(t, path)
			for d, addr := range r.Addr {
				got, ok := g.Limit(find(t, g, addr, d))
				if want := r.Maxlen[d]; (want == nil) == ok || (want != nil && got != *want) {
					t.Errorf("%s: deque %s: Limit() = %d, %v; want %v", name, d, got, ok, r.Maxlen[d])
				}
			}
			n := 0
			for id := range g.Limits() {
				if ty := typeName(g, id); ty != "collections.deque" && ty != "__main__.Ring" && ty != "__main__.Watched" {
					t.Errorf("%s: a %s has a limit", name, ty)
				}
				n++
			}
			// The named deques with a maxlen, and all of many.
			want := r.Many
			for d, m := range r.Maxlen {
				if m != nil && !slices.Contains([]string{"many 0", "many 1", "many 2", "many 3", "many 4", "many last"}, d) {
					want++
				}
			}
			if n != want {
				t.Errorf("%s: %d objects have a limit, want %d", name, n, want)
			}
			if name == "world-novalues" || name == "fork-novalues" {
				b, err := os.ReadFile(path)
				if err != nil {
					t.Fatal(err)
				}
				if slices.Contains(sectionKinds(t, b), 6) || g.NumValues() != 0 {
					t.Errorf("%s: values=False wrote values (%d)", name, g.NumValues())
				}
			}
		}
	})
}
