package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// fleetRow is a row of a report over many processes, as JSON gives it.
type fleetRow struct {
	Type    string   `json:"type"`
	Path    string   `json:"path"`
	Finding string   `json:"finding"`
	Class   string   `json:"class"`
	On      []string `json:"on"`
	Count   struct {
		Median int64 `json:"median"`
	} `json:"count"`
	Bytes struct {
		Median int64 `json:"median"`
		Max    int64 `json:"max"`
	} `json:"bytes"`
}

// fleetSections runs heapscope with args (a report over many processes,
// --json) and returns its rows by section title, then by key.
func fleetSections(t *testing.T, args ...string) map[string]map[string]fleetRow {
	t.Helper()
	var rep struct {
		Set struct {
			Processes []string `json:"processes"`
			Left      []struct {
				Process, Why string
			} `json:"left_out"`
		} `json:"set"`
		Sections []struct {
			Title string     `json:"title"`
			Rows  []fleetRow `json:"rows"`
		} `json:"sections"`
	}
	runJSON(t, &rep, append(args, "--json")...)
	if len(rep.Set.Left) > 0 {
		t.Errorf("heapscope %s left processes out: %+v", strings.Join(args, " "), rep.Set.Left)
	}
	out := map[string]map[string]fleetRow{}
	for _, s := range rep.Sections {
		out[s.Title] = map[string]fleetRow{}
		for _, r := range s.Rows {
			out[s.Title][r.Type+r.Path+r.Finding] = r
		}
	}
	return out
}

// wantOn checks that section's row key has class on exactly procs.
func wantOn(t *testing.T, what string, rows map[string]fleetRow, key, class string, procs ...string) {
	t.Helper()
	r, ok := rows[key]
	if !ok {
		t.Errorf("%s: no row %q", what, key)
		return
	}
	if r.Class != class || strings.Join(r.On, ",") != strings.Join(procs, ",") {
		t.Errorf("%s: %s is %s on %v, want %s on %v", what, key, r.Class, r.On, class, procs)
	}
}

// wantLeaks checks leaks over dir, a set of the snapshots of procs: the
// finding every grows on all of them, 200 objects that retain over 200
// kB (a 1000-byte bytearray each) on each, one step's (the
// three-snapshot rule counts what was new in target and is still alive
// in final); the finding one grows on proc one only, 50 objects; and
// no other finding retains more than other bytes on a process, save
// those bounded on every process (a deque with a maxlen: leaks calls
// them no leak).
func wantLeaks(t *testing.T, dir, every string, procs []string, one, proc string, other int64) {
	t.Helper()
	leaks := fleetSections(t, "leaks", dir)["Findings"]
	wantOn(t, "leaks", leaks, every, "grows", procs...)
	wantOn(t, "leaks", leaks, one, "grows", proc)
	if r := leaks[every]; r.Count.Median != 200 || r.Bytes.Median < 200*1000 {
		t.Errorf("leaks: %s: %d objects retaining %d bytes on a process's median, want 200 retaining over 200 kB", every, r.Count.Median, r.Bytes.Median)
	}
	if r := leaks[one]; r.Count.Median != 50 {
		t.Errorf("leaks: %s: %d objects on %s, want 50", one, r.Count.Median, proc)
	}
	for key, r := range leaks {
		if r.Class == "bounded" {
			continue
		}
		if key != every && key != one && r.Bytes.Max > other {
			t.Errorf("leaks finds %s (%s on %v, up to %d bytes), which the program does not keep", key, r.Class, r.On, r.Bytes.Max)
		}
	}
}

