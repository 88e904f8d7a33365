package main

import (
	"io"

	"github.com/heapscope/heapscope/analyze"
	"github.com/heapscope/heapscope/heap"
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

func analyzeGraph(g *heap.Graph, stderr io.Writer, weakPaths bool) *analysis {
	a := &analysis{g: g}
	withProgress(stderr, "computing dominators", func() error {
		a.held = analyze.NativeHeld(g)
		a.extra = analyze.NativeRoots(a.held)
		a.tree = analyze.Dominators(g, analyze.DomOptions{ExtraRoots: a.extra})
		a.paths = analyze.ShortestPaths(g, analyze.PathOptions{ExtraRoots: a.extra, IncludeWeak: weakPaths})
		return nil
	})
	return a
}
