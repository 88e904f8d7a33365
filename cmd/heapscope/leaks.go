package main

import (
	"io"

	"github.com/heapscope/heapscope/analyze"
	"github.com/heapscope/heapscope/heap"
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
		g, src, err := load(p, stderr, verbose, inflate)
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
	if len(pos) != 3 {
		return usagef("leaks takes 3 arguments (baseline, target, final), got %d", len(pos))
	}
	gs, srcs, err := loadThree("leaks", pos, stderr, a.out.verbose, *mixed, a.out.inflate)
	if err != nil {
		return err
	}
	var rep analyze.LeakReport
	err = withProgress(stderr, "finding leaks", func() error {
		rep = analyze.Leaks(gs[0], gs[1], gs[2], analyze.LeakOptions{Noise: cfg.noiseRules(), KeepNoise: *all, Scaling: *scaling})
		return nil
	})
	if err != nil {
		return err
	}
	return report.Leaks(a.fit(stdout), f, srcs, gs[2], rep, cut(rep.Findings, a.out.top))
}
