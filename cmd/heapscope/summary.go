package main

import (
	"io"

	"github.com/heapscope/heapscope/analyze"
	"github.com/heapscope/heapscope/heap"
	"github.com/heapscope/heapscope/internal/report"
)

func runSummary(args []string, stdout, stderr io.Writer) error {
	a := newAnalysis("summary", "SNAPSHOT [SELECTOR]", stderr, 20)
	retained := a.fs.Bool("retained", false, "also each type's retained size, its share of the heap and its nearest object's distance from the roots, as DevTools' Summary shows them (computes the dominator tree)")
	pos, f, err := a.parse(args, 1, 2)
	if err != nil {
		return err
	}
	var sel analyze.Selector
	if len(pos) == 2 {
		if sel, err = analyze.ParseSelector(pos[1]); err != nil {
			return usagef("%v", err)
		}
	}
	if f == report.Pprof {
		if err := binaryOut(stdout); err != nil {
			return err
		}
	}
	opts := a.out.inflate
	if !*retained {
		opts = opts.withoutEdges() // only the retained sizes need references
	}
	g, src, err := load(pos[0], stderr, a.out.verbose, opts)
	if err != nil {
		return err
	}
	rows := analyze.Summary(g)
	s := report.Selection{}
	if len(pos) == 2 {
		objs, err := selectObjects(g, sel, pos[1], pos[0])
		if err != nil {
			return err
		}
		s = report.Selection{Selector: pos[1], Objects: len(objs)}
		for _, id := range objs {
			s.Bytes += g.Size(id)
		}
		rows = analyze.SummaryOf(g, objs)
	}
	if f == report.Pprof {
		return report.PprofSummary(stdout, src, originOf(pos[0], g).time, cut(rows, a.out.top))
	}
	var ret map[string]analyze.NameRetention
	if *retained {
		if err := needReferences(g, pos[0], "summary --retained"); err != nil {
			return err
		}
		an := analyzeGraph(g, stderr, false)
		ret = map[string]analyze.NameRetention{}
		var only []heap.ObjectID // the selection's objects, or all
		if len(pos) == 2 {
			only, _ = selectObjects(g, sel, pos[1], pos[0])
		}
		for _, x := range analyze.RetainedByName(an.tree, an.paths, only) {
			ret[x.Type] = x
		}
	}
	return report.SummaryOf(a.fit(stdout), f, src, s, cut(rows, a.out.top), len(rows), ret)
}
