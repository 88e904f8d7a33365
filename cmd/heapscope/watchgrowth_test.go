package main

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"

	"github.com/heapscope/heapscope/internal/heaptest"
)

// TestRunWatchGrowth runs a loop that leaks Records from one line
// under run --signal, six snapshots, on every Python, with fork
// captures and without: once the Records grew in both intervals between
// three snapshots, run watches their class (the program says which on
// stderr, and from which snapshot on) and leaks on the next three names the leaking line, with no
// tracemalloc. Classes that grew at one step only, or shrank, are not
// watched, nor is a dict subclass (which cannot be). With
// --watch-growth=false nothing is watched and leaks has no site.
func TestRunWatchGrowth(t *testing.T) {
	script, _ := filepath.Abs("testdata/watchgrowth.py")
	line := heaptest.LineOf(t, script, "the leaking allocation")
	const told = "heapscope: the instances of 1 class grew in both intervals between the last three snapshots (__main__.Record); the snapshots from 0004 on say where"
	for _, fork := range []string{"--fork=true", "--fork=false"} {
		t.Run(fork, func(t *testing.T) {
			inParallel(t, attachPythons(t), func(t *testing.T, py string) {
				dir := t.TempDir()
				var stdout, stderr bytes.Buffer
				if err := run([]string{"run", "-o", dir, "--signal", "SIGUSR2", fork, "--", py, script, dir}, &stdout, &stderr); err != nil {
					t.Fatalf("run: %v\n%s", err, stderr.String())
				}
				if n := strings.Count(stderr.String(), "grew in both intervals"); n != 1 || !strings.Contains(stderr.String(), told) {
					t.Errorf("stderr says %d times that classes grew, want once, Record alone:\n%s", n, stderr.String())
				}
				snaps := waitSnapshots(t, dir, "*-signal.pysnap", 6)
				typ, frame := leakSites(t, snaps[2:5])
				if typ != "__main__.Record" || frame["file"] != script || frame["line"] != float64(line) || frame["function"] != "remember" {
					t.Errorf("the leak (%s) was allocated at %v, want remember in %s:%d", typ, frame, script, line)
				}
				// Three snapshots of which only the last has sites:
				// leaks says that what leaked was made before they were
				// recorded, and from which snapshot on they are.
				if from, note := sitesNote(t, snaps[1:4]); from != 2 || !strings.Contains(note, "made before "+snaps[2]+", before the recording began") ||
					!strings.Contains(note, "taken from "+snaps[3]+" on") {
					t.Errorf("leaks on snapshots 2-4: sites from %d, note %q; want from the last, before 3", from, note)
				}
				// The directory: its last three snapshots.
				if typ, frame := leakSites(t, []string{dir}); typ != "__main__.Record" || frame["line"] != float64(line) {
					t.Errorf("leaks DIR: the leak (%s) was allocated at %v, want %s:%d", typ, frame, script, line)
				}
			})
		})
	}
	t.Run("off", func(t *testing.T) {
		py := attachPythons(t)[0]
		dir := t.TempDir()
		var stdout, stderr bytes.Buffer
		if err := run([]string{"run", "-o", dir, "--signal", "SIGUSR2", "--watch-growth=false", "--", py, script, dir}, &stdout, &stderr); err != nil {
			t.Fatalf("run: %v\n%s", err, stderr.String())
		}
		if strings.Contains(stderr.String(), "grew in both") {
			t.Errorf("--watch-growth=false, and stderr says:\n%s", stderr.String())
		}
		snaps := waitSnapshots(t, dir, "*-signal.pysnap", 6)
		r := leaksJSON(t, snaps[2:5])[0]
		if r.Type != "__main__.Record" || len(r.Allocated.Sites) != 0 {
			t.Errorf("--watch-growth=false: the first finding is %s with sites %+v, want Record with none", r.Type, r.Allocated.Sites)
		}
		if from, note := sitesNote(t, snaps[1:4]); from != -1 || note != "" {
			t.Errorf("--watch-growth=false: sites from %d, note %q; want none", from, note)
		}
	})
}

// sitesNote returns what leaks --json says of the allocation sites of
// snaps: the first snapshot that records them, and why what leaked has
// none.
func sitesNote(t *testing.T, snaps []string) (int, string) {
	t.Helper()
	var rep struct {
		From int    `json:"sites_from"`
		Note string `json:"sites_note"`
	}
	runJSON(t, &rep, append([]string{"leaks", "--json"}, snaps...)...)
	return rep.From, rep.Note
}
