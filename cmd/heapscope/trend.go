package main

import (
	"io"

	"github.com/heapscope/heapscope/analyze"
	"github.com/heapscope/heapscope/heap"
	"github.com/heapscope/heapscope/internal/fleet"
	"github.com/heapscope/heapscope/internal/report"
)

func runTrend(args []string, stdout, stderr io.Writer) error {
	a := newAnalysis("trend", "S1 S2 S3 ...", stderr, 20)
	mixed := a.fs.Bool(mixedFlag, false, mixedUsage)
	var sf setFlags
	sf.register(a.fs)
	pos, f, err := a.parse(args, 1, -1)
	if err != nil {
		return err
	}
	set, err := sf.openSet("trend", pos)
	if err != nil {
		return err
	}
	if set != nil {
		if pos, err = sf.oneProcess("trend", set, 0, allTimes); err != nil {
			return err
		}
		if pos == nil {
			return trendSet(a, set, sf, *mixed, f, stdout, stderr)
		}
	}
	if len(pos) < 2 {
		return usagef("trend takes at least 2 snapshots, or directories of many processes' snapshots, got 1 snapshot")
	}
	var snaps []*heap.Graph
	var srcs []report.Source
	s := series{cmd: "trend", mixed: *mixed}
	for i, p := range pos {
		g, src, err := loadNth(p, i+1, len(pos), stderr, a.out.verbose, a.out.inflate)
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

// trendSet follows each process of a set through its time points and
// says, per type, path and collection, on how many processes it grew and
// by how much on each.
func trendSet(a *analysisFlags, set *fleet.Set, sf setFlags, mixed bool, f report.Format, stdout, stderr io.Writer) error {
	if f == report.HTML {
		return usagef("--format html is for one process; for many, trend writes text, json or markdown")
	}
	set, err := sf.times("trend", set, 0, allTimes)
	if err != nil {
		return err
	}
	var types, paths, colls []analyze.ProcessValue
	var detail []report.ProcessReport
	src, err := forEachProcess("trend", set, a, setRead{mixed: mixed}, stderr, func(p processSnapshots) error {
		var rep analyze.TrendReport
		withProgress(stderr, "following "+p.name, func() error {
			rep = analyze.TrendAll(p.gs)
			return nil
		})
		n := len(p.gs) - 1
		for _, t := range rep.Types {
			types = append(types, analyze.ProcessValue{Key: t.Type, Process: p.index, Class: string(t.Growth),
				Count: t.Counts[n] - t.Counts[0], Bytes: int64(t.Bytes[n]) - int64(t.Bytes[0])})
		}
		for _, pt := range rep.Paths {
			paths = append(paths, analyze.ProcessValue{Key: report.SignatureText(pt.Group), Process: p.index, Class: string(pt.Growth),
				Count: pt.Counts[n] - pt.Counts[0]})
		}
		for _, c := range rep.Collections {
			colls = append(colls, analyze.ProcessValue{Key: report.PathText(c.Path), Process: p.index, Class: "grew",
				Count: c.Entries[n] - c.Entries[0]})
		}
		if sf.perProcess {
			d, err := processDetail(p.name, func(w io.Writer) error {
				return report.Trend(report.WithWidth(w, a.out.lineWidth(stdout)), f, p.srcs, rep, cut(rep.Types, a.out.top))
			})
			detail = append(detail, d)
			return err
		}
		return nil
	})
	if err != nil {
		return err
	}
	steadyOnly := func(c string) int {
		if c == string(analyze.Steady) {
			return 0
		}
		return -1
	}
	grew := func(c string) int {
		if c == "grew" {
			return 0
		}
		return -1
	}
	sections := []report.FleetSection{
		fleetSection("Types", "type", "growth", analyze.Aggregate(types, analyze.GrowthRank), a.out.top, "no type changed"),
		fleetSection("Paths that grew in every snapshot", "held by", "growth", analyze.Aggregate(paths, steadyOnly), a.out.top, "none"),
		fleetSection("Collections that grew in every snapshot", "path", "entries", analyze.Aggregate(colls, grew), a.out.top, "none"),
	}
	sections[1].CountOnly, sections[2].CountOnly = true, true
	return report.Fleet(a.fit(stdout), f, src, sections, detail)
}

// allTimes is every time point of a set.
func allTimes(n int) []int {
	at := make([]int, n)
	for i := range at {
		at[i] = i
	}
	return at
}

// fleetSection is a section of a report over many processes, its rows
// cut to top.
func fleetSection(title, key, change string, rows []analyze.FleetRow, top int, none string) report.FleetSection {
	return report.FleetSection{Title: title, Key: key, Change: change, Rows: cut(rows, top), Total: len(rows), None: none}
}
