package main

import (
	"io"

	"github.com/heapscope/heapscope/analyze"
	"github.com/heapscope/heapscope/heap"
	"github.com/heapscope/heapscope/internal/fleet"
	"github.com/heapscope/heapscope/internal/report"
)

// loadThree reads the baseline, target and final snapshots for cmd
// (leaks or check), refusing snapshots of different runtimes, and,
// unless mixed, of different processes or out of time order.
func loadThree(cmd string, pos []string, stderr io.Writer, verbose, mixed bool, inflate inflateFlag) ([3]*heap.Graph, []report.Source, error) {
	var gs [3]*heap.Graph
	var srcs []report.Source
	s := series{cmd: cmd, mixed: mixed}
	for i, p := range pos {
		g, src, err := loadNth(p, i+1, len(pos), stderr, verbose, inflate)
		if err != nil {
			return gs, nil, err
		}
		if err := s.add(p, g); err != nil {
			return gs, nil, err
		}
		if err := needReferences(g, p, "finding leaks"); err != nil {
			return gs, nil, err
		}
		collectReaderGarbage(g)
		gs[i] = g
		srcs = append(srcs, src)
	}
	if err := s.distinctStart(); err != nil {
		return gs, nil, err
	}
	return gs, srcs, s.inOrder()
}

func runLeaks(args []string, stdout, stderr io.Writer) error {
	a := newAnalysis("leaks", "BASELINE TARGET FINAL", stderr, 10)
	all := a.fs.Bool("all", false, "also show findings that match the known-noise catalogue, marked")
	suppress := a.fs.String("suppress", "", "JSON `file` of extra noise rules (and disable_noise) to apply")
	listNoise := a.fs.Bool("list-noise", false, "list the noise rules in force and exit")
	scaling := a.fs.Bool("scaling", false, "keep only findings that grew in proportion from baseline to target to final (snapshots after equal work)")
	mixed := a.fs.Bool(mixedFlag, false, mixedUsage)
	var sf setFlags
	sf.register(a.fs)
	pos, f, err := a.parse(args, 0, 3)
	if err != nil {
		return err
	}
	cfg, err := readConfig(*suppress)
	if err != nil {
		return err
	}
	if *listNoise {
		return report.Noise(stdout, f, cfg.noiseRules())
	}
	opts := analyze.LeakOptions{Noise: cfg.noiseRules(), KeepNoise: *all, Scaling: *scaling}
	set, err := sf.openSet("leaks", pos)
	if err != nil {
		return err
	}
	if set != nil {
		// One process's series: its last three snapshots (--at others),
		// where warm-up is over and run's watch of growth has sites.
		if pos, err = sf.oneProcess("leaks", set, 3, lastThree); err != nil {
			return err
		}
		if pos == nil {
			return leaksSet(a, set, sf, opts, *mixed, f, stdout, stderr)
		}
	}
	if len(pos) != 3 {
		return usagef("leaks takes 3 arguments (baseline, target, final), or directories of many processes' snapshots, got %d", len(pos))
	}
	gs, srcs, err := loadThree("leaks", pos, stderr, a.out.verbose, *mixed, a.out.inflate)
	if err != nil {
		return err
	}
	rep := findLeaks(gs[:], opts, stderr, "finding leaks")
	return report.Leaks(a.fit(stdout), f, srcs, gs[2], rep, cut(rep.Findings, a.out.top))
}

// lastThree picks the last three of n time points (all when fewer).
func lastThree(n int) []int {
	return allTimes(n)[max(n-3, 0):]
}

// findLeaks applies the three-snapshot rule to gs, saying so on a
// terminal while it does.
func findLeaks(gs []*heap.Graph, opts analyze.LeakOptions, stderr io.Writer, doing string) analyze.LeakReport {
	var rep analyze.LeakReport
	withProgress(stderr, doing, func() error {
		rep = analyze.Leaks(gs[0], gs[1], gs[2], opts)
		return nil
	})
	return rep
}

// leaksSet applies the three-snapshot rule to each process of a set
// (baseline, target and final: the first, middle and last time points,
// or --at) and aggregates the findings by what they are and where (see
// [report.FindingKey]): a leak in code every process runs is one row on
// all of them, apart from one on a single process. A row's verdict is
// the most alarming one a process gives it (grows, bounded, stopped),
// with the objects and retained bytes of the finding on each of those
// processes (the objects of the kind the row names: a leaked dict's
// entries, not its keys besides).
func leaksSet(a *analysisFlags, set *fleet.Set, sf setFlags, opts analyze.LeakOptions, mixed bool, f report.Format, stdout, stderr io.Writer) error {
	if f == report.HTML {
		return usagef("--format html is for one process; for many, leaks writes text, json or markdown")
	}
	set, err := sf.times("leaks", set, 3, func(n int) []int {
		if n < 3 {
			return allTimes(n)
		}
		return []int{0, (n - 1) / 2, n - 1}
	})
	if err != nil {
		return err
	}
	var vals []analyze.ProcessValue
	var detail []report.ProcessReport
	src, err := forEachProcess("leaks", set, a, setRead{mixed: mixed, full: "finding leaks"}, stderr, func(p processSnapshots) error {
		rep := findLeaks(p.gs, opts, stderr, "finding leaks of "+p.name)
		for _, x := range rep.Findings {
			_, n := report.FindingMain(x)
			vals = append(vals, analyze.ProcessValue{Key: report.FindingKey(x), Process: p.index, Class: string(x.Verdict),
				Count: int64(n), Bytes: int64(x.Retained)})
		}
		if sf.perProcess {
			d, err := processDetail(p.name, func(w io.Writer) error {
				return report.Leaks(report.WithWidth(w, a.out.lineWidth(stdout)), f, p.srcs, p.gs[2], rep, cut(rep.Findings, a.out.top))
			})
			detail = append(detail, d)
			return err
		}
		return nil
	})
	if err != nil {
		return err
	}
	rows := analyze.Aggregate(vals, analyze.VerdictRank)
	s := fleetSection("Findings", "finding", "retained", rows, a.out.top, "no leak found")
	s.Held, s.ClassTitle = true, "verdict"
	return report.Fleet(a.fit(stdout), f, src, []report.FleetSection{s}, detail)
}
