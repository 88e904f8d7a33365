package main

import (
	"bytes"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
)

// TestPythonDequeMaxlen runs a program that appends to three deques each
// round: a log whose maxlen it does not reach, a list of recent events
// whose maxlen it passes, and a history without one. leaks calls the
// history growing and the two others bounded, saying each maxlen and
// how full it is, the full one evicting; check fails on the history
// alone; trend lists the history alone among the unbounded collections.
// The same holds for fork captures taken with values=False (the maxlen
// is written without values).
func TestPythonDequeMaxlen(t *testing.T) {
	for _, mode := range []struct {
		name string
		args []string
	}{{"stop-the-world", nil}, {"fork without values", []string{"fork", "novalues"}}} {
		t.Run(mode.name, func(t *testing.T) {
			dir := t.TempDir()
			runPython(t, "dequelog.py", append([]string{dir}, mode.args...)...)
			var snaps []string
			for _, n := range []string{"baseline", "target", "final"} {
				snaps = append(snaps, filepath.Join(dir, n+".pysnap"))
			}
			var rep leakRows
			runJSON(t, &rep, append([]string{"leaks", "--json", "--top", "0"}, snaps...)...)
			found := map[string]string{}
			for i, r := range rep.Rows {
				b := "no bound"
				if r.Bound != nil {
					b = fmt.Sprintf("%s %d, %d filled", r.Bound.Kind, r.Bound.Max, r.Bound.Filled)
				}
				found[r.Place.Text] = fmt.Sprintf("#%d %s, %s", i+1, r.Verdict, b)
			}
			for place, want := range map[string]string{
				"collections.deque at module __main__.history": "#1 grows, no bound",
				"collections.deque at module __main__.log":     "bounded, maxlen 5000, 900 filled",
				"collections.deque at module __main__.recent":  "bounded, maxlen 500, 500 filled",
			} {
				if got := found[place]; !strings.HasSuffix(got, want) {
					t.Errorf("leaks: %s: %q, want %q (findings %v)", place, got, want, found)
				}
			}

			var text, stderr bytes.Buffer
			if err := run(append([]string{"leaks"}, snaps...), &text, &stderr); err != nil {
				t.Fatalf("leaks: %v\n%s", err, stderr.String())
			}
			for _, want := range []string{"growth   bounded: deque maxlen 5,000, 900 filled; grew by 300, then 300",
				"growth   bounded, full and evicting: deque maxlen 500, 500 filled; grew by "} {
				if !strings.Contains(text.String(), want) {
					t.Errorf("leaks does not say %q:\n%s", want, text.String())
				}
			}

			text.Reset()
			err := run(append([]string{"check"}, snaps...), &text, &stderr)
			if code := exitCode(err); code != 1 {
				t.Errorf("check: exit %d (%v), want 1 (the history)", code, err)
			}
			var fails, passes []string
			for _, l := range strings.Split(text.String(), "\n") {
				switch {
				case strings.HasPrefix(l, "leak: "):
					fails = append(fails, l)
				case strings.HasPrefix(l, "pass ("):
					passes = append(passes, l)
				}
			}
			if len(fails) != 1 || !strings.Contains(fails[0], "__main__.history") {
				t.Errorf("check fails on %q, want the history alone", fails)
			}
			for _, want := range []string{"pass (a bounded cache, filling: deque maxlen 5,000, 900 filled): 300 __main__.Event and 300 int in collections.deque at module __main__.log",
				"pass (a bounded cache, full and evicting: deque maxlen 500, 500 filled): "} {
				if !strings.Contains(strings.Join(passes, "\n"), want) {
					t.Errorf("check does not say %q:\n%s", want, text.String())
				}
			}

			var tr struct {
				Collections []struct {
					Path string `json:"path"`
				} `json:"unbounded_collections"`
			}
			runJSON(t, &tr, append([]string{"trend", "--json"}, snaps...)...)
			var paths []string
			for _, c := range tr.Collections {
				if strings.Contains(c.Path, "deque") {
					paths = append(paths, c.Path)
				}
			}
			if want := "module __main__ -> .history collections.deque"; len(paths) != 1 || paths[0] != want {
				t.Errorf("trend's unbounded deques %q, want %q alone", paths, want)
			}
		})
	}
}
