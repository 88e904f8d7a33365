package main

import (
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/heapscope/heapscope/analyze"
	"github.com/heapscope/heapscope/heap"
	"github.com/heapscope/heapscope/internal/fleet"
	"github.com/heapscope/heapscope/internal/report"
)

func runDiff(args []string, stdout, stderr io.Writer) error {
	a := newAnalysis("diff", "BEFORE AFTER", stderr, 20)
	var sf setFlags
	sf.register(a.fs)
	newOf := a.fs.String("new", "", "list the objects of `ROW` (a type as diff names it) that AFTER has and BEFORE had not, as DevTools' Comparison lists a constructor's (V8)")
	deletedOf := a.fs.String("deleted", "", "list the objects of `ROW` that BEFORE had and AFTER has no longer (V8)")
	pos, f, err := a.parse(args, 1, 2)
	if err != nil {
		return err
	}
	if *newOf != "" && *deletedOf != "" {
		return usagef("--new and --deleted list one row's objects: give one of them")
	}
	set, err := sf.openSet("diff", pos)
	if err != nil {
		return err
	}
	if set != nil {
		if pos, err = sf.oneProcess("diff", set, 2, firstAndLast); err != nil {
			return err
		}
		if pos == nil {
			return diffSet(a, set, sf, f, stdout, stderr)
		}
	}
	if len(pos) != 2 {
		return usagef("diff takes 2 snapshots, or directories of many processes' snapshots, got 1 snapshot")
	}
	gs, srcs, err := loadBoth([2]string{pos[0], pos[1]}, stderr, a.out.verbose, a.out.inflate.withoutEdges())
	if err != nil {
		return err
	}
	before, after, bsrc, asrc := gs[0], gs[1], srcs[0], srcs[1]
	bo, ao := originOf(pos[0], before), originOf(pos[1], after)
	if err := sameRuntime("diff", bo, ao); err != nil {
		return err
	}
	if w := diffWarning(bo, ao); w != "" {
		fmt.Fprintln(stderr, "heapscope: "+w)
	}
	rows := analyze.Diff(before, after, diffOptions(before, after))
	if label := *newOf + *deletedOf; label != "" {
		return diffObjects(a, f, stdout, bsrc, asrc, before, after, rows, label, *deletedOf != "")
	}
	return report.Diff(a.fit(stdout), f, bsrc, asrc, cut(rows, a.out.top), len(rows))
}

// diffObjects lists the objects of the row of rows named label that are
// new in after, or with deleted that after no longer has.
func diffObjects(a *analysisFlags, f report.Format, stdout io.Writer, bsrc, asrc report.Source, before, after *heap.Graph, rows []analyze.TypeDelta, label string, deleted bool) error {
	if !diffOptions(before, after).Identity {
		return usagef("--new and --deleted tell objects apart by V8's ids, which these snapshots do not have (%s, %s)", before.Meta().Runtime, after.Meta().Runtime)
	}
	var row *analyze.TypeDelta
	labels := make([]string, 0, len(rows))
	for i := range rows {
		l := report.DeltaLabel(rows[i])
		labels = append(labels, l)
		if l == label || rows[i].Type == label && row == nil {
			row = &rows[i]
		}
	}
	if row == nil {
		return fmt.Errorf("no row of the diff is %q%s", label, nearestText(label, labels))
	}
	objs := analyze.DiffObjects(before, after, *row, deleted)
	g := after
	if deleted {
		g = before
	}
	return report.DiffObjects(a.fit(stdout), f, bsrc, asrc, g, *row, deleted, cut(objs, a.out.top), len(objs))
}

// diffOptions compares identities too where they are stable: V8 node
// ids, within one process.
func diffOptions(before, after *heap.Graph) analyze.DiffOptions {
	return analyze.DiffOptions{Identity: before.Meta().Runtime == "v8" && after.Meta().Runtime == "v8"}
}

// diffSet compares two time points of each process of a set (the first
// and the last, or --at) and says, per type, on how many processes it
// grew or shrank and by how much on each. Snapshots of one process in
// the wrong order or of a restarted process leave that process out.
func diffSet(a *analysisFlags, set *fleet.Set, sf setFlags, f report.Format, stdout, stderr io.Writer) error {
	set, err := sf.times("diff", set, 2, firstAndLast)
	if err != nil {
		return err
	}
	var vals []analyze.ProcessValue
	var detail []report.ProcessReport
	src, err := forEachProcess("diff", set, a, setRead{}, stderr, func(p processSnapshots) error {
		rows := analyze.Diff(p.gs[0], p.gs[1], diffOptions(p.gs[0], p.gs[1]))
		for _, r := range rows {
			class := "grew"
			if r.BytesDelta < 0 || r.BytesDelta == 0 && r.CountDelta < 0 {
				class = "shrank"
			}
			if r.BytesDelta == 0 && r.CountDelta == 0 {
				continue
			}
			vals = append(vals, analyze.ProcessValue{Key: report.DeltaLabel(r), Process: p.index, Class: class, Count: int64(r.CountDelta), Bytes: r.BytesDelta})
		}
		if sf.perProcess {
			d, err := processDetail(p.name, func(w io.Writer) error {
				return report.Diff(report.WithWidth(w, a.out.lineWidth(stdout)), f, p.srcs[0], p.srcs[1], cut(rows, a.out.top), len(rows))
			})
			detail = append(detail, d)
			return err
		}
		return nil
	})
	if err != nil {
		return err
	}
	rank := func(c string) int { return map[string]int{"grew": 0, "shrank": 1}[c] }
	rows := analyze.Aggregate(vals, rank)
	return report.Fleet(a.fit(stdout), f, src, []report.FleetSection{fleetSection("Types", "type", "change", rows, a.out.top, "no type changed")}, detail)
}

// nearestText is "; nearest: "A", "B"" for the labels nearest to label,
// or "" when none is near.
func nearestText(label string, labels []string) string {
	near := analyze.Nearest(label, labels, 5)
	if len(near) == 0 {
		return ""
	}
	q := make([]string, len(near))
	for i, n := range near {
		q[i] = strconv.Quote(n)
	}
	return "; nearest: " + strings.Join(q, ", ")
}

// firstAndLast picks the first and last of n time points.
func firstAndLast(n int) []int { return []int{0, n - 1} }
