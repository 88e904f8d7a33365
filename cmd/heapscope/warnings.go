package main

import (
	"io"

	"github.com/heapscope/heapscope/heap"
	"github.com/heapscope/heapscope/internal/report"
)

// writeWarnings tells on stderr what warnings the snapshot at path has
// and whether they matter: each one, explained, with verbose (-v);
// otherwise one line that counts them.
func writeWarnings(stderr io.Writer, path string, g *heap.Graph, verbose bool) {
	var msgs []string
	for _, w := range g.Warnings() {
		msgs = append(msgs, w.String())
	}
	report.Warnings(stderr, path, g.Meta().Runtime, msgs, verbose)
}
