package analyze

import (
	"cmp"
	"slices"
	"strings"

	"github.com/heapscope/heapscope/heap"
)

// SigStep is one step of a path signature.
type SigStep struct {
	Type string
	// Name is the object's own name (g.Name), on the steps before the
	// target: paths through the static fields of two classes are two
	// signatures. The target's step has no Name, so that objects of one
	// type (class objects among them) group together.
	Name string
	Edge string // collapsed edge name (see [MergePaths])
	// Repeated: the path of some member of the group went through this
	// (type, edge) step several times in a row (a linked list, a hash
	// bucket chain).
	Repeated bool
}

// PathGroup is the objects that one kind of path holds.
type PathGroup struct {
	RootKind  heap.RootKind
	RootName  string
	Signature []SigStep
	Count     int    // objects in the group
	Shallow   uint64 // the sum of their shallow sizes
	// Retained is the memory the group's objects retain, each object
	// counted once across all groups (see [TopMost]).
	Retained uint64
	Sample   Path // the path of the member with the largest retained size
	// Alloc says where the group's objects were allocated, when the
	// snapshot records it (nil otherwise).
	Alloc *Allocations
}

// MergePaths groups objs (typically all instances of a type) by the
// shape of their shortest paths, as Eclipse MAT's "merge shortest paths
// to GC roots" does, biggest first: by retained size, then count, then
// signature text.
//
// A path's signature is its root (kind and name) and its sequence of
// (type name, object name, edge name) steps, the target included (without
// its name), where
//   - index edges ([17]), dict-key edges (a name in brackets, such as
//     Python's ['key']) and all-digit names (V8's Map table slots) become
//     "[*]", so the ten thousand values of one dict, or the slots of one
//     array, fall in one group;
//   - a step down a V8 rope ([RopeStep]) has the edge [RopeEdge], so
//     that a run of them, whatever their halves, is a run of equal steps;
//   - a run of equal steps becomes one step, whatever its length, so
//     what hangs off every node of a linked list or bucket chain falls
//     in one group; the step is marked Repeated when some member's run
//     was longer than one. Steps through a container's entries of one
//     type (a HashMap$Node and the nodes chained to it by "next"; see
//     entryKinds) are equal whatever their edge names, so a bucket's
//     first node and the nodes after it fall in one group;
//   - a signature of more than [MaxSignature] steps keeps its first
//     MaxSignature-2, a [GapStep] and its last, so what hangs at every
//     depth of a long chain of varied steps falls in a few groups.
//
// Attribute names stay, so two caches in different fields of one object
// stay apart. Objects no path reaches are counted in unreached. t may
// be nil: Retained is then 0 and samples are the lowest IDs. When the
// graph records allocation sites, each group says where its objects
// were allocated (see [Allocations]).
//
// Each object on the paths is visited once, the first time a call meets
// it: r keeps every object's signature (8 bytes per object of the graph,
// see [Retainers]). The cost is linear in the objects on the paths, plus
// MaxSignature steps per group and the length of each group's sample
// path.
func MergePaths(r *Retainers, t *DomTree, objs []heap.ObjectID) (groups []PathGroup, unreached int) {
	return mergePaths(r, t, objs, nil)
}

