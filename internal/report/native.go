package report

import (
	"strings"

	"github.com/heapscope/heapscope/analyze"
	"github.com/heapscope/heapscope/heap"
)

// KeepsText says what objects held outside the heap keep, where their
// memory is: "60 numpy.ndarray float64 (512, 256), 1.0 MiB each" (the
// value label of the one that retains the most: a numpy array's dtype
// and shape), groups joined by "; ", "" for none.
func KeepsText(g *heap.Graph, keeps []analyze.KeptGroup) string {
	var parts []string
	for _, k := range keeps {
		s := Count(k.Count) + " " + k.Type
		if v, ok := g.Value(k.Example); ok {
			s += " " + v
		}
		if k.Least == k.Most {
			s += ", " + Bytes(k.Most) + " each"
		} else {
			s += ", " + Bytes(k.Least) + " to " + Bytes(k.Most) + " each"
		}
		parts = append(parts, s)
	}
	return strings.Join(parts, "; ")
}

// keptJSON is a group of kept objects as JSON shows it.
type keptJSON struct {
	Type     string     `json:"type"`
	Count    int        `json:"count"`
	Retained uint64     `json:"retained_bytes"`
	Least    uint64     `json:"least_bytes"`
	Most     uint64     `json:"most_bytes"`
	Example  objectJSON `json:"example"`
}

// KeptJSON is what objects held outside the heap keep, as JSON shows it.
func KeptJSON(t *analyze.DomTree, keeps []analyze.KeptGroup) []keptJSON {
	out := []keptJSON{}
	for _, k := range keeps {
		out = append(out, keptJSON{k.Type, k.Count, k.Retained, k.Least, k.Most, objToJSON(t, k.Example)})
	}
	return out
}
