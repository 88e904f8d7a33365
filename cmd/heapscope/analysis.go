package main

import (
	"fmt"
	"io"
	"runtime"

	"github.com/heapscope/heapscope/analyze"
	"github.com/heapscope/heapscope/heap"
	"github.com/heapscope/heapscope/internal/report"
)

// analysis is a snapshot with its dominator tree. For runtimes with
// reference counts, objects held outside the heap are extra roots, so
// that what they keep alive is in the tree.
type analysis struct {
	g     *heap.Graph
	held  []analyze.NativeObject
	extra []heap.ObjectID
	tree  *analyze.DomTree
	paths *analyze.Retainers
}

// needReferences fails for a census (a Python snapshot taken with
// edges=False): it has every object's type and size but no references,
// which what is alive and why cannot do without.
func needReferences(g *heap.Graph, path, what string) error {
	if g.Meta().Attrs["census"] == "true" {
		return fmt.Errorf("%s is a census (heapscope.snapshot(edges=False)): it has no references; %s needs a full snapshot", path, what)
	}
	return nil
}

// dominatorTree computes the dominator tree of g alone, with the objects
// held outside the heap as extra roots, as [analyzeGraph] does.
func dominatorTree(g *heap.Graph, stderr io.Writer) *analyze.DomTree {
	collectReaderGarbage(g)
	var t *analyze.DomTree
	withProgress(stderr, "computing dominators", func() error {
		t = analyze.Dominators(g, analyze.DomOptions{ExtraRoots: analyze.NativeRoots(analyze.NativeHeld(g))})
		return nil
	})
	return t
}

func analyzeGraph(g *heap.Graph, stderr io.Writer, weakPaths bool) *analysis {
	collectReaderGarbage(g)
	a := &analysis{g: g}
	withProgress(stderr, "computing dominators", func() error {
		a.held = analyze.NativeHeld(g)
		a.extra = analyze.NativeRoots(a.held)
		timed("  dominators", func() { a.tree = analyze.Dominators(g, analyze.DomOptions{ExtraRoots: a.extra}) })
		timed("  shortest paths", func() {
			a.paths = analyze.ShortestPaths(g, analyze.PathOptions{ExtraRoots: a.extra, IncludeWeak: weakPaths})
		})
		return nil
	})
	return a
}

// loadAnalysis reads the snapshot at path for a command that needs its
// references (what names the command for the error a census gets), and
// computes its dominator tree and shortest paths.
func (a *analysisFlags) loadAnalysis(path, what string, stderr io.Writer, weakPaths bool) (*analysis, report.Source, error) {
	g, src, err := load(path, stderr, a.out.verbose, a.out.inflate)
	if err != nil {
		return nil, src, err
	}
	if err := needReferences(g, path, what); err != nil {
		return nil, src, err
	}
	return analyzeGraph(g, stderr, weakPaths), src, nil
}

// collectReaderGarbage gives the reader's transient arrays back before a
// large analysis (dominators, paths), which then reuses that memory
// instead of growing the process by as much again. The heap is mostly
// arrays of numbers by then, cheap to collect.
func collectReaderGarbage(g *heap.Graph) {
	if g.NumObjects()+g.NumEdges() >= 1<<20 {
		runtime.GC()
	}
}
