package main

import (
	"fmt"
	"io"

	"github.com/heapscope/heapscope/analyze"
	"github.com/heapscope/heapscope/internal/report"
)

func runDiff(args []string, stdout, stderr io.Writer) error {
	a := newAnalysis("diff", "BEFORE AFTER", stderr, 20)
	pos, f, err := a.parse(args, 2, 2)
	if err != nil {
		return err
	}
	before, bsrc, err := load(pos[0], stderr, a.out.verbose, a.out.inflate)
	if err != nil {
		return err
	}
	after, asrc, err := load(pos[1], stderr, a.out.verbose, a.out.inflate)
	if err != nil {
		return err
	}
	bo, ao := originOf(pos[0], before), originOf(pos[1], after)
	if err := sameRuntime("diff", bo, ao); err != nil {
		return err
	}
	if w := diffWarning(bo, ao); w != "" {
		fmt.Fprintln(stderr, "heapscope: "+w)
	}
	// V8 node ids are stable within one process: compare identities too.
	opt := analyze.DiffOptions{Identity: before.Meta().Runtime == "v8" && after.Meta().Runtime == "v8"}
	rows := analyze.Diff(before, after, opt)
	return report.Diff(a.fit(stdout), f, bsrc, asrc, cut(rows, a.out.top), len(rows))
}
