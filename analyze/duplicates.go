package analyze

import (
	"cmp"
	"slices"

	"github.com/heapscope/heapscope/heap"
)

// DupGroup is a set of objects with equal content.
type DupGroup struct {
	Type string
	// Items is false for objects with equal content digests (strings,
	// byte strings), true for objects holding the same item objects
	// (tuples, frozensets).
	Items   bool
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

	hash uint64 // the digest, or the hash of the items
}

// itemTypes are the types whose instances are duplicates when they hold
// the same objects; ordered says whether the order of the items matters.
var itemTypes = map[string]map[string]bool{
	"python": {"tuple": true, "frozenset": false},
}

// Duplicates finds objects with equal content, sorted by wasted bytes,
// then count (largest first), then type name, then example ID; top > 0
// keeps the first top groups. r may be nil (HeldBy is then left empty).
//
// Content duplicates are objects of one type and shallow size whose
// digests (g.Digest: strings, byte strings) are equal; a digest is a
// 64-bit hash, so two different strings may, very rarely, be taken for
// copies. Item duplicates are Python tuples holding the same objects in
// the same order and frozensets holding the same set of objects (their
// non-weak edge targets are compared exactly); tuples without edges are
// left out. Each group wastes (Count-1) × Size bytes.
func Duplicates(g *heap.Graph, r *Retainers, top int) []DupGroup {
	var out []DupGroup
	out = append(out, contentDups(g)...)
	out = append(out, itemDups(g)...)
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
			d := newDup(g, recs[i].id, j-i, false)
			d.hash = recs[i].dig
			out = append(out, d)
		}
		i = j
	}
	return out
}

func newDup(g *heap.Graph, example heap.ObjectID, count int, items bool) DupGroup {
	size := g.Size(example)
	return DupGroup{Type: g.TypeName(g.Type(example)), Items: items, Size: size, Count: count,
		Wasted: uint64(count-1) * size, Example: example}
}

// itemDups groups tuples and frozensets by a hash of their items, then
// compares the item lists of equal hashes exactly.
func itemDups(g *heap.Graph) []DupGroup {
	kinds := itemTypes[g.Meta().Runtime]
	if len(kinds) == 0 {
		return nil
	}
	ordered := make([]int8, g.NumTypes()) // 0 no, 1 ordered, 2 unordered
	anyType := false
	for t := range ordered {
		if o, ok := kinds[g.TypeName(heap.TypeID(t))]; ok {
			ordered[t] = 2
			if o {
				ordered[t] = 1
			}
			anyType = true
		}
	}
	if !anyType {
		return nil
	}
	type rec struct {
		typ  heap.TypeID
		hash uint64
		id   heap.ObjectID
	}
	var recs []rec
	var buf []heap.ObjectID
	for v, t := range g.Types() {
		if ordered[t] == 0 {
			continue
		}
		buf = itemList(g, heap.ObjectID(v), ordered[t] == 2, buf[:0])
		if len(buf) == 0 {
			continue
		}
		recs = append(recs, rec{t, itemHash(buf), heap.ObjectID(v)})
	}
	slices.SortFunc(recs, func(a, b rec) int {
		if c := cmp.Compare(a.typ, b.typ); c != 0 {
			return c
		}
		if c := cmp.Compare(a.hash, b.hash); c != 0 {
			return c
		}
		return cmp.Compare(a.id, b.id)
	})
	var out []DupGroup
	var a, b []heap.ObjectID
	for i := 0; i < len(recs); {
		j := i + 1
		for j < len(recs) && recs[j].typ == recs[i].typ && recs[j].hash == recs[i].hash {
			j++
		}
		// Split the run into classes of exactly equal item lists.
		unord := ordered[recs[i].typ] == 2
		done := make([]bool, j-i)
		for x := i; x < j; x++ {
			if done[x-i] {
				continue
			}
			a = itemList(g, recs[x].id, unord, a[:0])
			count := 1
			for y := x + 1; y < j; y++ {
				if done[y-i] || g.Size(recs[y].id) != g.Size(recs[x].id) {
					continue
				}
				b = itemList(g, recs[y].id, unord, b[:0])
				if slices.Equal(a, b) {
					done[y-i] = true
					count++
				}
			}
			if count > 1 {
				d := newDup(g, recs[x].id, count, true)
				d.hash = recs[x].hash
				out = append(out, d)
			}
		}
		i = j
	}
	return out
}

// itemHash is FNV-1a over item IDs.
func itemHash(items []heap.ObjectID) uint64 {
	h := uint64(14695981039346656037)
	for _, x := range items {
		h ^= uint64(x)
		h *= 1099511628211
	}
	return h
}

// itemList appends the targets of id's non-weak edges to buf, sorted when
// the order does not matter.
func itemList(g *heap.Graph, id heap.ObjectID, sorted bool, buf []heap.ObjectID) []heap.ObjectID {
	for _, e := range g.Edges(id) {
		if e.Label.Kind() != heap.Weak {
			buf = append(buf, e.To)
		}
	}
	if sorted {
		slices.Sort(buf)
	}
	return buf
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
	items := map[key][]int{}
	for i := range groups {
		d := &groups[i]
		k := key{g.Type(d.Example), d.Size, d.hash}
		if d.Items {
			items[k] = append(items[k], i)
		} else {
			content[k] = i
		}
	}
	if len(content) > 0 {
		for id, dig := range g.Digests() {
			if i, ok := content[key{g.Type(id), g.Size(id), dig}]; ok {
				add(i, id)
			}
		}
	}
	if len(items) > 0 {
		kinds := itemTypes[g.Meta().Runtime]
		var buf, want []heap.ObjectID
		for v, t := range g.Types() {
			ordered, ok := kinds[g.TypeName(t)]
			if !ok {
				continue
			}
			id := heap.ObjectID(v)
			buf = itemList(g, id, !ordered, buf[:0])
			for _, i := range items[key{t, g.Size(id), itemHash(buf)}] {
				want = itemList(g, groups[i].Example, !ordered, want[:0])
				if slices.Equal(buf, want) {
					add(i, id)
					break
				}
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
