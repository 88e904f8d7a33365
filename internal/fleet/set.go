// Package fleet finds the snapshots of many processes (the workers of a
// Dask cluster, the ranks of an MPI job, the replicas of a service) in
// the directories heapscope writes them to, and matches them by process
// and by time, so that trend, diff and leaks can follow every process and
// say on how many of them a type grows.
//
// Two layouts are read:
//
//   - series: one directory with a subdirectory per process (rank-3,
//     worker-0), each holding that process's snapshots, numbered in the
//     order they were taken (NNNN-PID-REASON.pysnap, as run and snapshot
//     --dask name them). Snapshots with the same number are taken to be
//     of one time: the Nth interval snapshot of every rank, the Nth
//     capture of every worker. A directory with no subdirectory that
//     holds such snapshots (run -o DIR) is a series too, a process per
//     PID in their names (pid-4242): usually one, the program's, and
//     its child processes' with run --children.
//   - time points: several directories, one per time, each holding one
//     snapshot per process named by the process (worker-0.pysnap); the
//     same name is the same process.
//
// The package only lists and matches files; it reads none.
package fleet

import (
	"cmp"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
)

// Set is the snapshots of several processes at several times.
type Set struct {
	// Dirs are the directories the set was read from.
	Dirs []string
	// Noun is what the processes are: "rank", "worker" or "process".
	Noun string
	// Processes are the processes' names (their subdirectory or file
	// name: rank-3, worker-0), in natural order (rank-2 before rank-10).
	Processes []string
	// Times name the time points, oldest first: the snapshots' numbers
	// (0001) in a series, the directories' names at time points.
	Times []string
	// Paths holds the snapshot of each process at each time,
	// [process][time]; "" where the process has none.
	Paths [][]string
}

// snapshotExts are the file names snapshots are read from.
var snapshotExts = []string{".pysnap", ".hprof", ".hprof.gz", ".heapsnapshot", ".heapsnapshot.gz"}

// IsSnapshotName reports whether a file name is a snapshot's: one of
// heapscope's extensions, not hidden (a capture's temporary file).
func IsSnapshotName(name string) bool {
	if strings.HasPrefix(name, ".") {
		return false
	}
	return stem(name) != name
}

// stem is name without its snapshot extension.
func stem(name string) string {
	for _, ext := range snapshotExts {
		if s, ok := strings.CutSuffix(name, ext); ok && s != "" {
			return s
		}
	}
	return name
}

// ErrNotSet is returned by [Open] for arguments that are not
// directories: the caller reads them as single snapshots.
var ErrNotSet = errors.New("not a set of snapshots")

// Open reads the set that dirs hold: one directory of per-process
// series, or several directories of one time each. It returns
// ErrNotSet when no argument is a directory, and an error that says
// what is wrong when some are and the layout is neither.
func Open(dirs []string) (*Set, error) {
	isDir := 0
	for _, d := range dirs {
		if st, err := os.Stat(d); err == nil && st.IsDir() {
			isDir++
		}
	}
	switch {
	case isDir == 0:
		return nil, ErrNotSet
	case isDir < len(dirs):
		return nil, fmt.Errorf("give either snapshots or directories of snapshots of many processes, not both")
	case len(dirs) == 1:
		return openSeries(dirs[0])
	}
	return openTimes(dirs)
}

// openSeries reads a directory with a subdirectory per process.
func openSeries(dir string) (*Set, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	s := &Set{Dirs: []string{dir}}
	byProc := map[string]map[string]string{} // process -> number -> path in dir
	times := map[string]bool{}
	var loose []string
	for _, e := range entries {
		if !e.IsDir() {
			if IsSnapshotName(e.Name()) {
				loose = append(loose, e.Name())
			}
			continue
		}
		if strings.HasPrefix(e.Name(), ".") {
			continue
		}
		files, err := os.ReadDir(filepath.Join(dir, e.Name()))
		if err != nil {
			return nil, err
		}
		series := map[string]string{}
		for _, f := range files {
			if f.IsDir() || !IsSnapshotName(f.Name()) {
				continue
			}
			n, ok := seqNumber(f.Name())
			if !ok {
				return nil, fmt.Errorf("%s: %s is not named as heapscope numbers snapshots (NNNN-PID-REASON), so it cannot be matched with the other processes' snapshots by time",
					dir, filepath.Join(e.Name(), f.Name()))
			}
			if prev, dup := series[n]; dup {
				return nil, fmt.Errorf("%s: %s and %s have the same number", dir, filepath.Join(e.Name(), prev), filepath.Join(e.Name(), f.Name()))
			}
			series[n] = filepath.Join(e.Name(), f.Name())
			times[n] = true
		}
		if len(series) > 0 {
			byProc[e.Name()] = series
		}
	}
	if len(byProc) == 0 && len(loose) > 0 {
		if err := byPID(dir, loose, byProc, times); err != nil {
			return nil, err
		}
	}
	if len(byProc) == 0 {
		return nil, fmt.Errorf("%s holds no directory of snapshots (one per process: rank-0/, worker-1/, ...)", dir)
	}
	for p := range byProc {
		s.Processes = append(s.Processes, p)
	}
	slices.SortFunc(s.Processes, naturalCompare)
	for t := range times {
		s.Times = append(s.Times, t)
	}
	slices.SortFunc(s.Times, naturalCompare)
	s.Paths = make([][]string, len(s.Processes))
	for i, p := range s.Processes {
		s.Paths[i] = make([]string, len(s.Times))
		for j, t := range s.Times {
			if f, ok := byProc[p][t]; ok {
				s.Paths[i][j] = filepath.Join(dir, f)
			}
		}
	}
	s.Noun = nounOf(s.Processes)
	return s, nil
}