// TestMPI runs testdata/mpileak.py as 2 ranks of a real Open MPI job on
// loopback, each under heapscope run: each rank's snapshots land under
// its own rank-N directory, named by its own pid, none clashing; trend
// diff and leaks over the directory say that the request contexts grow
// on both ranks and the cache only on the last, and leaks finds nothing
// else: no object of the agent's is in the snapshots run takes.
func TestMPI(t *testing.T) {
	mpirun, err := exec.LookPath("mpirun")
	if err != nil {
		t.Skip("mpirun is not installed (Debian: openmpi-bin)")
	}
	if err := exec.Command("/usr/bin/python3", "-c", "import mpi4py").Run(); err != nil {
		t.Skip("Debian's python3 has no mpi4py (Debian: python3-mpi4py)")
	}
	bin := heapscopeBinary(t)
	dir := filepath.Join(t.TempDir(), "snaps")
	args := []string{"--oversubscribe", "--mca", "btl", "self,tcp", "--mca", "btl_tcp_if_include", "lo", "--mca", "oob_tcp_if_include", "lo"}
	if os.Geteuid() == 0 {
		args = append(args, "--allow-run-as-root")
	}
	args = append(args, "-n", "2", bin, "run", "-o", dir, "--signal", "SIGUSR2", "--",
		"/usr/bin/python3", filepath.Join("testdata", "mpileak.py"), "3")
	cmd := exec.Command(mpirun, args...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("mpirun: %v\n%s\n%s", err, out, stderr.String())
	}
	// mpirun passes on the ranks' output as it comes: two lines may
	// arrive run together.
	pids := map[int]int{}
	dec := json.NewDecoder(bytes.NewReader(out))
	for {
		var r struct{ Rank, Size, Pid int }
		if dec.Decode(&r) != nil {
			break
		}
		if r.Size == 2 {
			pids[r.Rank] = r.Pid
		}
	}
	if len(pids) != 2 {
		t.Fatalf("the ranks did not both finish:\n%s\n%s", out, stderr.String())
	}
	entries, _ := os.ReadDir(dir)
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	if strings.Join(names, " ") != "rank-0 rank-1" {
		t.Errorf("%s holds %v, want rank-0 and rank-1 only", dir, names)
	}
	for rank, pid := range pids {
		files, _ := filepath.Glob(filepath.Join(dir, fmt.Sprintf("rank-%d", rank), "*"))
		for i, f := range files {
			want := fmt.Sprintf("%04d-%d-signal.pysnap", i+1, pid)
			if filepath.Base(f) != want {
				t.Errorf("rank %d wrote %s, want %s", rank, filepath.Base(f), want)
			}
		}
		if len(files) != 3 {
			t.Errorf("rank %d wrote %d snapshots, want 3: %v\n%s", rank, len(files), files, stderr.String())
		}
	}
	if t.Failed() {
		return
	}
	trend := fleetSections(t, "trend", dir)
	wantOn(t, "trend types", trend["Types"], "__main__.RequestContext", "steady", "rank-0", "rank-1")
	wantOn(t, "trend types", trend["Types"], "__main__.RankCacheEntry", "steady", "rank-1")
	paths := trend["Paths that grew in every snapshot"]
	wantOn(t, "trend paths", paths, "module __main__ -> .contexts list -> [*] __main__.RequestContext", "steady", "rank-0", "rank-1")
	wantOn(t, "trend paths", paths, "module __main__ -> .cache dict -> [*] __main__.RankCacheEntry", "steady", "rank-1")
	if r := trend["Types"]["__main__.RequestContext"]; r.Count.Median != 400 {
		t.Errorf("RequestContext grew by %d on a rank's median, want 400 (200 per step, 2 steps)", r.Count.Median)
	}
	diff := fleetSections(t, "diff", dir)
	wantOn(t, "diff", diff["Types"], "__main__.RequestContext", "grew", "rank-0", "rank-1")
	wantOn(t, "diff", diff["Types"], "__main__.RankCacheEntry", "grew", "rank-1")
	// run takes a signal's snapshot in a forked child: what else leaks
	// finds is what the capture leaves (a list of 168 bytes held outside
	// the heap, on every rank). The function the program called when the
	// child ended was 5.9 kB.
	wantLeaks(t, dir, "__main__.RequestContext in list at module __main__.contexts", []string{"rank-0", "rank-1"},
		"__main__.RankCacheEntry in dict at module __main__.cache", "rank-1", 1<<10)
}
