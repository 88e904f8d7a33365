package analyze

import (
	"github.com/heapscope/heapscope/heap"
)

// placeCounts counts, in target and final, the objects held at given
// path signatures, one type at a time and once per type (see
// countSignature), so that many findings cost one count of each type
// they name. It builds a snapshot's shortest paths only when a count
// needs them, and no dominator tree for that.
type placeCounts struct {
	gs    [2]*heap.Graph
	sps   [2]*snapshotPaths
	memo  [2]map[string]map[string]int            // per snapshot: type -> group key -> objects
	paths func(*heap.Graph) (snapshotPaths, bool) // see newPlaceCounts
}

// newPlaceCounts counts in target and final; paths returns a
// snapshot's paths when the caller has built them already.
func newPlaceCounts(target, final *heap.Graph, paths func(*heap.Graph) (snapshotPaths, bool)) *placeCounts {
	pc := &placeCounts{gs: [2]*heap.Graph{target, final}, paths: paths}
	for i := range pc.memo {
		pc.memo[i] = map[string]map[string]int{}
	}
	return pc
}

// of returns snapshot i's paths (0 target, 1 final).
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
// and final, each group counting the objects of its own last step's
// type (and class family), each group key once.
func (pc *placeCounts) sum(groups []famGroup) [2]int {
	var out [2]int
	seen := map[string]bool{}
	for _, fg := range groups {
		k := fg.key()
		if seen[k] {
			continue
		}
		seen[k] = true
		for i := range out {
			out[i] += countSignature(pc.of(i), fg, pc.memo[i])
		}
	}
	return out
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
	g := fin.r.g
	for _, x := range gained {
		if g.TypeName(g.Type(x)) != main {
			continue
		}
		sig, kind, root := fin.r.signature(x)
		sig, _ = fin.foldSig(sig)
		groups = append(groups, famGroup{PathGroup: PathGroup{RootKind: kind, RootName: root, Signature: sig, Count: 1}, fam: fin.c.family[x]})
	}
	counts = pc.sum(groups)
	return counts, counts[1] <= counts[0]
}
