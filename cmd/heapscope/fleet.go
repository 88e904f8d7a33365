package main

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/heapscope/heapscope/heap"
	"github.com/heapscope/heapscope/internal/fleet"
	"github.com/heapscope/heapscope/internal/report"
)

// setFlags are the flags of the commands that also read sets of
// snapshots of many processes (see package internal/fleet).
type setFlags struct {
	at         string
	perProcess bool
}

func (s *setFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&s.at, "at", "", "of a directory of snapshots series (run -o DIR's, or one per process), the time points to compare: their `NUMBERS` (2,5,9), oldest first")
	fs.BoolVar(&s.perProcess, "per-process", false, "after the report over many processes, each process's own")
}

// openSet returns the set of many processes' snapshots pos names, or nil
// when pos are snapshots (then --at and --per-process are misuse).
func (s *setFlags) openSet(cmd string, pos []string) (*fleet.Set, error) {
	set, err := fleet.Open(pos)
	if errors.Is(err, fleet.ErrNotSet) {
		if s.at != "" || s.perProcess {
			return nil, usagef("--at and --per-process are for directories of many processes' snapshots; %s was given snapshots", cmd)
		}
		return nil, nil
	}
	if err != nil {
		return nil, usagef("%v", err)
	}
	return set, nil
}

// times chooses the time points of set a command compares: --at, else
// def (indices into set.Times, given its number of time points), and
// checks there are want of them (0: at least 2).
func (s *setFlags) times(cmd string, set *fleet.Set, want int, def func(n int) []int) (*fleet.Set, error) {
	at := def(len(set.Times))
	if s.at != "" {
		var err error
		if at, err = set.ParseAt(s.at); err != nil {
			return nil, usagef("--at: %v", err)
		}
	}
	switch {
	case want > 0 && len(at) != want && (s.at != "" || len(set.Dirs) > 1 || len(set.Times) < want):
		roles := ""
		if want == 3 {
			roles = " (baseline, target, final)"
		}
		return nil, usagef("%s compares %d time points of each process%s; %s", cmd, want, roles, givenTimes(set, at, s.at != ""))
	case len(set.Times) < 2 || len(at) < 2:
		return nil, usagef("%s needs at least 2 time points of each process; %s", cmd, givenTimes(set, at, s.at != ""))
	}
	return set.Select(at), nil
}

// oneProcess returns, when set has a single process (a directory run
// -o wrote for one program), its snapshots at the time points cmd
// compares (see times), which the command then reads as if they were
// given one by one, for the report of one process; nil when set has
// several.
func (s *setFlags) oneProcess(cmd string, set *fleet.Set, want int, def func(n int) []int) ([]string, error) {
	if len(set.Processes) != 1 {
		return nil, nil
	}
	sel, err := s.times(cmd, set, want, def)
	if err != nil {
		return nil, err
	}
	return sel.Paths[0], nil
}

func givenTimes(set *fleet.Set, at []int, flag bool) string {
	if flag {
		return fmt.Sprintf("--at gives %d", len(at))
	}
	if len(set.Dirs) > 1 {
		return fmt.Sprintf("%d directories were given, one per time point", len(set.Dirs))
	}
	return fmt.Sprintf("%s has %d (%s)", set.Dirs[0], len(set.Times), strings.Join(set.Times, ", "))
}

// processSnapshots is one process's snapshots, loaded.
type processSnapshots struct {
	index int // in the set
	name  string
	gs    []*heap.Graph
	srcs  []report.Source
}

// setRead says how forEachProcess checks each process's snapshots.
type setRead struct {
	// mixed admits snapshots of different processes and out of time
	// order (--mixed).
	mixed bool
	// full, when not "", is the analysis that needs full snapshots
	// ("finding leaks"): a census is refused, and a process whose first
	// two snapshots are one is left out (see series.distinctStart).
	full string
}

