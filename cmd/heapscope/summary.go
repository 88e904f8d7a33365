package main

import (
	"io"

	"github.com/heapscope/heapscope/analyze"
	"github.com/heapscope/heapscope/internal/report"
)

func runSummary(args []string, stdout, stderr io.Writer) error {
	a := newAnalysis("summary", "SNAPSHOT", stderr, 20)
	pos, f, err := a.parse(args, 1, 1)
	if err != nil {
		return err
	}
	if f == report.Pprof {
		if err := binaryOut(stdout); err != nil {
			return err
		}
	}
	g, src, err := load(pos[0], stderr, a.out.verbose, a.out.inflate)
	if err != nil {
		return err
	}
	rows := analyze.Summary(g)
	if f == report.Pprof {
		return report.PprofSummary(stdout, src, originOf(pos[0], g).time, cut(rows, a.out.top))
	}
	return report.Summary(a.fit(stdout), f, src, cut(rows, a.out.top), len(rows))
}
