package analyze

import (
	"maps"
	"slices"

	"github.com/heapscope/heapscope/heap"
)

// placeCounts counts, in baseline, target and final, the objects held
// at given path signatures, one type at a time and once per type (see
// countSignature), so that many findings cost one count of each type
// they name. It builds a snapshot's shortest paths only when a count
// needs them, and no dominator tree for that.
type placeCounts struct {
	gs    [3]*heap.Graph
	sps   [3]*snapshotPaths
	memo  [3]map[string]map[string]int            // per snapshot: type -> group key -> objects
	paths func(*heap.Graph) (snapshotPaths, bool) // see newPlaceCounts
}

// newPlaceCounts counts in baseline, target and final; paths returns a
// snapshot's paths when the caller has built them already.
func newPlaceCounts(baseline, target, final *heap.Graph, paths func(*heap.Graph) (snapshotPaths, bool)) *placeCounts {
	pc := &placeCounts{gs: [3]*heap.Graph{baseline, target, final}, paths: paths}
	for i := range pc.memo {
		pc.memo[i] = map[string]map[string]int{}
	}
	return pc
}

// of returns snapshot i's paths (0 baseline, 1 target, 2 final).
func (pc *placeCounts) of(i int) snapshotPaths {
	if pc.sps[i] == nil {
		sp, ok := pc.paths(pc.gs[i])
		if !ok {
			g := pc.gs[i]
			sp = snapshotPaths{r: ShortestPaths(g, PathOptions{ExtraRoots: NativeRoots(NativeHeld(g))}), c: newClassIndex(g)}
		}
		pc.sps[i] = &sp
	}
	return *pc.sps[i]
}

// sum returns how many objects the groups' signatures hold in target
// and final (see count).
func (pc *placeCounts) sum(groups []famGroup) [2]int {
	return [2]int{pc.count(1, groups), pc.count(2, groups)}
}

// count returns how many objects the groups' signatures hold in
// snapshot i (0 baseline, 1 target, 2 final), each group counting the
// objects of its own last step's type (and class family), each group
// key once.
func (pc *placeCounts) count(i int, groups []famGroup) int {
	n := 0
	seen := map[string]bool{}
	for _, fg := range groups {
		k := fg.key()
		if seen[k] {
			continue
		}
		seen[k] = true
		n += countSignature(pc.of(i), fg, pc.memo[i])
	}
	return n
}

// turnover reports whether a finding that gained objects by identity
// from target to final (objects of final that [Matcher] does not find
// in target) holds no more of them in final than in target by count,
// and returns the counts in target and final. It counts what
// [Gains].New counts, objects of main, the type of the finding's
// biggest part: those at the signatures of its parts of that type and
// of the objects of that type its place gained (gained, objects of
// final, which fin's paths reach).
//
// Identity takes a new object at a reused address, in the same slot of
// the same holder, for the old one: where a bounded cache (a
// functools.lru_cache, whose references to its results have no names)
// frees entries and makes new ones at the freed addresses, new objects
// below them look like objects of target that gained more, a place that
// grows, though the cache holds as many as before. Counting by path
// cannot mistake one object for another: a place whose paths hold no
// more in final than in target did not grow, whatever identity matched,
// and what it gained took the place of what it lost. A real leak grows
// in count too (a chain longer each time counts its new nodes at their
// own signature, which the gained objects bring in).
func turnover(pc *placeCounts, fin snapshotPaths, main string, parts []famGroup, gained []heap.ObjectID) (counts [2]int, ok bool) {
	var groups []famGroup
	for _, fg := range parts {
		if n := len(fg.Signature); n > 0 && fg.Signature[n-1].Type == main {
			groups = append(groups, fg)
		}
	}
	groups = append(groups, gainedGroups(fin, gained, func(t string) bool { return t == main })...)
	counts = pc.sum(groups)
	return counts, counts[1] <= counts[0]
}

// gainedGroups returns a group of one object for each object of objs
// (objects of final, which fin's paths reach) whose type keep accepts:
// its path signature in final, folded as counts fold it, and its class
// family.
func gainedGroups(fin snapshotPaths, objs []heap.ObjectID, keep func(string) bool) []famGroup {
	var groups []famGroup
	g := fin.r.g
	for _, x := range objs {
		if !keep(g.TypeName(g.Type(x))) {
			continue
		}
		sig, kind, root := fin.r.signature(x)
		sig, _ = fin.foldSig(sig)
		groups = append(groups, famGroup{PathGroup: PathGroup{RootKind: kind, RootName: root, Signature: sig, Count: 1}, fam: fin.c.family[x]})
	}
	return groups
}

// grewInside decides for a finding that gained no objects of main, the
// type of its biggest part, from target to final, or only by identity
// (see turnover), whether what its objects hold grew: inside is what
// its place gained from target to final inside objects of target (an
// object the place held since target is on its path: objects appended
// to a list that a field of the baseline's objects was set to once).
// Those of main are the finding's own gains, which the caller counted
// already; for each other type, grewInside counts by path, in target
// and final, the objects of that type at the signatures of those that
// are of it, as turnover does, and the finding grows when final holds
// more of one type: a list set once per object, whose count stays
// constant while its entries grow with the work, is a leak. It returns
// the type that grew the most, with how many of its objects identity
// saw gained and the counts, and the groups it counted them at; ok is
// false when no type grew by count (objects replaced inside objects of
// target, a field set anew each round, took the place of those they
// replaced).
func grewInside(pc *placeCounts, fin snapshotPaths, main string, inside []heap.ObjectID) (in Inside, at []famGroup, ok bool) {
	g := fin.r.g
	byType := map[string][]heap.ObjectID{}
	for _, x := range inside {
		if t := g.TypeName(g.Type(x)); t != main {
			byType[t] = append(byType[t], x)
		}
	}
	for _, t := range slices.Sorted(maps.Keys(byType)) {
		objs := byType[t]
		groups := gainedGroups(fin, objs, func(string) bool { return true })
		n := pc.sum(groups)
		if n[1] > n[0] && (!ok || n[1]-n[0] > in.Held[1]-in.Held[0]) {
			in, at, ok = Inside{Type: t, New: len(objs), Held: n}, groups, true
		}
	}
	return in, at, ok
}