// forEachProcess loads the snapshots of each process of set that has one
// at every time point, one process at a time (a set of many large heaps
// need not fit in memory at once), checks them, and calls fn. A process
// with a snapshot missing, one that cannot be read, or snapshots of
// different processes (a worker restarted under the same name) or out
// of time order (unless mixed) is left out, with why; so is none when
// they are all of one runtime. It returns what the report says it read.
func forEachProcess(cmd string, set *fleet.Set, a *analysisFlags, how setRead, stderr io.Writer, fn func(p processSnapshots) error) (report.FleetSource, error) {
	src := report.FleetSource{Dirs: set.Dirs, Noun: set.Noun, Times: set.Times}
	have, missing := set.Complete()
	for _, m := range missing {
		var at []string
		row := set.Paths[slices.Index(set.Processes, m)]
		for j, p := range row {
			if p == "" {
				at = append(at, set.Times[j])
			}
		}
		src.Left = append(src.Left, report.LeftOut{Process: m, Why: "no snapshot at " + strings.Join(at, ", ")})
	}
	var first *origin
	taken := make([][]time.Time, len(set.Times))
	var procs []string
	warned, read := 0, 0
	for _, i := range have {
		name := set.Processes[i]
		p := processSnapshots{index: len(procs), name: name}
		s := series{cmd: cmd, mixed: how.mixed}
		var why error
		for _, path := range set.Paths[i] {
			g, gsrc, err := loadQuiet(path, stderr, a.out.inflate)
			if err == nil {
				err = s.add(path, g)
			}
			if err == nil && len(g.Warnings()) > 0 {
				warned++
				if a.out.verbose {
					writeWarnings(stderr, path, g, true)
				}
			}
			if err != nil {
				why = err
				break
			}
			if how.full != "" {
				if err := needReferences(g, path, how.full); err != nil {
					return src, err
				}
				collectReaderGarbage(g)
			}
			o := s.origins[len(s.origins)-1]
			if first == nil {
				first = &o
			} else if err := sameRuntime(cmd, *first, o); err != nil {
				return src, err
			}
			p.gs, p.srcs = append(p.gs, g), append(p.srcs, gsrc)
			read++
		}
		if why == nil && how.full != "" {
			why = s.distinctStart()
		}
		if why == nil {
			why = s.inOrder()
		}
		if why != nil {
			src.Left = append(src.Left, report.LeftOut{Process: name, Why: why.Error()})
			continue
		}
		for j, o := range s.origins {
			if !o.time.IsZero() {
				taken[j] = append(taken[j], o.time)
			}
		}
		procs = append(procs, name)
		if err := fn(p); err != nil {
			return src, err
		}
	}
	if len(procs) == 0 {
		return src, fmt.Errorf("%s: no process has snapshots that can be compared (%s)", strings.Join(set.Dirs, " "), leftText(src.Left))
	}
	src.Processes = procs
	src.Runtime = first.runtime
	if warned > 0 && !a.out.verbose {
		fmt.Fprintf(stderr, "heapscope: %d of the %d snapshots read have warnings (-v lists them, each with what it means)\n", warned, read)
	}
	if w := alignment(set, taken); w != "" {
		fmt.Fprintln(stderr, "heapscope: warning: "+w)
	}
	return src, nil
}

func leftText(left []report.LeftOut) string {
	s := make([]string, len(left))
	for i, l := range left {
		s[i] = l.Process + ": " + l.Why
	}
	return strings.Join(s, "; ")
}

// alignment warns when the snapshots of one time point were taken
// further apart than half the time between time points: they may not be
// of one time (a rank that started late, a worker that lagged).
func alignment(set *fleet.Set, taken [][]time.Time) string {
	var spans []time.Duration
	var starts []time.Time
	for _, ts := range taken {
		if len(ts) == 0 {
			return ""
		}
		lo, hi := slices.MinFunc(ts, time.Time.Compare), slices.MaxFunc(ts, time.Time.Compare)
		spans = append(spans, hi.Sub(lo))
		starts = append(starts, lo)
	}
	for j := 1; j < len(starts); j++ {
		gap := starts[j].Sub(starts[j-1])
		for _, k := range []int{j - 1, j} {
			if spans[k] > gap/2 && spans[k] > time.Second {
				return fmt.Sprintf("the snapshots at %s were taken %s apart, more than half the %s between time points %s and %s: they may not be of one time",
					set.Times[k], spans[k].Round(time.Millisecond), gap.Round(time.Millisecond), set.Times[j-1], set.Times[j])
			}
		}
	}
	return ""
}

// processDetail renders one process's own report in format f for the
// detail after a report over many processes.
func processDetail(name string, render func(w io.Writer) error) (report.ProcessReport, error) {
	var b bytes.Buffer
	err := render(&b)
	return report.ProcessReport{Process: name, Output: b.Bytes()}, err
}
