package analyze

import (
	"cmp"
	"slices"

	"github.com/heapscope/heapscope/heap"
)

// NameRetention is what the objects of one type name retain, and how
// near a root the nearest of them is: the columns DevTools' Summary
// adds to the count and shallow size of [Summary]'s rows.
type NameRetention struct {
	Type string `json:"type"`
	// Retained is the memory the type's objects retain, each object
	// counted once (see [RetainedByType]); 0 when none is reachable.
	Retained uint64 `json:"retained_bytes"`
	// Share is Retained's share of the reachable heap (0 to 1).
	Share float64 `json:"share"`
	// Distance is the least distance from a root of the type's objects
	// (see [Retainers.Distance]); -1 when no path reaches any.
	Distance int `json:"distance"`
}

// RetainedByName returns a [NameRetention] for every type name of t's
// graph, as [Summary] names its rows (types that share a name are one),
// largest retained size first, then by name, of the objects only (as
// [SummaryOf] counts them) when only is not nil. r gives the distances.
func RetainedByName(t *DomTree, r *Retainers, only []heap.ObjectID) []NameRetention {
	g := t.g
	var in bitset
	if only != nil {
		in = newBitset(g.NumObjects())
		for _, x := range only {
			in.set(uint32(x))
		}
	}
	counted := func(v uint32) bool { return in == nil || in.has(v) }
	index := map[string]int{}
	group := make([]int, g.NumTypes())
	var out []NameRetention
	for ty := range group {
		name := g.TypeName(heap.TypeID(ty))
		i, ok := index[name]
		if !ok {
			i = len(out)
			index[name] = i
			out = append(out, NameRetention{Type: name, Distance: -1})
		}
		group[ty] = i
	}
	typ := g.Types()
	open := make([]uint32, len(out)) // objects of the name on the current tree path
	t.walk(func(v uint32) {
		if !counted(v) {
			return
		}
		k := group[typ[v]]
		if open[k] == 0 {
			out[k].Retained += t.retained[v]
		}
		open[k]++
	}, func(v uint32) {
		if counted(v) {
			open[group[typ[v]]]--
		}
	})
	if all := t.retained[t.n]; all > 0 {
		for i := range out {
			out[i].Share = float64(out[i].Retained) / float64(all)
		}
	}
	for id, ty := range typ {
		if !counted(uint32(id)) {
			continue
		}
		if d := r.Distance(heap.ObjectID(id)); d >= 0 {
			o := &out[group[ty]]
			if o.Distance < 0 || d < o.Distance {
				o.Distance = d
			}
		}
	}
	slices.SortFunc(out, func(a, b NameRetention) int {
		if c := cmp.Compare(b.Retained, a.Retained); c != 0 {
			return c
		}
		return cmp.Compare(a.Type, b.Type)
	})
	return out
}
