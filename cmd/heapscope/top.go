package main

import (
	"fmt"
	"io"
	"runtime/debug"
	"strconv"
	"strings"

	"github.com/heapscope/heapscope/analyze"
	"github.com/heapscope/heapscope/heap"
	"github.com/heapscope/heapscope/internal/report"
)

// maxSiteRows is how many of top's objects say where what they retain
// was allocated: each walks its part of the dominator tree.
const maxSiteRows = 100

func runTop(args []string, stdout, stderr io.Writer) error {
	a := newAnalysis("top", "SNAPSHOT", stderr, 10)
	minFrame := a.fs.String("min-frame", "", "with --format pprof: a frame whose objects retain less than `BYTES` (suffixes K, M, G) is a leaf named by their type, with what was below it (default: 1/10,000 of what is reachable; 0: every frame)")
	pos, f, err := a.parse(args, 1, 1)
	if err != nil {
		return err
	}
	if f == report.Pprof {
		return topPprof(a, pos[0], *minFrame, stdout, stderr)
	}
	if *minFrame != "" {
		return usagef("--min-frame is for --format pprof")
	}
	an, src, err := a.loadAnalysis(pos[0], "top", stderr, false)
	if err != nil {
		return err
	}
	g := an.g
	// The objects are a ranking of the whole heap: JSON too shows the
	// first --top (10), and says how many there are.
	n := a.out.ranking()
	if n == 0 {
		n = g.NumObjects()
	}
	var d report.TopData
	d.Suspects, d.SuspectShare = report.SuspectRows(an.tree, an.paths, analyze.DefaultSuspectShare), analyze.DefaultSuspectShare
	top := analyze.TopRetained(an.tree, n)
	d.ObjectsShown = len(top)
	// JSON (and the HTML page around it) refers to the objects of chains
	// and paths by id; text spells them out.
	linked := f == report.JSON || f == report.HTML
	if linked {
		d.Paths = an.paths
		d.Context = analyze.Context(an.tree, an.paths, top)
	}
	d.Objects = func(yield func(report.TopObject) bool) {
		for i, id := range top {
			o := report.TopObject{Object: id}
			if !linked {
				o.Chain = analyze.DominatorChain(an.tree, id)
				o.Path, _ = an.paths.Path(id)
			}
			if i < maxSiteRows {
				o.Alloc = analyze.RetainedSites(an.tree, id)
			}
			if !yield(o) {
				return
			}
		}
	}
	for _, h := range an.tree.Hung() {
		d.Hung++
		d.HungRetained += an.tree.Retained(h)
	}
	types := analyze.RetainedByType(an.tree)
	d.Types, d.TypesTotal = cut(types, a.out.top), len(types)
	if g.HasSites() {
		names := make([]string, len(d.Types))
		for i, s := range d.Types {
			names[i] = s.Name
		}
		d.TypeAlloc = analyze.TypeSites(g, names)
	}
	native := analyze.NativeByType(an.tree, an.held)
	d.Native, d.NativeTotal = cut(native, a.out.top), len(native)
	d.Unreachable = analyze.Unreachables(an.tree)
	d.ObjectsTotal = g.NumObjects() - d.Unreachable.Count
	if len(top) >= 1<<16 && !linked {
		// Each object written leaves garbage (its path, its chain, its
		// text) beside a live heap of the graph and its tree: collect
		// sooner than at twice the live heap, so that --top 0 on a large
		// snapshot stays near the memory the analysis itself needs.
		defer debug.SetGCPercent(debug.SetGCPercent(30))
	}
	return report.Top(a.fit(stdout), f, src, an.tree, d)
}

// topPprof writes the dominator tree of the snapshot at path as a
// profile of dominator chains (see [analyze.DominatorChains]).
func topPprof(a *analysisFlags, path, minFrame string, stdout, stderr io.Writer) error {
	if err := binaryOut(stdout); err != nil {
		return err
	}
	min, set := uint64(0), minFrame != ""
	if set {
		var err error
		if min, err = parseSize(minFrame); err != nil {
			return usagef("--min-frame: %v", err)
		}
	}
	g, src, err := load(path, stderr, a.out.verbose, a.out.inflate)
	if err != nil {
		return err
	}
	if err := needReferences(g, path, "top"); err != nil {
		return err
	}
	tree := dominatorTree(g, stderr)
	if !set {
		min = tree.Retained(analyze.SuperRoot) / 10000
	}
	c := analyze.DominatorChains(tree, analyze.ChainOptions{MinRetained: min})
	return report.PprofTop(stdout, src, originOf(path, g).time, c)
}

