package main

import (
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/heapscope/heapscope/analyze"
	"github.com/heapscope/heapscope/internal/report"
)

func runTop(args []string, stdout, stderr io.Writer) error {
	fs := flagSet("top", "SNAPSHOT", stderr)
	var out outputFlags
	out.register(fs, 10)
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
	a := analyzeGraph(g, stderr, false)
	n := out.top
	if n == 0 {
		n = g.NumObjects()
	}
	var d report.TopData
	for _, id := range analyze.TopRetained(a.tree, n) {
		d.Objects = append(d.Objects, report.TopObject{Object: id, Chain: analyze.DominatorChain(a.tree, id)})
	}
	types := analyze.RetainedByType(a.tree)
	d.Types, d.TypesTotal = cut(types, out.top), len(types)
	d.Native = cut(analyze.NativeByType(a.tree, a.held), out.top)
	d.Unreachable = analyze.Unreachables(a.tree)
	return report.Top(stdout, f, src, a.tree, d)
}

func runTree(args []string, stdout, stderr io.Writer) error {
	fs := flagSet("tree", "SNAPSHOT", stderr)
	var out outputFlags
	out.register(fs, 10)
	depth := fs.Int("depth", 3, "show `N` levels below the start")
	minSize := fs.String("min-size", "0", "hide subtrees retaining less than `BYTES` (suffixes K, M, G)")
	from := fs.String("from", "", "start at this object (an address, e.g. 0x7f3a...) instead of the roots")
	pos, err := parse(fs, args, 1, 1)
	if err != nil {
		return err
	}
	f, err := out.resolve()
	if err != nil {
		return err
	}
	min, err := parseSize(*minSize)
	if err != nil {
		return usagef("--min-size: %v", err)
	}
	g, src, err := load(pos[0], stderr, out.verbose)
	if err != nil {
		return err
	}
	a := analyzeGraph(g, stderr, false)
	start := analyze.SuperRoot
	if *from != "" {
		addr, err := strconv.ParseUint(strings.TrimPrefix(*from, "0x"), 16, 64)
		if err != nil {
			return usagef("--from wants an address such as 0x7f3a0c2b1e40: %v", err)
		}
		id, ok := g.FindAddr(addr)
		if !ok {
			return fmt.Errorf("no object at %s in %s", *from, pos[0])
		}
		start = id
	}
	lines := analyze.TreeView(a.tree, start, analyze.TreeOptions{MaxDepth: *depth, MinRetained: min, MaxChildren: out.top})
	return report.Tree(stdout, f, src, a.tree, lines)
}

// parseSize parses "1024", "64K", "1.5M", "2G" (powers of 1024).
func parseSize(s string) (uint64, error) {
	mult := 1.0
	switch {
	case strings.HasSuffix(strings.ToUpper(s), "K"):
		mult, s = 1<<10, s[:len(s)-1]
	case strings.HasSuffix(strings.ToUpper(s), "M"):
		mult, s = 1<<20, s[:len(s)-1]
	case strings.HasSuffix(strings.ToUpper(s), "G"):
		mult, s = 1<<30, s[:len(s)-1]
	}
	v, err := strconv.ParseFloat(s, 64)
	if err != nil || v < 0 {
		return 0, fmt.Errorf("bad size %q", s)
	}
	return uint64(v * mult), nil
}

func runWhy(args []string, stdout, stderr io.Writer) error {
	fs := flagSet("why", "SNAPSHOT SELECTOR", stderr)
	var out outputFlags
	out.register(fs, 10)
	weak := fs.Bool("weak", false, "follow weak references too")
	pos, err := parse(fs, args, 2, 2)
	if err != nil {
		return err
	}
	f, err := out.resolve()
	if err != nil {
		return err
	}
	sel, err := parseSelector(pos[1])
	if err != nil {
		return usagef("%v", err)
	}
	g, src, err := load(pos[0], stderr, out.verbose)
	if err != nil {
		return err
	}
	a := analyzeGraph(g, stderr, *weak)
	objs := analyze.Select(g, sel)
	if len(objs) == 0 {
		return fmt.Errorf("%s selects no object in %s", pos[1], pos[0])
	}
	groups, unreached := analyze.MergePaths(a.paths, a.tree, objs)
	return report.Why(stdout, f, src, g, pos[1], len(objs), groups, cut(groups, out.top), unreached)
}

// parseSelector reads a why selector: an address (0x...), "value:TEXT"
// (a substring of value labels), or a type name ("type:NAME" or NAME).
func parseSelector(s string) (analyze.Selector, error) {
	switch {
	case strings.HasPrefix(s, "0x"):
		a, err := strconv.ParseUint(s[2:], 16, 64)
		if err != nil {
			return analyze.Selector{}, fmt.Errorf("bad address %q", s)
		}
		return analyze.Selector{Addr: a, HasAddr: true}, nil
	case strings.HasPrefix(s, "value:"):
		return analyze.Selector{Value: s[len("value:"):]}, nil
	case strings.HasPrefix(s, "type:"):
		return analyze.Selector{Type: s[len("type:"):]}, nil
	case s == "":
		return analyze.Selector{}, fmt.Errorf("empty selector")
	}
	return analyze.Selector{Type: s}, nil
}

func runContainers(args []string, stdout, stderr io.Writer) error {
	fs := flagSet("containers", "SNAPSHOT", stderr)
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
	a := analyzeGraph(g, stderr, false)
	var rows []report.ContainerRow
	for _, c := range analyze.Containers(a.tree, out.top) {
		p, _ := a.paths.Path(c.Object)
		rows = append(rows, report.ContainerRow{Container: c, Path: p})
	}
	return report.Containers(stdout, f, src, a.tree, rows)
}

func runDuplicates(args []string, stdout, stderr io.Writer) error {
	fs := flagSet("duplicates", "SNAPSHOT", stderr)
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
	var r *analyze.Retainers
	withProgress(stderr, "finding duplicates", func() error {
		r = analyze.ShortestPaths(g, analyze.PathOptions{})
		return nil
	})
	return report.Duplicates(stdout, f, src, analyze.Duplicates(g, r, out.top))
}
