package report

import (
	"bytes"
	"fmt"
	"math/rand"
	"strings"
	"testing"
)

func steps(s string) []string { return strings.Split(s, pathSep) }

func TestElide(t *testing.T) {
	long := steps("module app -> .registry app.Registry -> .handlers dict -> ['login'] app.Handler -> .cache dict -> [*] app.Session")
	tests := []struct {
		paths []string
		width int
		want  []string
	}{
		{[]string{"module app -> .cache dict"}, 10, []string{"module app -> .cache dict"}}, // root and last: nothing to leave out
		{[]string{strings.Join(long, pathSep)}, 0, []string{strings.Join(long, pathSep)}},
		{[]string{strings.Join(long, pathSep)}, 200, []string{strings.Join(long, pathSep)}},
		{[]string{strings.Join(long, pathSep)}, 60, []string{"module app -> … -> .cache dict -> [*] app.Session"}},
		{[]string{strings.Join(long, pathSep)}, 20, []string{"module app -> … -> [*] app.Session"}},
		// Same root, same end: the step where they part stays.
		{[]string{
			"module app -> .alpha app.Node -> .next app.Node -> .next app.Node -> .items list -> [*] app.Item",
			"module app -> .beta app.Node -> .next app.Node -> .next app.Node -> .items list -> [*] app.Item",
		}, 50, []string{
			"module app -> .alpha app.Node -> … -> [*] app.Item",
			"module app -> .beta app.Node -> … -> [*] app.Item",
		}},
	}
	for _, tc := range tests {
		var ps [][]string
		for _, p := range tc.paths {
			ps = append(ps, steps(p))
		}
		got := elide(ps, tc.width)
		if strings.Join(got, "\n") != strings.Join(tc.want, "\n") {
			t.Errorf("elide(%q, %d) =\n%s\nwant\n%s", tc.paths, tc.width, strings.Join(got, "\n"), strings.Join(tc.want, "\n"))
		}
	}
}

// TestElideRandom: on random sets of paths, elided paths keep their root
// and last step, fit the width when their root and last step do, and
// print the same only when they are the same.
func TestElideRandom(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	names := []string{".a dict", ".b dict", "[*] list", "['k'] app.Item", ".next app.Node", ".cache dict", "[0] tuple"}
	for round := 0; round < 2000; round++ {
		var paths [][]string
		for n := 1 + rng.Intn(6); n > 0; n-- {
			p := []string{[]string{"module app", "module lib", "held outside the heap"}[rng.Intn(3)]}
			for k := rng.Intn(9); k > 0; k-- {
				p = append(p, names[rng.Intn(len(names))])
			}
			paths = append(paths, p)
		}
		width := 20 + rng.Intn(80)
		got := elide(paths, width)
		for i, line := range got {
			p := paths[i]
			if !strings.HasPrefix(line, p[0]) || !strings.HasSuffix(line, p[len(p)-1]) {
				t.Fatalf("elide(%q, %d)[%d] = %q: lost its root or end", paths, width, i, line)
			}
			if min := stepsWidth([]string{p[0], ellipsis, p[len(p)-1]}); textWidth(line) > width && textWidth(line) > min && !distinctNeeded(paths, i) {
				t.Fatalf("elide(%q, %d)[%d] = %q: wider than it needs", paths, width, i, line)
			}
			for j := range got[:i] {
				if (got[i] == got[j]) != (strings.Join(paths[i], pathSep) == strings.Join(paths[j], pathSep)) {
					t.Fatalf("elide(%q, %d): %d and %d print %q and %q", paths, width, i, j, got[i], got[j])
				}
			}
		}
	}
}

// distinctNeeded reports whether path i shares its root and last step
// with another, different path: then it may keep more steps than fit.
func distinctNeeded(paths [][]string, i int) bool {
	p := paths[i]
	for j, q := range paths {
		if j != i && q[0] == p[0] && q[len(q)-1] == p[len(p)-1] && strings.Join(p, pathSep) != strings.Join(q, pathSep) {
			return true
		}
	}
	return false
}

func TestWrapSteps(t *testing.T) {
	p := steps("class sticky class -> java.lang.Class -> appClass java.lang.Class -> sessions java.util.HashMap -> table java.util.HashMap$Node[] -> [*] java.util.HashMap$Node")
	for _, width := range []int{0, 30, 60, 80, 200} {
		got := wrapSteps("    held by  ", p, width)
		lines := strings.Split(strings.TrimSuffix(got, "\n"), "\n")
		for _, l := range lines {
			// Only a step wider than the line may stick out, alone.
			if width > 0 && textWidth(l) > width && strings.Contains(strings.TrimSpace(l), " -> ") {
				t.Errorf("width %d: line %q is too wide", width, l)
			}
		}
		joined := strings.TrimPrefix(lines[0], "    held by  ")
		for _, l := range lines[1:] {
			joined += " " + strings.TrimPrefix(l, strings.Repeat(" ", 13))
		}
		if joined != strings.Join(p, pathSep) {
			t.Errorf("width %d: wrapped %q, which reads back as %q", width, got, joined)
		}
		if width == 0 && len(lines) != 1 {
			t.Errorf("width 0 wraps: %q", got)
		}
	}
}

// TestTableFitsPaths: a table's path column gets what the other columns
// leave of the width.
func TestTableFitsPaths(t *testing.T) {
	var tb Table
	tb.Columns = []Column{{"count", true}, {"held by", false}}
	for i := 0; i < 3; i++ {
		tb.AddPath(steps(fmt.Sprintf("module app -> .registry app.Registry -> .handlers dict -> ['h%d'] app.Handler -> .cache dict -> [*] app.Session", i)), "12")
	}
	var b bytes.Buffer
	if err := tb.Write(WithWidth(&b, 72), Text); err != nil {
		t.Fatal(err)
	}
	for _, l := range strings.Split(strings.TrimSpace(b.String()), "\n") {
		if textWidth(l) > 72 {
			t.Errorf("line %q is wider than 72", l)
		}
	}
	if !strings.Contains(b.String(), "['h2']") {
		t.Errorf("the rows lost the step where they differ:\n%s", b.String())
	}
}
