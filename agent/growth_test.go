package agent

import (
	"fmt"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/heapscope/heapscope/heap"
	"github.com/heapscope/heapscope/pysnap"
)

// perType is the count and the bytes of each type of a snapshot.
func perType(t *testing.T, path string) map[string][2]uint64 {
	t.Helper()
	g, err := pysnap.Open(path)
	if err != nil {
		t.Fatalf("pysnap.Open(%s): %v", path, err)
	}
	m := map[string][2]uint64{}
	for i := 0; i < g.NumObjects(); i++ {
		id := heap.ObjectID(i)
		if g.Flags(id)&heap.FlagSynthetic != 0 {
			continue
		}
		name := g.TypeName(g.Type(id))
		c := m[name]
		c[0]++
		c[1] += g.Size(id)
		m[name] = c
	}
	return m
}

func mergeKeys(a, b map[string][2]uint64) map[string]bool {
	m := map[string]bool{}
	for k := range a {
		m[k] = true
	}
	for k := range b {
		m[k] = true
	}
	return m
}

// TestGrowth: heapscope.growth() counts what a census snapshot of the
// same heap holds, type by type (objects and bytes), and a second call
// lists the types that passed their peak, by how much: the 500 Leak
// objects made in between, each of sys.getsizeof's size, and not the
// type that shrank; it prints a line per type as it returns them.
func TestGrowth(t *testing.T) {
	eachPython(t, func(t *testing.T, py interp) {
		dir := t.TempDir()
		var r struct {
			First, Second [][]any
			Text          string
			Wrote         bool
			LeakSize      float64 `json:"leak_size"`
		}
		runPyWith(t, py.Path, nil, "growth.py", &r, dir)
		if !r.Wrote {
			t.Fatal("no census snapshot")
		}
		rows := func(rs [][]any) map[string][4]uint64 {
			m := map[string][4]uint64{}
			for _, row := range rs {
				if len(row) != 5 {
					t.Fatalf("row %v: want (type, objects, new, bytes, new bytes)", row)
				}
				var v [4]uint64
				for i := range v {
					v[i] = uint64(row[i+1].(float64))
				}
				m[row[0].(string)] = v
			}
			return m
		}
		first, second := rows(r.First), rows(r.Second)

		// The first call: every type, all of it new, as the census has it.
		// The census file holds 120-170 more int, str and tuple objects
		// than the tally just before it (the same on 3.9-3.13; what they
		// are is not known yet), and the program made its list of rows
		// in between: up to 6 types may differ, each by at most 200
		// objects.
		census := perType(t, filepath.Join(dir, "census.pysnap"))
		var diffs []string
		for name := range census {
			c, f := census[name], first[name]
			if f[0] != f[1] || f[2] != f[3] {
				t.Errorf("first call: %s has %d objects (%d B) but %d new (%d B)", name, f[0], f[2], f[1], f[3])
			}
			if d := int64(c[0]) - int64(f[0]); d > 200 || d < -200 {
				t.Errorf("%s: census %d objects, growth %d", name, c[0], f[0])
			}
			if c[0] != f[0] || c[1] != f[2] {
				diffs = append(diffs, fmt.Sprintf("%s: census %d objects %d B, growth %d objects %d B", name, c[0], c[1], f[0], f[2]))
			}
		}
		for name := range first {
			if _, ok := census[name]; !ok {
				diffs = append(diffs, fmt.Sprintf("%s: not in the census, growth %v", name, first[name]))
			}
		}
		slices.Sort(diffs)
		if len(first) < 50 || len(diffs) > 6 {
			t.Errorf("growth() counted %d types, %d unlike the census:\n%s", len(first), len(diffs), strings.Join(diffs, "\n"))
		}
		if c := census["__main__.Leak"]; c[0] != 1000 || first["__main__.Leak"] != [4]uint64{1000, 1000, c[1], c[1]} {
			t.Errorf("first call: Leak %v, census %v; want 1000 objects in both", first["__main__.Leak"], c)
		}

		size := uint64(r.LeakSize)
		if got, want := second["__main__.Leak"], [4]uint64{1500, 500, 1500 * size, 500 * size}; got != want {
			t.Errorf("second call: Leak (objects, new, bytes, new bytes) = %v, want %v", got, want)
		}
		if s := second["str"]; s[1] < 500 {
			t.Errorf("second call: %d new str, want at least the 500 Leak names", s[1])
		}
		if _, ok := second["__main__.Shrink"]; ok {
			t.Errorf("second call lists Shrink, which shrank: %v", second["__main__.Shrink"])
		}
		if len(second) > 20 {
			t.Errorf("second call lists %d types; only a few grew", len(second))
		}
		// Printed: a line per row, most new objects first.
		lines := strings.Split(strings.TrimRight(r.Text, "\n"), "\n")
		if len(lines) != len(r.Second) {
			t.Fatalf("%d lines printed for %d rows:\n%s", len(lines), len(r.Second), r.Text)
		}
		line := regexp.MustCompile(`^(\S+) +(\d+) +\+(\d+) +(\d+) +\+(\d+)$`)
		for i, l := range lines {
			m := line.FindStringSubmatch(l)
			if m == nil || m[1] != r.Second[i][0].(string) || m[3] != fmt.Sprint(uint64(r.Second[i][2].(float64))) {
				t.Errorf("line %d %q does not print row %v", i, l, r.Second[i])
			}
			if i > 0 && r.Second[i][2].(float64) > r.Second[i-1][2].(float64) {
				t.Errorf("rows not sorted by new objects: %v before %v", r.Second[i-1], r.Second[i])
			}
		}
	})
}
