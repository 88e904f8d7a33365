package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/google/pprof/profile"

	"github.com/heapscope/heapscope/internal/heaptest"
)

// TestPprofGolden checks the profiles of top and summary as the pprof
// library reads them back, against golden text.
func TestPprofGolden(t *testing.T) {
	for _, tc := range []struct {
		name string
		args []string
	}{
		{"top-pprof", []string{"top", "--format", "pprof", "--min-frame", "0", "testdata/rich.pysnap"}},
		{"top-pprof-folded", []string{"top", "--format", "pprof", "--min-frame", "300", "testdata/rich.pysnap"}},
		{"summary-pprof", []string{"summary", "--format", "pprof", "testdata/after.pysnap"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			if err := run(tc.args, &stdout, &stderr); err != nil {
				t.Fatalf("heapscope %s: %v\n%s", strings.Join(tc.args, " "), err, stderr.String())
			}
			p, err := profile.Parse(&stdout)
			if err != nil {
				t.Fatal(err)
			}
			heaptest.Golden(t, filepath.Join("testdata", tc.name+".golden"), []byte(p.String()))
		})
	}
	golden(t, "pprof-misuse", "leaks", "--format", "pprof", "testdata/before.pysnap", "testdata/after.pysnap", "testdata/after.pysnap")
}

// pprofTop writes top --format pprof of snap (with extra flags) to a
// file and returns what go tool pprof -top says of it (and of base, when
// given, as -diff_base): the cum bytes per function, and the total.
func pprofTop(t *testing.T, snap, base string, extra ...string) (map[string]int64, int64) {
	t.Helper()
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("go is not installed")
	}
	write := func(snap string) string {
		out := filepath.Join(t.TempDir(), filepath.Base(snap)+".pb.gz")
		var stdout, stderr bytes.Buffer
		args := append([]string{"top", "--format", "pprof", snap}, extra...)
		if err := run(args, &stdout, &stderr); err != nil {
			t.Fatalf("heapscope %s: %v\n%s", strings.Join(args, " "), err, stderr.String())
		}
		if err := os.WriteFile(out, stdout.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		return out
	}
	args := []string{"tool", "pprof", "-top", "-unit=B", "-nodefraction=0", "-nodecount=1000000"}
	if base != "" {
		args = append(args, "-diff_base", write(base))
	}
	cmd := exec.Command("go", append(args, write(snap))...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go %s: %v\n%s", strings.Join(args, " "), err, stderr.String())
	}
	cum := map[string]int64{}
	total := int64(-1)
	num := func(s string) int64 {
		n, err := strconv.ParseInt(strings.TrimSuffix(s, "B"), 10, 64)
		if err != nil {
			t.Fatalf("go tool pprof -top: %q is not a number of bytes\n%s", s, out)
		}
		return n
	}
	for _, line := range strings.Split(string(out), "\n") {
		f := strings.Fields(line)
		// "Showing nodes accounting for 6196430B, 78.99% of 7844844B total"
		if len(f) >= 3 && f[len(f)-1] == "total" && strings.HasPrefix(line, "Showing nodes") {
			total = num(f[len(f)-2])
		}
		// "2114000B 26.95% 26.95%   2114000B 26.95%  bytearray"
		if len(f) >= 6 && strings.HasSuffix(f[0], "B") && strings.HasSuffix(f[1], "%") && strings.HasSuffix(f[4], "%") {
			cum[strings.Join(f[5:], " ")] = num(f[3])
		}
	}
	if total < 0 || len(cum) == 0 {
		t.Fatalf("go tool pprof -top printed no total or no rows:\n%s", out)
	}
	return cum, total
}

