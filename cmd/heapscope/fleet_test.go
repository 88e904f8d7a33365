package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestFleetGolden checks trend, diff and leaks over a set of three ranks
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
		{"fleet-leaks", []string{"leaks", set}},
		{"fleet-leaks-json", []string{"leaks", "--json", set}},
		{"fleet-leaks-per-process", []string{"leaks", "--per-process", "--top", "1", set}},
		{"fleet-leaks-misuse-at", []string{"leaks", "--at", "1,3", set}},
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
	wantSays(t, "trend over time-point directories", out,
		"2 workers (worker-0, worker-2) at 3 times (t0001, t0002, t0003)",
		"left out: worker-1: no snapshot at t0002",
		"steady  all 2 workers",
		"steady  only worker-2")
}

// wantSays checks that out, what a command (what) printed, says each of
// wants.
func wantSays(t *testing.T, what, out string, wants ...string) {
	t.Helper()
	for _, want := range wants {
		if !strings.Contains(out, want) {
			t.Errorf("%s does not say %q:\n%s", what, want, out)
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

// TestFleetLeaks checks what leaks picks from a series of more than three
// time points (the first, the middle and the last), that it says which
// process it leaves out and why, and that it refuses censuses, which have
// no references to find leaks by.
func TestFleetLeaks(t *testing.T) {
	dir := t.TempDir()
	// rank-0 to rank-2 as in testdata/fleet, and a fourth time point
	// that repeats the third; rank-3 missed the capture at 0002, which
	// leaks compares, and has one at 0003, which it does not.
	for r := range 4 {
		src := "rank-" + string(rune('0'+min(r, 2)))
		d := filepath.Join(dir, "rank-"+string(rune('0'+r)))
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
		for i, from := range []string{"0001", "0002", "0003", "0003"} {
			if r == 3 && i == 1 {
				continue
			}
			m, _ := filepath.Glob(filepath.Join("testdata/fleet", src, from+"-*.pysnap"))
			if len(m) != 1 {
				t.Fatalf("no fixture %s/%s", src, from)
			}
			b, err := os.ReadFile(m[0])
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(d, "000"+string(rune('1'+i))+"-10"+string(rune('0'+r))+"-interval.pysnap"), b, 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	out := runText(t, "leaks", dir)
	wantSays(t, "leaks over 4 time points", out,
		"3 ranks (rank-0, rank-1, rank-2) at 3 times (0001, 0002, 0004)",
		"left out: rank-3: no snapshot at 0002",
		"grows    all 3 ranks      4.1 KiB (1 object)",
		"grows    only rank-2     2.0 KiB (2 objects)",
		"stopped  only rank-1       400 B (2 objects)")
	if out2 := runText(t, "leaks", "--at", "1,2,4", dir); out2 != out {
		t.Errorf("leaks --at 1,2,4 differs from its default, the first, middle and last time points:\n%s\n%s", out2, out)
	}

	// Censuses: refused, named.
	cdir := t.TempDir()
	runPython(t, "census.py", cdir)
	b, err := os.ReadFile(filepath.Join(cdir, "census.pysnap"))
	if err != nil {
		t.Fatal(err)
	}
	set := filepath.Join(cdir, "set", "worker-0")
	if err := os.MkdirAll(set, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, n := range []string{"0001", "0002", "0003"} {
		if err := os.WriteFile(filepath.Join(set, n+"-7-dask.pysnap"), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	var stdout, stderr strings.Builder
	err = run([]string{"leaks", filepath.Dir(set)}, &stdout, &stderr)
	if err == nil || !strings.Contains(err.Error(), "0001-7-dask.pysnap is a census") || !strings.Contains(err.Error(), "finding leaks needs a full snapshot") {
		t.Errorf("leaks over censuses: %v, want an error that names the census\n%s", err, stdout.String())
	}
}

// TestRunDirOneProcess: a directory of one program's snapshots, as run
// -o DIR writes them, reads as that process's series, with the report of
// one process: leaks on its last three snapshots, trend on all of them,
// diff on the first and last, --at on others, each the same as with the
// files given.
func TestRunDirOneProcess(t *testing.T) {
	dir := t.TempDir()
	var files []string
	for i, from := range []string{"0001", "0002", "0003", "0003"} {
		m, _ := filepath.Glob(filepath.Join("testdata/fleet/rank-2", from+"-*.pysnap"))
		if len(m) != 1 {
			t.Fatalf("no fixture rank-2/%s", from)
		}
		b, err := os.ReadFile(m[0])
		if err != nil {
			t.Fatal(err)
		}
		p := filepath.Join(dir, "000"+string(rune('1'+i))+"-4242-interval.pysnap")
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
		files = append(files, p)
	}
	for _, tc := range []struct{ dir, files []string }{
		{[]string{"leaks", dir}, append([]string{"leaks"}, files[1:]...)},
		{[]string{"leaks", "--at", "1,2,3", dir}, append([]string{"leaks"}, files[:3]...)},
		{[]string{"trend", dir}, append([]string{"trend"}, files...)},
		{[]string{"diff", dir}, []string{"diff", files[0], files[3]}},
		{[]string{"diff", "--at", "2,3", dir}, []string{"diff", files[1], files[2]}},
	} {
		if got, want := runText(t, tc.dir...), runText(t, tc.files...); got != want {
			t.Errorf("heapscope %s:\n%s\nwant, as with the files given:\n%s", strings.Join(tc.dir, " "), got, want)
		}
	}
	var stdout, stderr strings.Builder
	if err := run([]string{"leaks", "--at", "1,2", dir}, &stdout, &stderr); err == nil || !strings.Contains(err.Error(), "leaks compares 3 time points") {
		t.Errorf("leaks --at 1,2 DIR: %v, want misuse", err)
	}
}