// byPID files the snapshots names of dir (no subdirectory) under a
// process per PID (pid-4242), by their numbers, as run -o DIR names
// them (NNNN-PID-REASON).
func byPID(dir string, names []string, byProc map[string]map[string]string, times map[string]bool) error {
	for _, name := range names {
		n, ok := seqNumber(name)
		_, rest, _ := strings.Cut(name, "-")
		pid, _, _ := strings.Cut(rest, "-")
		if !ok || !allDigits(pid) {
			return fmt.Errorf("%s holds snapshots but no directory per process, and %s is not named as run names them (NNNN-PID-REASON): to follow one process, give its snapshots; for many processes at one time each, give one directory per time", dir, name)
		}
		p := "pid-" + pid
		if byProc[p] == nil {
			byProc[p] = map[string]string{}
		}
		if prev, dup := byProc[p][n]; dup {
			return fmt.Errorf("%s: %s and %s have the same number", dir, prev, name)
		}
		byProc[p][n] = name
		times[n] = true
	}
	return nil
}

// allDigits reports whether s is a decimal number.
func allDigits(s string) bool {
	return s != "" && digits(s) == len(s)
}

// openTimes reads directories of one time each, in the order given.
func openTimes(dirs []string) (*Set, error) {
	s := &Set{Dirs: dirs}
	byProc := map[string][]string{}
	for j, dir := range dirs {
		entries, err := os.ReadDir(dir)
		if err != nil {
			return nil, err
		}
		n := 0
		for _, e := range entries {
			if e.IsDir() || !IsSnapshotName(e.Name()) {
				continue
			}
			p := stem(e.Name())
			if byProc[p] == nil {
				byProc[p] = make([]string, len(dirs))
			}
			if byProc[p][j] != "" {
				return nil, fmt.Errorf("%s has two snapshots of %s: %s and %s", dir, p, filepath.Base(byProc[p][j]), e.Name())
			}
			byProc[p][j] = filepath.Join(dir, e.Name())
			n++
		}
		if n == 0 {
			return nil, fmt.Errorf("%s holds no snapshot (one per process, named by the process: worker-0.pysnap, ...)", dir)
		}
		s.Times = append(s.Times, filepath.Base(filepath.Clean(dir)))
	}
	for p := range byProc {
		s.Processes = append(s.Processes, p)
	}
	slices.SortFunc(s.Processes, naturalCompare)
	for _, p := range s.Processes {
		s.Paths = append(s.Paths, byProc[p])
	}
	s.Noun = nounOf(s.Processes)
	return s, nil
}

// seqNumber returns the number a snapshot's name starts with, as
// written (NNNN-...), or false.
func seqNumber(name string) (string, bool) {
	n, _, ok := strings.Cut(name, "-")
	return n, ok && allDigits(n)
}

// nounOf names the kind of processes names are: "rank" when every one
// is rank-N, "worker" when every one is worker-..., else "process".
func nounOf(names []string) string {
	for _, noun := range []string{"rank", "worker"} {
		all := true
		for _, n := range names {
			all = all && strings.HasPrefix(n, noun+"-")
		}
		if all {
			return noun
		}
	}
	return "process"
}

// naturalCompare orders names with their runs of digits compared as
// numbers: rank-2 before rank-10.
func naturalCompare(a, b string) int {
	for a != "" && b != "" {
		da, db := digits(a), digits(b)
		if da > 0 && db > 0 {
			na, _ := strconv.ParseUint(a[:min(da, 19)], 10, 64)
			nb, _ := strconv.ParseUint(b[:min(db, 19)], 10, 64)
			if c := cmp.Compare(na, nb); c != 0 {
				return c
			}
			a, b = a[da:], b[db:]
			continue
		}
		if a[0] != b[0] {
			return cmp.Compare(a[0], b[0])
		}
		a, b = a[1:], b[1:]
	}
	return cmp.Compare(len(a), len(b))
}

func digits(s string) int {
	n := 0
	for n < len(s) && s[n] >= '0' && s[n] <= '9' {
		n++
	}
	return n
}

// Select returns the set at the time points at (indices into s.Times,
// in order).
func (s *Set) Select(at []int) *Set {
	out := *s
	out.Times = make([]string, len(at))
	out.Paths = make([][]string, len(s.Paths))
	for j, t := range at {
		out.Times[j] = s.Times[t]
	}
	for i, row := range s.Paths {
		out.Paths[i] = make([]string, len(at))
		for j, t := range at {
			out.Paths[i][j] = row[t]
		}
	}
	return &out
}

// Complete returns the indices of the processes that have a snapshot at
// every time point, and the names of the others.
func (s *Set) Complete() (have []int, missing []string) {
	for i, row := range s.Paths {
		if slices.Contains(row, "") {
			missing = append(missing, s.Processes[i])
			continue
		}
		have = append(have, i)
	}
	return have, missing
}

// ParseAt reads --at: time points by their names in s.Times ("2,5,9" or
// "0002,0005,0009"; a name's leading zeros may be left out), in the
// order given, which must be the order they were taken in.
func (s *Set) ParseAt(text string) ([]int, error) {
	var at []int
	for _, f := range strings.Split(text, ",") {
		f = strings.TrimSpace(f)
		k := slices.IndexFunc(s.Times, func(t string) bool {
			return t == f || strings.TrimLeft(t, "0") == strings.TrimLeft(f, "0") && f != ""
		})
		if k < 0 {
			return nil, fmt.Errorf("no time point %q (the set has %s)", f, strings.Join(s.Times, ", "))
		}
		if len(at) > 0 && k <= at[len(at)-1] {
			return nil, fmt.Errorf("time points must be given oldest first, each once: %s", text)
		}
		at = append(at, k)
	}
	return at, nil
}