// TestPprofRetained reads the profile of a real Python heap back with
// go tool pprof: its total is what the roots reach, and the cum of each
// type whose objects have no names of their own is the retained size top
// gives the type, for every frame (--min-frame 0) and with the default
// folding; -diff_base between two snapshots of the leaking program gives
// what the leaking type's retained size grew by.
func TestPprofRetained(t *testing.T) {
	dir := t.TempDir()
	runPython(t, "leaky.py", dir)
	snap := func(n string) string { return filepath.Join(dir, n+".pysnap") }
	type topJSON struct {
		Reachable int64 `json:"reachable_bytes"`
		Types     []struct {
			Type     string `json:"type"`
			Retained int64  `json:"retained_bytes"`
		} `json:"types"`
	}
	retained := func(snap string) (map[string]int64, int64) {
		var top topJSON
		runJSON(t, &top, "top", "--json", "--top", "100000", snap)
		m := map[string]int64{}
		for _, ty := range top.Types {
			m[ty.Type] = ty.Retained
		}
		return m, top.Reachable
	}
	want, reachable := retained(snap("final"))
	unnamed := []string{"__main__.RequestContext", "__main__.Listener", "__main__.CacheEntry", "dict", "list", "tuple", "str", "collections.OrderedDict"}
	for _, folding := range [][]string{{"--min-frame", "0"}, nil} {
		cum, total := pprofTop(t, snap("final"), "", folding...)
		if total != reachable {
			t.Errorf("%v: go tool pprof totals %d bytes, top says %d are reachable", folding, total, reachable)
		}
		for _, ty := range unnamed {
			if folding == nil && !strings.HasPrefix(ty, "__main__.") {
				continue // folding hides small ones under other frames
			}
			if cum[ty] != want[ty] || want[ty] == 0 {
				t.Errorf("%v: %s: go tool pprof cum %d bytes, top retained %d", folding, ty, cum[ty], want[ty])
			}
		}
	}
	before, _ := retained(snap("baseline"))
	diff, _ := pprofTop(t, snap("final"), snap("baseline"), "--min-frame", "0")
	const leak = "__main__.RequestContext"
	if grew := want[leak] - before[leak]; diff[leak] != grew || grew <= 0 {
		t.Errorf("-diff_base: %s cum %+d bytes, top's retained grew by %+d", leak, diff[leak], grew)
	}
}

// TestPprofJavaNode checks the profiles of a real JVM's and a real Node
// program's heaps: go tool pprof reads them, their totals are what the
// roots reach, and the leaking type's cum is its retained size.
func TestPprofJavaNode(t *testing.T) {
	dir := t.TempDir()
	var snaps, leaking []string
	if _, err := exec.LookPath("javac"); err == nil {
		src := filepath.Join("testdata", "leakbench", "LeakBench.java")
		if out, err := exec.Command("javac", "-d", dir, src).CombinedOutput(); err != nil {
			t.Fatalf("javac: %v\n%s", err, out)
		}
		if out, err := exec.Command("java", "-Xmx256m", "-cp", dir, "leakbench.LeakBench", dir).CombinedOutput(); err != nil {
			t.Fatalf("java: %v\n%s", err, out)
		}
		snaps, leaking = append(snaps, filepath.Join(dir, "final.hprof")), append(leaking, "leakbench.RequestContext")
	}
	if _, err := exec.LookPath("node"); err == nil {
		cmd := exec.Command("node", "--expose-gc", filepath.Join("testdata", "leaky.js"), dir)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("node: %v\n%s", err, out)
		}
		snaps, leaking = append(snaps, filepath.Join(dir, "final.heapsnapshot")), append(leaking, "RequestContext")
	}
	if len(snaps) == 0 {
		t.Skip("neither java nor node is installed")
	}
	for i, snap := range snaps {
		var top struct {
			Reachable int64 `json:"reachable_bytes"`
			Types     []struct {
				Type     string `json:"type"`
				Retained int64  `json:"retained_bytes"`
			} `json:"types"`
		}
		runJSON(t, &top, "top", "--json", "--top", "100000", snap)
		cum, total := pprofTop(t, snap, "")
		if total != top.Reachable {
			t.Errorf("%s: go tool pprof totals %d bytes, top says %d are reachable", snap, total, top.Reachable)
		}
		found := false
		for _, ty := range top.Types {
			if ty.Type == leaking[i] {
				found = true
				if cum[ty.Type] != ty.Retained {
					t.Errorf("%s: %s: go tool pprof cum %d bytes, top retained %d", snap, ty.Type, cum[ty.Type], ty.Retained)
				}
			}
		}
		if !found {
			t.Errorf("%s: top has no type %s", snap, leaking[i])
		}
	}
}
