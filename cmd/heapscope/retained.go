package main

import (
	"io"

	"github.com/heapscope/heapscope/analyze"
	"github.com/heapscope/heapscope/internal/report"
)

// runRetained is the retained command: the retained set of the selected
// objects, what would be freed if all of them went, with a breakdown by
// type.
func runRetained(args []string, stdout, stderr io.Writer) error {
	a := newAnalysis("retained", "SNAPSHOT SELECTOR", stderr, 20)
	pos, f, err := a.parse(args, 2, 2)
	if err != nil {
		return err
	}
	sel, err := analyze.ParseSelector(pos[1])
	if err != nil {
		return usagef("%v", err)
	}
	an, src, err := a.loadAnalysis(pos[0], "retained", stderr, false)
	if err != nil {
		return err
	}
	objs, err := selectObjects(an.g, sel, pos[1], pos[0])
	if err != nil {
		return err
	}
	picked := report.Selection{Selector: pos[1], Objects: len(objs)}
	for _, id := range objs {
		picked.Bytes += an.g.Size(id)
	}
	set := analyze.RetainedSet(an.g, analyze.DomOptions{ExtraRoots: an.extra}, objs)
	freed := report.Selection{Objects: len(set)}
	for _, id := range set {
		freed.Bytes += an.g.Size(id)
	}
	rows := analyze.SummaryOf(an.g, set)
	return report.Retained(a.fit(stdout), f, src, picked, freed, cut(rows, a.out.top), len(rows))
}
