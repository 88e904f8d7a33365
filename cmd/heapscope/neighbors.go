package main

import (
	"io"

	"github.com/heapscope/heapscope/analyze"
	"github.com/heapscope/heapscope/internal/report"
)

func runRetainers(args []string, stdout, stderr io.Writer) error {
	return runNeighbors("retainers", false, 2, args, stdout, stderr)
}

func runRefs(args []string, stdout, stderr io.Writer) error {
	return runNeighbors("refs", true, 1, args, stdout, stderr)
}

// runNeighbors is retainers (out false: the edges that lead to the
// selected objects) and refs (out true: their own edges), listed depth
// levels deep by default.
func runNeighbors(name string, out bool, depth int, args []string, stdout, stderr io.Writer) error {
	a := newAnalysis(name, "SNAPSHOT SELECTOR", stderr, 10)
	levels := a.fs.Int("depth", depth, "list `N` levels: the edges of the selected objects, then of the objects they lead to, and so on")
	each := a.fs.Int("each", 20, "list a level's edges one by one when it has at most `N` (0: always group them by type and edge name)")
	pos, f, err := a.parse(args, 2, 2)
	if err != nil {
		return err
	}
	if *levels < 1 {
		return usagef("--depth must be at least 1")
	}
	if *each < 0 {
		return usagef("--each must not be negative")
	}
	sel, err := analyze.ParseSelector(pos[1])
	if err != nil {
		return usagef("%v", err)
	}
	an, src, err := a.loadAnalysis(pos[0], name, stderr, false)
	if err != nil {
		return err
	}
	objs, err := selectObjects(an.g, sel, pos[1], pos[0])
	if err != nil {
		return err
	}
	opt := analyze.NeighborOptions{Out: out, Depth: *levels, MaxGroups: a.out.top, Each: *each}
	if *each == 0 {
		opt.Each = -1
	}
	tree, err := analyze.Neighbors(an.tree, an.paths, objs, opt)
	if err != nil {
		return err
	}
	return report.Neighbors(a.fit(stdout), f, src, an.tree, pos[1], objs, tree, out)
}
