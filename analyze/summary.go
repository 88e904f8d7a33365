package analyze

import (
	"sort"

	"github.com/heapscope/heapscope/heap"
)

// Overview is what a snapshot holds, in a few numbers.
type Overview struct {
	Runtime string `json:"runtime"`
	Version string `json:"version,omitempty"`
	Objects int    `json:"objects"`
	// Edges is nil when the reader left the references out
	// (heap.Graph.EdgesSkipped): summary and diff read none.
	Edges    *int   `json:"edges,omitempty"`
	Bytes    uint64 `json:"bytes"`
	Types    int    `json:"types"`
	Roots    int    `json:"roots"` // distinct objects that are roots
	Warnings int    `json:"warnings"`
	// Census: the snapshot lists objects without their references (a
	// Python census, heapscope.snapshot(edges=False)).
	Census bool `json:"census,omitempty"`
	// Layout is the object layout a Java dump's shallow sizes assume,
	// and how the reader chose it.
	Layout string `json:"layout,omitempty"`
	// Dumps lists the heap dumps of a file that holds several; the
	// snapshot is the one marked read.
	Dumps []heap.Dump `json:"dumps,omitempty"`
	// RootKinds counts the root objects by the runtime's name for their
	// kind, most first; an object that is a root of several kinds counts
	// in each, and once in Roots.
	RootKinds []RootKind `json:"root_kinds,omitempty"`
}

// RootKind is the number of objects that are roots of one kind.
type RootKind struct {
	Kind    string `json:"kind"`
	Objects int    `json:"objects"`
}

// rootKinds counts g's distinct root objects, and those of each kind:
// for Java the kind of GC root HPROF names ("sticky class", "jni
// global", "thread"), else heap.RootKind's name (Python names each
// module root after its module).
func rootKinds(g *heap.Graph) (int, []RootKind) {
	java := g.Meta().Runtime == "java"
	seen := map[heap.ObjectID]bool{}
	type key struct {
		obj  heap.ObjectID
		kind string
	}
	seenKind := map[key]bool{}
	count := map[string]int{}
	for _, r := range g.Roots() {
		seen[r.Object] = true
		k := g.String(r.Name)
		if k == "" || !java {
			k = r.Kind.String()
		}
		if !seenKind[key{r.Object, k}] {
			seenKind[key{r.Object, k}] = true
			count[k]++
		}
	}
	var out []RootKind
	for k, n := range count {
		out = append(out, RootKind{k, n})
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Objects != out[j].Objects {
			return out[i].Objects > out[j].Objects
		}
		return out[i].Kind < out[j].Kind
	})
	return len(seen), out
}

// Describe returns the overview of g.
func Describe(g *heap.Graph) Overview {
	m := g.Meta()
	roots, kinds := rootKinds(g)
	o := Overview{
		Runtime:   m.Runtime,
		Version:   m.Version,
		Objects:   g.NumObjects(),
		Bytes:     g.TotalSize(),
		Types:     g.NumTypes(),
		Roots:     roots,
		Warnings:  len(g.Warnings()),
		Census:    m.Attrs["census"] == "true",
		Layout:    m.Attrs["layout"],
		Dumps:     m.Dumps,
		RootKinds: kinds,
	}
	if !g.EdgesSkipped() {
		n := g.NumEdges()
		o.Edges = &n
	}
	return o
}

// TypeSummary is the number and shallow size of the objects of one type.
type TypeSummary struct {
	Type  string `json:"type"`
	Count int    `json:"count"`
	Bytes uint64 `json:"shallow_bytes"`
}

// Summary counts objects and shallow bytes per type name, largest bytes
// first (then larger count, then name). Types that share a name (classes
// made again and again by a factory) are one row.
func Summary(g *heap.Graph) []TypeSummary {
	count := make([]int, g.NumTypes())
	bytes := make([]uint64, g.NumTypes())
	sizes := g.Sizes()
	for i, t := range g.Types() {
		count[t]++
		bytes[t] += sizes[i]
	}
	return summaryRows(g, count, bytes)
}

// SummaryOf is [Summary] of the objects ids only.
func SummaryOf(g *heap.Graph, ids []heap.ObjectID) []TypeSummary {
	count := make([]int, g.NumTypes())
	bytes := make([]uint64, g.NumTypes())
	for _, id := range ids {
		t := g.Type(id)
		count[t]++
		bytes[t] += g.Size(id)
	}
	return summaryRows(g, count, bytes)
}

// summaryRows makes the rows of a summary from counts and bytes by type.
func summaryRows(g *heap.Graph, count []int, bytes []uint64) []TypeSummary {
	byName := map[string]int{}
	var rows []TypeSummary
	for t := range count {
		if count[t] == 0 {
			continue
		}
		name := g.TypeName(heap.TypeID(t))
		if i, ok := byName[name]; ok {
			rows[i].Count += count[t]
			rows[i].Bytes += bytes[t]
			continue
		}
		byName[name] = len(rows)
		rows = append(rows, TypeSummary{Type: name, Count: count[t], Bytes: bytes[t]})
	}
	sort.Slice(rows, func(i, j int) bool {
		a, b := rows[i], rows[j]
		if a.Bytes != b.Bytes {
			return a.Bytes > b.Bytes
		}
		if a.Count != b.Count {
			return a.Count > b.Count
		}
		return a.Type < b.Type
	})
	return rows
}
