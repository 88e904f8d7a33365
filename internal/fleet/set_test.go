package fleet

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// files makes each of names (paths under dir, "/" separated) as an
// empty file, and its directories.
func files(t *testing.T, dir string, names ...string) {
	t.Helper()
	for _, n := range names {
		p := filepath.Join(dir, filepath.FromSlash(n))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// TestOpenSeries reads a directory per process: processes in natural
// order (rank-2 before rank-10), time points by number, a missing
// capture as "", hidden and foreign files ignored.
func TestOpenSeries(t *testing.T) {
	dir := t.TempDir()
	files(t, dir,
		"rank-10/0001-7-signal.pysnap", "rank-10/0002-7-signal.pysnap",
		"rank-2/0001-5-signal.pysnap", "rank-2/0002-5-signal.pysnap", "rank-2/0003-5-signal.pysnap",
		"rank-2/.0004-5-signal.pysnap.tmp", "rank-2/notes.txt", ".hidden/0001-1-x.pysnap", "empty/README")
	s, err := Open([]string{dir})
	if err != nil {
		t.Fatal(err)
	}
	if s.Noun != "rank" || !slices.Equal(s.Processes, []string{"rank-2", "rank-10"}) || !slices.Equal(s.Times, []string{"0001", "0002", "0003"}) {
		t.Fatalf("set %+v, want ranks rank-2, rank-10 at 0001-0003", s)
	}
	if s.Paths[1][2] != "" || s.Paths[0][2] != filepath.Join(dir, "rank-2", "0003-5-signal.pysnap") {
		t.Errorf("paths %v", s.Paths)
	}
	have, missing := s.Complete()
	if !slices.Equal(have, []int{0}) || !slices.Equal(missing, []string{"rank-10"}) {
		t.Errorf("Complete: %v, %v; want rank-2 complete and rank-10 missing", have, missing)
	}
	sel := s.Select([]int{0, 1})
	if have, _ := sel.Complete(); len(have) != 2 || sel.Times[1] != "0002" {
		t.Errorf("Select(0, 1): %+v, want both ranks complete", sel)
	}
	at, err := s.ParseAt("1,0003")
	if err != nil || !slices.Equal(at, []int{0, 2}) {
		t.Errorf("ParseAt(1,0003) = %v, %v", at, err)
	}
	for _, bad := range []string{"3,1", "1,1", "4", "", "x"} {
		if _, err := s.ParseAt(bad); err == nil {
			t.Errorf("ParseAt(%q) took it", bad)
		}
	}
}

// TestOpenTimes reads one directory per time point, the processes by
// file name.
func TestOpenTimes(t *testing.T) {
	dir := t.TempDir()
	files(t, dir, "t1/worker-0.pysnap", "t1/worker-1.hprof.gz", "t2/worker-0.pysnap", "t2/worker-1.hprof.gz", "t2/worker-2.pysnap")
	s, err := Open([]string{filepath.Join(dir, "t1"), filepath.Join(dir, "t2")})
	if err != nil {
		t.Fatal(err)
	}
	if s.Noun != "worker" || !slices.Equal(s.Processes, []string{"worker-0", "worker-1", "worker-2"}) || !slices.Equal(s.Times, []string{"t1", "t2"}) {
		t.Fatalf("set %+v", s)
	}
	if _, missing := s.Complete(); !slices.Equal(missing, []string{"worker-2"}) {
		t.Errorf("missing %v, want worker-2", missing)
	}
}

// TestOpenErrors: what is neither layout is refused, saying why.
func TestOpenErrors(t *testing.T) {
	dir := t.TempDir()
	files(t, dir,
		"loose/0001-1-x.pysnap", "loose/app.pysnap",
		"looseTwice/0001-7-signal.pysnap", "looseTwice/0001-7-exit.pysnap",
		"unnumbered/rank-0/app.pysnap",
		"twice/rank-0/0001-1-a.pysnap", "twice/rank-0/0001-1-b.pysnap",
		"dup/worker-0.pysnap", "dup/worker-0.hprof",
		"nothing/rank-0/README", "empty/a.txt")
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"loose"}, "app.pysnap is not named as run names them"},
		{[]string{"looseTwice"}, "have the same number"},
		{[]string{"unnumbered"}, "is not named as heapscope numbers snapshots"},
		{[]string{"twice"}, "have the same number"},
		{[]string{"dup", "looseTwice"}, "has two snapshots of worker-0"},
		{[]string{"nothing"}, "holds no directory of snapshots"},
		{[]string{"empty", "loose"}, "holds no snapshot"},
		{[]string{"loose", "loose/0001-1-x.pysnap"}, "not both"},
		{[]string{"empty", "looseTwice"}, "holds no snapshot"},
	} {
		var args []string
		for _, a := range tc.args {
			args = append(args, filepath.Join(dir, a))
		}
		_, err := Open(args)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Open(%v): %v, want an error that says %q", tc.args, err, tc.want)
		}
	}
	if _, err := Open([]string{filepath.Join(dir, "loose/0001-1-x.pysnap")}); !errors.Is(err, ErrNotSet) {
		t.Errorf("Open(a snapshot): %v, want ErrNotSet", err)
	}
}

func TestNaturalCompare(t *testing.T) {
	names := []string{"rank-10", "rank-2", "rank-1", "worker-b", "worker-a", "rank-02", "rank-99999999999999999999999"}
	slices.SortStableFunc(names, naturalCompare)
	want := []string{"rank-1", "rank-2", "rank-02", "rank-10", "rank-99999999999999999999999", "worker-a", "worker-b"}
	if !slices.Equal(names, want) {
		t.Errorf("sorted %v, want %v", names, want)
	}
}

// TestOpenRunDir: a directory of snapshots as run -o DIR writes them,
// with no subdirectory, is a series of a process per PID in their
// names: the program's, and its children's with run --children, whose
// numbers start again at 1.
func TestOpenRunDir(t *testing.T) {
	dir := t.TempDir()
	files(t, dir, "0001-4242-interval.pysnap", "0002-4242-signal.pysnap", "0003-4242-exit.pysnap",
		"0001-977-exit.pysnap", ".0004-4242-interval.pysnap.tmp", "notes.txt")
	s, err := Open([]string{dir})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(s.Processes, []string{"pid-977", "pid-4242"}) || !slices.Equal(s.Times, []string{"0001", "0002", "0003"}) || s.Noun != "process" {
		t.Fatalf("processes %v, times %v, noun %q; want pid-977 and pid-4242 at 0001-0003, process", s.Processes, s.Times, s.Noun)
	}
	want := [][]string{{filepath.Join(dir, "0001-977-exit.pysnap"), "", ""}, {filepath.Join(dir, "0001-4242-interval.pysnap"),
		filepath.Join(dir, "0002-4242-signal.pysnap"), filepath.Join(dir, "0003-4242-exit.pysnap")}}
	for i := range want {
		if !slices.Equal(s.Paths[i], want[i]) {
			t.Errorf("%s: %v, want %v", s.Processes[i], s.Paths[i], want[i])
		}
	}
}
