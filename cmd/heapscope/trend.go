package main

import (
	"io"

	"github.com/heapscope/heapscope/analyze"
	"github.com/heapscope/heapscope/heap"
	"github.com/heapscope/heapscope/internal/report"
)

func runTrend(args []string, stdout, stderr io.Writer) error {
	a := newAnalysis("trend", "S1 S2 S3 ...", stderr, 20)
	mixed := a.fs.Bool(mixedFlag, false, mixedUsage)
	pos, f, err := a.parse(args, 2, -1)
	if err != nil {
		return err
	}
	var snaps []*heap.Graph
	var srcs []report.Source
	s := series{cmd: "trend", mixed: *mixed}
	for _, p := range pos {
		g, src, err := load(p, stderr, a.out.verbose, a.out.inflate)
		if err != nil {
			return err
		}
		if err := s.add(p, g); err != nil {
			return err
		}
		snaps = append(snaps, g)
		srcs = append(srcs, src)
	}
	if err := s.inOrder(); err != nil {
		return err
	}
	var rep analyze.TrendReport
	withProgress(stderr, "following types, paths and collections", func() error {
		rep = analyze.TrendAll(snaps)
		return nil
	})
	return report.Trend(a.fit(stdout), f, srcs, rep, cut(rep.Types, a.out.top))
}
