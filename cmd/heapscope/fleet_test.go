package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestFleetGolden checks trend and diff over a set of three ranks
// (testdata/fleet: a cache that grows on every rank, sessions that grow
// on rank-2 only, connections rank-1 opens once) and their misuse.
func TestFleetGolden(t *testing.T) {
	const set = "testdata/fleet"
	for _, tc := range []struct {
		name string
		args []string
	}{
		{"fleet-trend", []string{"trend", set}},
		{"fleet-trend-json", []string{"trend", "--json", set}},
		{"fleet-trend-at", []string{"trend", "--at", "1,3", set}},
		{"fleet-diff", []string{"diff", set}},
		{"fleet-diff-per-process", []string{"diff", "--per-process", "--at", "2,3", set}},
		{"fleet-misuse-at", []string{"trend", "--at", "3,1", set}},
		{"fleet-misuse-at-missing", []string{"diff", "--at", "1,4", set}},
		{"fleet-misuse-snapshot-flags", []string{"trend", "--per-process", "testdata/before.pysnap", "testdata/after.pysnap"}},
		{"fleet-misuse-mixed", []string{"diff", set, "testdata/after.pysnap"}},
		{"fleet-misuse-html", []string{"trend", "--format", "html", set}},
	} {
		t.Run(tc.name, func(t *testing.T) { golden(t, tc.name, tc.args...) })
	}
}

// TestFleetTimePoints checks that the same snapshots laid out as one
// directory per time point (worker-N.pysnap in each) read as the series
// layout does, and that a process missing at a time point is left out
// and said so.
func TestFleetTimePoints(t *testing.T) {
	dir := t.TempDir()
	var dirs []string
	for _, tp := range []string{"0001", "0002", "0003"} {
		d := filepath.Join(dir, "t"+tp)
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
		dirs = append(dirs, d)
		for r := range 3 {
			if r == 1 && tp == "0002" {
				continue // worker-1 missed a capture
			}
			m, _ := filepath.Glob(filepath.Join("testdata/fleet", "rank-"+string(rune('0'+r)), tp+"-*.pysnap"))
			if len(m) != 1 {
				t.Fatalf("no fixture for rank %d at %s", r, tp)
			}
			b, err := os.ReadFile(m[0])
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(d, "worker-"+string(rune('0'+r))+".pysnap"), b, 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	out := runText(t, append([]string{"trend"}, dirs...)...)
	for _, want := range []string{
		"2 workers (worker-0, worker-2) at 3 times (t0001, t0002, t0003)",
		"left out: worker-1: no snapshot at t0002",
		"steady  all 2 workers",
		"steady  only worker-2",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("trend over time-point directories does not say %q:\n%s", want, out)
		}
	}
}

// runText runs heapscope with args and returns what it printed; it
// fails the test on an error.
func runText(t *testing.T, args ...string) string {
	t.Helper()
	var stdout, stderr strings.Builder
	if err := run(args, &stdout, &stderr); err != nil {
		t.Fatalf("heapscope %s: %v\n%s", strings.Join(args, " "), err, stderr.String())
	}
	return stdout.String()
}
