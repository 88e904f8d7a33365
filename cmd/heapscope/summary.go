package main

import (
	"io"

	"github.com/heapscope/heapscope/analyze"
	"github.com/heapscope/heapscope/internal/report"
)

func runSummary(args []string, stdout, stderr io.Writer) error {
	fs := flagSet("summary", "SNAPSHOT", stderr)
	var out outputFlags
	out.register(fs, 20)
	pos, err := parse(fs, args, 1, 1)
	if err != nil {
		return err
	}
	f, err := out.resolve()
	if err != nil {
		return err
	}
	g, src, err := load(pos[0], stderr, out.verbose)
	if err != nil {
		return err
	}
	rows := analyze.Summary(g)
	return report.Summary(stdout, f, src, cut(rows, out.top), len(rows))
}
