package analyze

import (
	"cmp"
	"maps"
	"slices"
	"strings"

	"github.com/heapscope/heapscope/heap"
)

// snapshotPaths is a snapshot's shortest paths and dominator tree, with
// the objects held outside the heap as extra roots, so that path
// signatures agree across the snapshots of one comparison.
type snapshotPaths struct {
	r *Retainers
	t *DomTree
	c *classIndex
}

func newSnapshotPaths(g *heap.Graph) snapshotPaths {
	extra := NativeRoots(NativeHeld(g))
	return snapshotPaths{
		r: ShortestPaths(g, PathOptions{ExtraRoots: extra}),
		t: Dominators(g, DomOptions{ExtraRoots: extra}),
		c: newClassIndex(g),
	}
}

// merge is [MergePaths] that keeps the classes of each family (see
// [classIndex]) apart from other objects and other families: groups of
// one family, then of none, in MergePaths' order.
func (sp snapshotPaths) merge(objs []heap.ObjectID) (groups []famGroup, unreached int) {
	return sp.mergeSites(objs, nil)
}

// mergeSites is merge, with the sites of objects the graph has none for
// taken from alt (see siteTally).
func (sp snapshotPaths) mergeSites(objs []heap.ObjectID, alt *heap.Graph) (groups []famGroup, unreached int) {
	return sp.group(objs, func(objs []heap.ObjectID) ([]PathGroup, int) { return mergePaths(sp.r, sp.t, objs, alt) })
}

// members returns, for each of groups (made by merge from objects that
// t's reachable objects include), its objects: those whose key (see
// famGroup.key) is the group's.
func (sp snapshotPaths) members(groups []famGroup, objs []heap.ObjectID) [][]heap.ObjectID {
	at := make(map[string]int, len(groups))
	for i, fg := range groups {
		at[fg.key()] = i
	}
	out := make([][]heap.ObjectID, len(groups))
	for _, id := range objs {
		if !sp.r.Reached(id) {
			continue
		}
		if i, ok := at[sp.objectKey(id)]; ok {
			out[i] = append(out[i], id)
		}
	}
	return out
}

// count adds to m the number of objects of objs in each group (by
// famGroup.key) that merge would make, without what else merge says of
// the groups (their samples and retained sizes), which costs far more.
func (sp snapshotPaths) count(objs []heap.ObjectID, m map[string]int) {
	groups, _ := sp.group(objs, func(objs []heap.ObjectID) ([]PathGroup, int) { return countPaths(sp.r, objs), 0 })
	for _, grp := range groups {
		m[grp.key()] += grp.Count
	}
}

// group is merge, with the groups of objects of one family (or of none)
// made by merge.
func (sp snapshotPaths) group(objs []heap.ObjectID, merge func([]heap.ObjectID) ([]PathGroup, int)) (groups []famGroup, unreached int) {
	var plain []heap.ObjectID
	byFam := map[string][]heap.ObjectID{}
	for _, id := range objs {
		if k, ok := sp.c.family[id]; ok {
			byFam[k] = append(byFam[k], id)
		} else {
			plain = append(plain, id)
		}
	}
	add := func(objs []heap.ObjectID, fam string) {
		grps, u := merge(objs)
		unreached += u
		for _, g := range grps {
			groups = append(groups, famGroup{PathGroup: g, fam: fam})
		}
	}
	add(plain, "")
	groups = sp.foldGroups(groups)
	if len(byFam) == 0 {
		return groups, unreached
	}
	for _, k := range slices.Sorted(maps.Keys(byFam)) {
		add(byFam[k], k)
	}
	slices.SortStableFunc(groups, func(a, b famGroup) int {
		if c := cmp.Compare(b.Retained, a.Retained); c != 0 {
			return c
		}
		return cmp.Compare(b.Count, a.Count)
	})
	return groups, unreached
}

// objectKey is the key (see famGroup.key) of the group of the object id,
// which a path must reach.
func (sp snapshotPaths) objectKey(id heap.ObjectID) string {
	sig, kind, root := sp.r.signature(id)
	sig, _ = sp.foldSig(sig)
	return famGroup{PathGroup: PathGroup{RootKind: kind, RootName: root, Signature: sig}, fam: sp.c.family[id]}.key()
}

// foldSig returns sig with the types of the classes of large families
// (see classIndex.fold) replaced by their pattern, and so the names of
// those classes on the way, and whether any was (see foldSteps).
func (sp snapshotPaths) foldSig(sig []SigStep) ([]SigStep, bool) {
	return foldSteps(sp.c.fold, sig)
}

// foldSteps returns sig with the types that fold maps (the instances of
// a large family's classes) replaced by their family's pattern, and so
// the names of those classes on the way ("class Gen17" becomes "class
// Gen*": the static fields of one factory's classes are one place), and
// whether any was. It does not modify sig.
func foldSteps(fold map[string]string, sig []SigStep) ([]SigStep, bool) {
	if len(fold) == 0 {
		return sig, false
	}
	var out []SigStep
	for i, st := range sig {
		p, ok := fold[st.Type]
		q, named := foldClassName(fold, st.Name)
		if !ok && !named {
			continue
		}
		if out == nil {
			out = slices.Clone(sig)
		}
		if ok {
			out[i].Type = p
		}
		if named {
			out[i].Name = q
		}
	}
	if out == nil {
		return sig, false
	}
	return out, true
}

// foldClassName returns the name of a class object ("class Gen17") with
// the class's name replaced by its family's pattern ("class Gen*") when
// fold maps it, and whether it does.
func foldClassName(fold map[string]string, name string) (string, bool) {
	class, ok := strings.CutPrefix(name, "class ")
	if !ok {
		return name, false
	}
	p, ok := fold[class]
	if !ok {
		return name, false
	}
	return "class " + p, true
}

// foldGroups sums the groups (in MergePaths' order) whose signatures
// differ only in the types of the classes of a large family: sympy's
// f_17(x) and f_18(x), of the classes f_17 and f_18, held in one cache,
// are one group of f_*. The sum keeps the first group's sample, the
// biggest.
func (sp snapshotPaths) foldGroups(groups []famGroup) []famGroup {
	if len(sp.c.fold) == 0 {
		return groups
	}
	out := groups[:0:0]
	at := map[string]int{}
	types := map[int]map[string]bool{}
	for _, g := range groups {
		sig, folded := sp.foldSig(g.Signature)
		if !folded {
			out = append(out, g)
			continue
		}
		target := g.Signature[len(g.Signature)-1].Type
		g.Signature = sig
		k := g.key()
		i, ok := at[k]
		if !ok {
			i = len(out)
			at[k] = i
			types[i] = map[string]bool{}
			out = append(out, g)
		} else {
			o := &out[i]
			for j := range o.Signature {
				o.Signature[j].Repeated = o.Signature[j].Repeated || sig[j].Repeated
			}
			o.Count += g.Count
			o.Shallow += g.Shallow
			o.Retained += g.Retained
		}
		if sig[len(sig)-1].Type != target {
			types[i][target] = true
		}
	}
	for i, ts := range types {
		out[i].types = len(ts)
	}
	return out
}
