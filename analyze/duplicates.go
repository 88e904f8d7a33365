package analyze

import (
	"cmp"
	"slices"

	"github.com/heapscope/heapscope/heap"
)

// DupGroup is a set of objects with equal content: strings or byte
// strings. (Structures equal by value are [ValueGroup]s.)
type DupGroup struct {
	Type    string
	Size    uint64 // shallow size of each copy
	Count   int
	Wasted  uint64        // (Count-1) × Size
	Example heap.ObjectID // the copy with the lowest ID
	Value   string        // its value label (g.Value), "" when it has none
	// HeldBy is where the copies are held: the most common last step of
	// their shortest paths (the parent's type and the collapsed edge
	// name, see [MergePaths]), and how many copies it holds. Empty when
	// Duplicates had no Retainers.
	HeldBy    SigStep
	HeldCount int

	hash uint64 // the digest
}

// Duplicates finds objects with equal content, sorted by wasted bytes,
// then count (largest first), then type name, then example ID; top > 0
// keeps the first top groups. r may be nil (HeldBy is then left empty).
//
// Content duplicates are objects of one type and shallow size whose
// digests (g.Digest: strings, byte strings) are equal; a digest is a
// 64-bit hash, so two different strings may, very rarely, be taken for
// copies. Each group wastes (Count-1) × Size bytes. Structures equal by
// value (tuples, instances, the same type built again and again) are
// [ValueDuplicates]'.
func Duplicates(g *heap.Graph, r *Retainers, top int) []DupGroup {
	out := contentDups(g)
	slices.SortFunc(out, func(a, b DupGroup) int {
		if c := cmp.Compare(b.Wasted, a.Wasted); c != 0 {
			return c
		}
		if c := cmp.Compare(b.Count, a.Count); c != 0 {
			return c
		}
		if c := cmp.Compare(a.Type, b.Type); c != 0 {
			return c
		}
		return cmp.Compare(a.Example, b.Example)
	})
	if top > 0 && len(out) > top {
		out = slices.Clip(out[:top])
	}
	for i := range out {
		out[i].Value, _ = g.Value(out[i].Example)
	}
	if r != nil {
		heldBy(g, r, out)
	}
	return out
}

type digestRec struct {
	typ  heap.TypeID
	size uint64
	dig  uint64
	id   heap.ObjectID
}

func contentDups(g *heap.Graph) []DupGroup {
	var recs []digestRec
	for id, d := range g.Digests() {
		recs = append(recs, digestRec{g.Type(id), g.Size(id), d, id})
	}
	slices.SortFunc(recs, func(a, b digestRec) int {
		if c := cmp.Compare(a.typ, b.typ); c != 0 {
			return c
		}
		if c := cmp.Compare(a.size, b.size); c != 0 {
			return c
		}
		if c := cmp.Compare(a.dig, b.dig); c != 0 {
			return c
		}
		return cmp.Compare(a.id, b.id)
	})
	var out []DupGroup
	for i := 0; i < len(recs); {
		j := i + 1
		for j < len(recs) && recs[j].typ == recs[i].typ && recs[j].size == recs[i].size && recs[j].dig == recs[i].dig {
			j++
		}
		if j-i > 1 {
			d := newDup(g, recs[i].id, j-i)
			d.hash = recs[i].dig
			out = append(out, d)
		}
		i = j
	}
	return out
}

func newDup(g *heap.Graph, example heap.ObjectID, count int) DupGroup {
	size := g.Size(example)
	return DupGroup{Type: g.TypeName(g.Type(example)), Size: size, Count: count,
		Wasted: uint64(count-1) * size, Example: example}
}

// heldBy fills HeldBy for every group in one pass over the candidates:
// the most common last path step of the group's copies (ties: by type,
// then edge name).
func heldBy(g *heap.Graph, r *Retainers, groups []DupGroup) {
	counts := make([]map[SigStep]int, len(groups))
	add := func(i int, x heap.ObjectID) {
		p, l := r.Parent(x)
		var s SigStep
		switch p {
		case Unreachable:
			return
		case SuperRoot:
			s = SigStep{Type: "root " + r.roots[l].Kind.String()}
		default:
			s = SigStep{Type: g.TypeName(g.Type(p)), Edge: collapseEdge(g.EdgeName(l))}
			s.Name, _ = g.Name(p)
		}
		if counts[i] == nil {
			counts[i] = map[SigStep]int{}
		}
		counts[i][s]++
	}
	type key struct {
		typ  heap.TypeID
		size uint64
		hash uint64
	}
	content := map[key]int{}
	for i := range groups {
		d := &groups[i]
		content[key{g.Type(d.Example), d.Size, d.hash}] = i
	}
	if len(content) > 0 {
		for id, dig := range g.Digests() {
			if i, ok := content[key{g.Type(id), g.Size(id), dig}]; ok {
				add(i, id)
			}
		}
	}
	for i, c := range counts {
		var best SigStep
		n := 0
		for s, k := range c {
			if k > n || (k == n && cmpSigStep(s, best) < 0) {
				best, n = s, k
			}
		}
		groups[i].HeldBy, groups[i].HeldCount = best, n
	}
}

// cmpSigStep orders steps by type, then name, then edge name.
func cmpSigStep(a, b SigStep) int {
	return cmp.Or(cmp.Compare(a.Type, b.Type), cmp.Compare(a.Name, b.Name), cmp.Compare(a.Edge, b.Edge))
}