func runTree(args []string, stdout, stderr io.Writer) error {
	a := newAnalysis("tree", "SNAPSHOT", stderr, 10)
	depth := a.fs.Int("depth", 3, "show `N` levels below the start")
	minSize := a.fs.String("min-size", "0", "hide subtrees retaining less than `BYTES` (suffixes K, M, G)")
	from := a.fs.String("from", "", "start at this object instead of the roots: its id (0x7f3a... or, for V8, @47297), as heapscope prints it (Server @47297), or any selector that picks one object (dict at module app.cache)")
	pos, f, err := a.parse(args, 1, 1)
	if err != nil {
		return err
	}
	min, err := parseSize(*minSize)
	if err != nil {
		return usagef("--min-size: %v", err)
	}
	an, src, err := a.loadAnalysis(pos[0], "tree", stderr, false)
	if err != nil {
		return err
	}
	g := an.g
	start := analyze.SuperRoot
	if *from != "" {
		if start, err = oneObject(g, *from, pos[0]); err != nil {
			return err
		}
	}
	lines := analyze.TreeView(an.tree, start, analyze.TreeOptions{MaxDepth: *depth, MinRetained: min, MaxChildren: a.out.top})
	return report.Tree(a.fit(stdout), f, src, an.tree, lines)
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
	a := newAnalysis("why", "SNAPSHOT SELECTOR", stderr, 10)
	weak := a.fs.Bool("weak", false, "follow weak references too")
	pos, f, err := a.parse(args, 2, 2)
	if err != nil {
		return err
	}
	sel, err := analyze.ParseSelector(pos[1])
	if err != nil {
		return usagef("%v", err)
	}
	an, src, err := a.loadAnalysis(pos[0], "why", stderr, *weak)
	if err != nil {
		return err
	}
	g := an.g
	objs, err := selectObjects(g, sel, pos[1], pos[0])
	if err != nil {
		return err
	}
	groups, unreached := analyze.MergePaths(an.paths, an.tree, objs)
	shown := cut(groups, a.out.top)
	holders := analyze.GroupHolders(an.tree, an.paths, objs, groups, func(i int) bool { return i < len(shown) })
	return report.Why(a.fit(stdout), f, src, g, pos[1], len(objs), groups, shown, holders[:len(shown)], unreached)
}

func runContainers(args []string, stdout, stderr io.Writer) error {
	a := newAnalysis("containers", "SNAPSHOT [SELECTOR]", stderr, 20)
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
	an, src, err := a.loadAnalysis(pos[0], "containers", stderr, false)
	if err != nil {
		return err
	}
	var rows []report.ContainerRow
	all := analyze.Containers(an.tree, 0)
	if len(pos) == 2 {
		// Only the containers the selector picks.
		objs, err := selectObjects(an.g, sel, pos[1], pos[0])
		if err != nil {
			return err
		}
		picked := map[heap.ObjectID]bool{}
		for _, id := range objs {
			picked[id] = true
		}
		kept := all[:0]
		for _, c := range all {
			if picked[c.Object] {
				kept = append(kept, c)
			}
		}
		all = kept
	}
	for _, c := range cut(all, a.out.top) {
		p, _ := an.paths.Path(c.Object)
		rows = append(rows, report.ContainerRow{Container: c, Path: p})
	}
	return report.Containers(a.fit(stdout), f, src, an.tree, rows, len(all))
}

func runDuplicates(args []string, stdout, stderr io.Writer) error {
	a := newAnalysis("duplicates", "SNAPSHOT", stderr, 20)
	pos, f, err := a.parse(args, 1, 1)
	if err != nil {
		return err
	}
	an, src, err := a.loadAnalysis(pos[0], "duplicates", stderr, false)
	if err != nil {
		return err
	}
	content := analyze.Duplicates(an.g, an.paths, 0)
	var values []analyze.ValueGroup
	var classes []analyze.ClassNameGroup
	withProgress(stderr, "comparing objects by value", func() error {
		values = analyze.ValueDuplicates(analyze.IndexValues(an.g), an.tree, an.paths)
		classes = analyze.SharedClassNames(an.tree, an.paths)
		return nil
	})
	return report.Duplicates(a.fit(stdout), f, src, an.tree, report.DuplicatesData{
		Content: cut(content, a.out.top), ContentTotal: len(content),
		Values: cut(values, a.out.top), ValuesTotal: len(values),
		Classes: cut(classes, a.out.top), ClassesTotal: len(classes)})
}

// oneObject returns the one object selector text picks in g, read from
// file: an id, an object as heapscope prints it, or any selector that
// picks one object; an error names the first objects a selector of
// several picks.
func oneObject(g *heap.Graph, text, file string) (heap.ObjectID, error) {
	sel, err := analyze.ParseSelector(text)
	if err != nil {
		return 0, usagef("--from wants an object: %v", err)
	}
	objs, err := selectObjects(g, sel, text, file)
	if err != nil {
		return 0, err
	}
	if len(objs) > 1 {
		ids := make([]string, min(3, len(objs)))
		for i := range ids {
			ids[i] = analyze.IDText(g, objs[i])
		}
		return 0, usagef("--from wants one object; %s selects %s in %s (%s...): give one's id", text, report.Count(len(objs)), file, strings.Join(ids, ", "))
	}
	return objs[0], nil
}

// selectObjects returns the objects sel (text, as given) picks in g, read
// from file, or an error that says why it picks none and suggests the
// names nearest to the one given.
func selectObjects(g *heap.Graph, sel analyze.Selector, text, file string) ([]heap.ObjectID, error) {
	objs := analyze.Select(g, sel)
	if len(objs) == 0 {
		return nil, fmt.Errorf("%s selects no object in %s%s", text, file, analyze.NoMatch(g, sel, text))
	}
	return objs, nil
}
