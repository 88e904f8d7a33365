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
	g, src, err := load(pos[0], stderr, a.out.verbose, a.out.inflate)
	if err != nil {
		return err
	}
	rows := analyze.Summary(g)
	return report.Summary(a.fit(stdout), f, src, cut(rows, a.out.top), len(rows))
}