// mergePaths is MergePaths; where the graph has no site for an object,
// its site comes from alt, when given (see siteTally).
func mergePaths(r *Retainers, t *DomTree, objs []heap.ObjectID, alt *heap.Graph) (groups []PathGroup, unreached int) {
	g := r.g
	var isTop bitset
	var ret []uint64
	if t != nil {
		isTop = newBitset(g.NumObjects())
		top, _ := TopMost(t, objs)
		for _, x := range top {
			isTop.set(uint32(x))
		}
		ret = t.retained
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	s := r.sigs()
	var samples []heap.ObjectID
	tally := newSiteTally(g, alt)
	groups, unreached = countPathsLocked(r, s, objs, func(i int, id heap.ObjectID, grp *PathGroup) {
		if i == len(samples) {
			samples = append(samples, id)
		}
		if tally != nil {
			tally.add(i, id)
		}
		if t == nil {
			samples[i] = min(samples[i], id)
			return
		}
		if isTop.has(uint32(id)) {
			grp.Retained += ret[id]
			isTop[id>>6] &^= 1 << (id & 63) // count duplicates in objs once
		}
		if cmpRetained(ret, uint32(id), uint32(samples[i])) < 0 {
			samples[i] = id
		}
	})
	keys := make([]string, len(groups))
	for i := range groups {
		grp := &groups[i]
		keys[i] = sortKey(grp)
		grp.Sample, _ = r.Path(samples[i])
	}
	if tally != nil {
		for i, a := range tally.result(len(groups)) {
			groups[i].Alloc = a
		}
	}
	order := make([]int, len(groups))
	for i := range order {
		order[i] = i
	}
	slices.SortFunc(order, func(a, b int) int {
		if c := cmp.Compare(groups[b].Retained, groups[a].Retained); c != 0 {
			return c
		}
		if c := cmp.Compare(groups[b].Count, groups[a].Count); c != 0 {
			return c
		}
		return cmp.Compare(keys[a], keys[b])
	})
	sorted := make([]PathGroup, len(groups))
	for i, o := range order {
		sorted[i] = groups[o]
	}
	return sorted, unreached
}

// countPaths groups objs by path signature as [MergePaths] does, in
// the order their groups first occur, with each group's root, signature,
// Count and Shallow only: no samples, retained sizes or allocation
// sites, for following the counts of paths across snapshots.
func countPaths(r *Retainers, objs []heap.ObjectID) []PathGroup {
	r.mu.Lock()
	defer r.mu.Unlock()
	groups, _ := countPathsLocked(r, r.sigs(), objs, nil)
	return groups
}

// countPathsLocked is countPaths, calling each(i, id, group) for every
// object reached, where i indexes the groups (an i not met before is a
// new group). The caller holds r.mu.
func countPathsLocked(r *Retainers, s *sigIndex, objs []heap.ObjectID, each func(int, heap.ObjectID, *PathGroup)) (groups []PathGroup, unreached int) {
	g := r.g
	idx := map[int32]int{} // trie node -> group
	var nodes []int32
	var long []uint32
	for _, id := range objs {
		if int(id) >= g.NumObjects() || !r.Reached(id) {
			unreached++
			continue
		}
		k, l := r.target(s, id)
		i, ok := idx[k]
		if !ok {
			i = len(nodes)
			idx[k] = i
			nodes = append(nodes, k)
			long = append(long, 0)
			groups = append(groups, PathGroup{})
		}
		long[i] |= l
		grp := &groups[i]
		grp.Count++
		grp.Shallow += g.Size(id)
		if each != nil {
			each(i, id, grp)
		}
	}
	for i := range groups {
		grp := &groups[i]
		grp.RootKind, grp.RootName, grp.Signature = s.steps(g, nodes[i], long[i])
	}
	return groups, unreached
}

// sortKey orders groups of equal size and count: by root kind, root
// name, then steps.
func sortKey(grp *PathGroup) string {
	key := []byte{byte(grp.RootKind)}
	key = append(key, grp.RootName...)
	for _, st := range grp.Signature {
		key = append(key, 0)
		key = append(key, st.Type...)
		key = append(key, 2)
		key = append(key, st.Name...)
		key = append(key, 1)
		key = append(key, st.Edge...)
	}
	return string(key)
}

// signature returns the collapsed signature of id's shortest path, which
// must exist, and its root, as MergePaths computes them.
func (r *Retainers) signature(id heap.ObjectID) ([]SigStep, heap.RootKind, string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	s := r.sigs()
	k, l := r.target(s, id)
	kind, name, sig := s.steps(r.g, k, l)
	return sig, kind, name
}

// rootOf returns the kind and description of root number i.
func (r *Retainers) rootOf(i heap.Label) (heap.RootKind, string) {
	root := r.roots[i]
	if int(i) >= len(r.g.Roots()) {
		return root.Kind, NativeRootName
	}
	return root.Kind, r.g.String(root.Name)
}

// collapseEdge maps the edge names that vary per entry of a container to
// "[*]": indices ([17]), bracketed keys (['key'], [42]), names that are
// all digits (V8 names the slots of a Map's table "1020") and V8's names
// of WeakMap entries ("1 / part of key (Key @9) -> value (Meta @11)
// pair in WeakMap (table @7)").
func collapseEdge(name string) string {
	if len(name) >= 2 && name[0] == '[' && name[len(name)-1] == ']' {
		return "[*]"
	}
	if name != "" && strings.Trim(name, "0123456789") == "" {
		return "[*]"
	}
	if strings.Contains(name, ") pair in WeakMap (table @") {
		return "[*]" // V8 names each WeakMap entry by its key, value and table
	}
	return name
}
