package analyze

import (
	"cmp"
	"slices"

	"github.com/heapscope/heapscope/heap"
)

// Copies says that a leak finding's objects are copies: equal by value
// (see [IndexValues]) to each other or to objects the program kept
// before, the same structure built again and again instead of found
// again. "196 LiteralStructType, 15 distinct values; equal by value to
// 15 at ctx._cache.data[*] (one of each value: lookups in it miss)" is
// the signature of a cache whose lookups miss: the fix is the lookup,
// not the place where the copies pile up.
//
// The copies are those of one type among the finding's objects and what
// they dominate, counting only copies no other copy below the finding
// dominates (an instance that is a copy, not its namespace and tuples
// too): a leaked Function is no copy, its argument types may be.
type Copies struct {
	// Type is the copies' type; Retained what the finding's copies
	// retain.
	Type     string `json:"type"`
	Retained uint64 `json:"retained_bytes"`
	// ValueMatch counts the finding's copies (Objects), their distinct
	// values, and the objects outside the finding equal to one of them,
	// with where those are held.
	ValueMatch
}

// maxCopyTypes bounds the types of copies compared with the rest of the
// heap for one finding.
const maxCopyTypes = 4

// minCopyShare: copies that miss no cache are told only when they
// retain at least 1/minCopyShare of what their finding retains.
const minCopyShare = 10

// findCopies sets Copies on rep's findings whose objects (members, by
// the findings' groups), or objects they dominate, are copies. Of the
// types of copies a finding has, the one whose equals outside it look
// like a cache that misses is chosen, else the one whose copies retain
// the most. Cost: the value digests of final (see [IndexValues]), one
// walk of the dominator tree, and a [Values.Match] for each of at most
// maxCopyTypes types per finding. Copies that look like no cache that
// misses are left out when they retain under 1/minCopyShare of the
// finding.
func findCopies(rep *LeakReport, final *heap.Graph, fin snapshotPaths, members [][]heap.ObjectID) {
	if len(rep.Findings) == 0 {
		return
	}
	t := fin.t
	x := IndexValues(final)
	cc := x.copyClasses(t)
	if cc == nil {
		return
	}
	// Match's sorted objects are the reachable ones copyClasses sorted
	// (Match skips the others): sorted once, not twice.
	x.sorted = make([]heap.ObjectID, len(cc.recs))
	for i, rc := range cc.recs {
		x.sorted[i] = rc.id
	}
	cc.recs = nil
	mark := map[heap.ObjectID]int32{} // a member's finding, plus one
	for fi, f := range rep.Findings {
		for _, gi := range f.groups {
			for _, id := range members[gi] {
				mark[id] = int32(fi + 1)
			}
		}
	}
	// The copies below each finding's members, no other copy between.
	type findingType struct {
		f   int32
		typ heap.TypeID
	}
	found := map[findingType][]heap.ObjectID{}
	type frame struct{ cur, under int32 }
	var stack []frame
	var cur, under int32
	t.walk(func(v uint32) {
		stack = append(stack, frame{cur, under})
		if m := mark[heap.ObjectID(v)]; m != 0 {
			cur, under = m, 0
		}
		if cur != 0 && cc.classOf[v] != 0 {
			if under == 0 {
				k := findingType{cur, final.Type(heap.ObjectID(v))}
				found[k] = append(found[k], heap.ObjectID(v))
			}
			under++
		}
	}, func(uint32) {
		top := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		cur, under = top.cur, top.under
	})
	byFinding := make([][]findingType, len(rep.Findings))
	for k := range found {
		byFinding[k.f-1] = append(byFinding[k.f-1], k)
	}
	retained := func(objs []heap.ObjectID) uint64 {
		var s uint64
		for _, id := range objs {
			s += t.Retained(id)
		}
		return s
	}
	for fi, keys := range byFinding {
		if len(keys) == 0 {
			continue
		}
		slices.SortFunc(keys, func(a, b findingType) int {
			return cmp.Or(cmp.Compare(retained(found[b]), retained(found[a])), cmp.Compare(len(found[b]), len(found[a])),
				cmp.Compare(a.typ, b.typ))
		})
		var best *Copies
		for _, k := range keys[:min(len(keys), maxCopyTypes)] {
			objs := found[k]
			m := x.Match(fin.r, t, objs)
			if m.Objects < 2 && m.Equal < 2 {
				continue // one copy of one other object: no pattern
			}
			c := &Copies{Type: final.TypeName(k.typ), Retained: retained(objs), ValueMatch: m}
			if best == nil || c.Misses && !best.Misses {
				best = c
			}
		}
		if best != nil && !best.Misses && best.Retained*minCopyShare < rep.Findings[fi].Retained {
			// Copies that hold little of what the finding retains, and
			// miss no cache, say nothing of its cause (each of a
			// factory's classes has its own equal __bases__ tuple).
			best = nil
		}
		rep.Findings[fi].Copies = best
	}
}
