package analyze

import (
	"strings"

	"github.com/heapscope/heapscope/heap"
)

// DiffObjects returns the objects of a row of [Diff] (with identities
// compared) that are new in after, or, with deleted, the objects of
// before that after no longer has, in ID order of their snapshot: what
// DevTools' Comparison lists under a constructor. A row's objects are
// its type's (a row that sums the instances of many classes, Types > 0,
// those of the types its pattern matches; a row of a family of classes,
// the class objects of the family).
func DiffObjects(before, after *heap.Graph, row TypeDelta, deleted bool) []heap.ObjectID {
	g, other := after, before
	if deleted {
		g, other = before, after
	}
	inRow := rowMembers(g, row)
	present := keySet(Identities(other, IdentityStable))
	keys := Identities(g, IdentityStable)
	var out []heap.ObjectID
	for id := range g.Objects() {
		if _, ok := present[keys[id]]; !ok && inRow(id) {
			out = append(out, id)
		}
	}
	return out
}

// rowMembers returns whether an object of g is counted in row.
func rowMembers(g *heap.Graph, row TypeDelta) func(heap.ObjectID) bool {
	want := make([]bool, g.NumTypes())
	for t := range want {
		name := g.TypeName(heap.TypeID(t))
		if row.Types > 0 {
			want[t] = starMatch(row.Type, name)
		} else {
			want[t] = name == row.Type
		}
	}
	if row.Classes == "" {
		return func(id heap.ObjectID) bool { return want[g.Type(id)] }
	}
	return func(id heap.ObjectID) bool {
		if !want[g.Type(id)] {
			return false
		}
		name, ok := ClassName(g, id)
		return ok && (FoldName(name) == row.Classes || MatchClass(name, row.Classes) || strings.HasSuffix(row.Classes, name))
	}
}
