package analyze

import (
	"cmp"
	"slices"

	"github.com/heapscope/heapscope/heap"
)

// TypeStat sums the objects of one type.
type TypeStat struct {
	Type heap.TypeID
	Name string
	// Classes names the family of classes (see [TypeDelta]) a row of
	// class objects counts; "" for other rows. RetainedByType gives the
	// families of more than one class rows of their own.
	Classes string `json:",omitempty"`
	Count   int    // objects of the type
	Shallow uint64 // their shallow sizes
	// Retained is what [RetainedByType] says: the retained sizes of the
	// instances that have no strict dominator of the same type. It is 0
	// for unreachable objects.
	Retained uint64
}

// cmpTypeStat orders by retained size, then shallow size (both largest
// first), then name, then type ID.
func cmpTypeStat(a, b TypeStat) int {
	if c := cmp.Compare(b.Retained, a.Retained); c != 0 {
		return c
	}
	if c := cmp.Compare(b.Shallow, a.Shallow); c != 0 {
		return c
	}
	if c := cmp.Compare(a.Name, b.Name); c != 0 {
		return c
	}
	if c := cmp.Compare(a.Type, b.Type); c != 0 {
		return c
	}
	return cmp.Compare(a.Classes, b.Classes)
}

// RetainedByType returns, for every type with reachable instances, their
// count, shallow size and retained size, sorted by retained size, then
// shallow size (largest first), then name, then type ID.
//
// The retained size of type T counts each object once: it is the sum of
// Retained(x) over the instances x of T that have no strict ancestor of
// type T in the dominator tree (instances under another instance are
// already in that one's retained size). It is the memory freed by
// removing the instances of T that dominate, and a lower bound of the
// memory freed by removing every instance of T: an object held by two
// instances of T and by nothing else is dominated by neither, so it is
// not counted (Eclipse MAT calls this sum "approximate" too). For the
// exact figure of one set of objects use [RetainedBySet].
func RetainedByType(t *DomTree) []TypeStat {
	g := t.g
	sizes := g.Sizes()
	group, fams := classGroups(g)
	stats := make([]TypeStat, g.NumTypes()+len(fams))
	open := make([]uint32, len(stats)) // instances of the type on the current tree path
	t.walk(func(v uint32) {
		ty := group(v)
		s := &stats[ty]
		s.Count++
		s.Shallow += sizes[v]
		if open[ty] == 0 {
			s.Retained += t.retained[v]
		}
		open[ty]++
	}, func(v uint32) {
		open[group(v)]--
	})
	out := stats[:0]
	for i, s := range stats {
		if s.Count > 0 {
			if i < g.NumTypes() {
				s.Type = heap.TypeID(i)
			} else {
				s.Type, s.Classes = fams[i-g.NumTypes()].typ, fams[i-g.NumTypes()].label
			}
			s.Name = g.TypeName(s.Type)
			out = append(out, s)
		}
	}
	slices.SortFunc(out, cmpTypeStat)
	return slices.Clip(out)
}

// UnreachableStats describes the objects no root reaches through
// retaining edges: garbage the runtime had not collected yet, objects
// held only weakly, or objects held by something the snapshot does not
// show (see [NativeHeld]). They are not in the dominator tree.
type UnreachableStats struct {
	Count  int
	Bytes  uint64     // shallow sizes summed
	ByType []TypeStat // Retained is 0; sorted by Shallow, then name, then type ID
	// Weak counts those of them that the roots reach through edges
	// which do not retain (a Java SoftReference's or WeakReference's
	// referent, and what it holds): alive in the runtime, but not
	// retained by anything. WeakBytes sums their shallow sizes.
	Weak      int
	WeakBytes uint64
}

// Unreachables summarizes the objects left out of t.
func Unreachables(t *DomTree) UnreachableStats {
	g := t.g
	typ := g.Types()
	sizes := g.Sizes()
	stats := make([]TypeStat, g.NumTypes())
	var u UnreachableStats
	for v, d := range t.idom {
		if d != uint32(Unreachable) {
			continue
		}
		u.Count++
		u.Bytes += sizes[v]
		stats[typ[v]].Count++
		stats[typ[v]].Shallow += sizes[v]
	}
	for i, s := range stats {
		if s.Count > 0 {
			s.Type = heap.TypeID(i)
			s.Name = g.TypeName(s.Type)
			u.ByType = append(u.ByType, s)
		}
	}
	slices.SortFunc(u.ByType, cmpTypeStat)
	if u.Count > 0 {
		u.Weak, u.WeakBytes = weaklyReached(t)
	}
	return u
}

// weaklyReached counts the objects left out of t that a reachable object
// reaches through an edge, of any kind, and through what they refer to:
// the edges from reachable objects to unreachable ones are those that do
// not retain.
func weaklyReached(t *DomTree) (int, uint64) {
	g := t.g
	seen := newBitset(g.NumObjects())
	var stack []heap.ObjectID
	push := func(to heap.ObjectID) {
		if int(to) < len(t.idom) && t.idom[to] == uint32(Unreachable) && !seen.has(uint32(to)) {
			seen.set(uint32(to))
			stack = append(stack, to)
		}
	}
	for v, d := range t.idom {
		if d == uint32(Unreachable) {
			continue
		}
		for _, e := range g.Edges(heap.ObjectID(v)) {
			push(e.To)
		}
	}
	n, bytes := 0, uint64(0)
	for len(stack) > 0 {
		v := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		n++
		bytes += g.Size(v)
		for _, e := range g.Edges(v) {
			push(e.To)
		}
	}
	return n, bytes
}

// TopRetained returns the k reachable objects with the largest retained
// sizes (all when k <= 0), largest first, then by ID.
//
// For k > 0 it keeps a min-heap of the k best while it scans the objects
// once (O(n log k) time, 4k bytes); for all of them it sorts (retained,
// ID) pairs, whose comparisons read no other memory, 16 bytes per
// reachable object while it runs.
func TopRetained(t *DomTree, k int) []heap.ObjectID {
	if k <= 0 || k >= t.reachable {
		return allByRetained(t)
	}
	ret := t.retained
	// h is a min-heap under cmpRetained's order: h[0] is the worst kept.
	h := make([]uint32, 0, k)
	worse := func(a, b uint32) bool { return cmpRetained(ret, a, b) > 0 }
	for v, d := range t.idom {
		if d == uint32(Unreachable) {
			continue
		}
		x := uint32(v)
		if len(h) < k {
			h = append(h, x)
			for i := len(h) - 1; i > 0; { // sift up
				p := (i - 1) / 2
				if !worse(h[i], h[p]) {
					break
				}
				h[i], h[p] = h[p], h[i]
				i = p
			}
			continue
		}
		if !worse(h[0], x) {
			continue // x is no better than the worst kept
		}
		h[0] = x
		for i := 0; ; { // sift down
			l, m := 2*i+1, i
			if l < len(h) && worse(h[l], h[m]) {
				m = l
			}
			if r := l + 1; r < len(h) && worse(h[r], h[m]) {
				m = r
			}
			if m == i {
				break
			}
			h[i], h[m] = h[m], h[i]
			i = m
		}
	}
	out := u32ids(h)
	slices.SortFunc(out, func(a, b heap.ObjectID) int { return cmpRetained(ret, uint32(a), uint32(b)) })
	return out
}

// allByRetained returns every reachable object by retained size, largest
// first, then by ID.
func allByRetained(t *DomTree) []heap.ObjectID {
	type pair struct {
		ret uint64
		id  uint32
	}
	pairs := make([]pair, 0, t.reachable)
	for v, d := range t.idom {
		if d != uint32(Unreachable) {
			pairs = append(pairs, pair{t.retained[v], uint32(v)})
		}
	}
	slices.SortFunc(pairs, func(a, b pair) int {
		if c := cmp.Compare(b.ret, a.ret); c != 0 {
			return c
		}
		return cmp.Compare(a.id, b.id)
	})
	out := make([]heap.ObjectID, len(pairs))
	for i, p := range pairs {
		out[i] = heap.ObjectID(p.id)
	}
	return out
}

// RetainedBySet returns the exact memory freed by removing every object
// in set: the count and shallow bytes of the reachable objects that no
// root reaches any more once the set is gone (the set's own reachable
// members included). It searches the graph again, with t's roots and
// edge semantics, in O(objects + edges) time, with two bitsets and a
// stack of at most 4 bytes per object.
// For one object it equals Retained; for all instances of a type it is
// at least the type's [RetainedByType] figure.
func RetainedBySet(t *DomTree, set []heap.ObjectID) (count int, bytes uint64) {
	g := t.g
	n := g.NumObjects()
	removed := newBitset(n)
	for _, x := range set {
		if int(x) < n {
			removed.set(uint32(x))
		}
	}
	isRoot := rootBits(g)
	seen := newBitset(n)
	var queue []uint32
	push := func(v uint32) {
		if !removed.has(v) && !seen.has(v) {
			seen.set(v)
			queue = append(queue, v)
		}
	}
	for _, r := range g.Roots() {
		push(uint32(r.Object))
	}
	for _, r := range t.extra {
		push(uint32(r))
	}
	for _, r := range t.hung {
		push(uint32(r))
	}
	edges := g.AllEdges()
	for len(queue) > 0 {
		v := queue[len(queue)-1]
		queue = queue[:len(queue)-1]
		s, e := g.EdgeRange(heap.ObjectID(v))
		for _, ed := range edges[s:e] {
			if retains(ed.Label, heap.ObjectID(v), isRoot) {
				push(uint32(ed.To))
			}
		}
	}
	sizes := g.Sizes()
	for v, d := range t.idom {
		if d != uint32(Unreachable) && !seen.has(uint32(v)) {
			count++
			bytes += sizes[v]
		}
	}
	return count, bytes
}

// rootBits returns the set of objects listed in g.Roots(), or nil when
// there are none.
func rootBits(g *heap.Graph) bitset {
	if len(g.Roots()) == 0 {
		return nil
	}
	b := newBitset(g.NumObjects())
	for _, r := range g.Roots() {
		b.set(uint32(r.Object))
	}
	return b
}

// TopMost returns the members of set (given in any order, duplicates
// allowed) that have no strict ancestor in set in the dominator tree,
// in ID order, and the sum of their retained sizes: the memory the set
// retains, each object counted once. Unreachable members are dropped.
func TopMost(t *DomTree, set []heap.ObjectID) ([]heap.ObjectID, uint64) {
	in := newBitset(t.n)
	for _, x := range set {
		if int(x) < t.n && t.Reachable(x) {
			in.set(uint32(x))
		}
	}
	var out []heap.ObjectID
	var sum uint64
	depth := 0
	t.walk(func(v uint32) {
		if in.has(v) {
			if depth == 0 {
				out = append(out, heap.ObjectID(v))
				sum += t.retained[v]
			}
			depth++
		}
	}, func(v uint32) {
		if in.has(v) {
			depth--
		}
	})
	slices.Sort(out)
	return out, sum
}

// walk visits the dominator tree in preorder, children in Children
// order, calling enter when it reaches an object and leave when it has
// visited the object's subtree. SuperRoot itself is not visited. The
// stack holds one child cursor per open object (4 bytes per level), so
// deep chains need no recursion.
func (t *DomTree) walk(enter, leave func(v uint32)) {
	ks, kids := t.kidStart, t.kids
	stack := []uint32{ks[t.n]}
	for len(stack) > 0 {
		top := len(stack) - 1
		v := uint32(t.n)
		if top > 0 {
			v = kids[stack[top-1]-1]
		}
		if c := stack[top]; c < ks[v+1] {
			stack[top]++
			w := kids[c]
			enter(w)
			stack = append(stack, ks[w])
			continue
		}
		stack = stack[:top]
		if top > 0 {
			leave(v)
		}
	}
}

// ByRetained returns objs ordered by retained size, largest first, then
// by ID; objs is not changed.
func ByRetained(t *DomTree, objs []heap.ObjectID) []heap.ObjectID {
	out := slices.Clone(objs)
	slices.SortFunc(out, func(a, b heap.ObjectID) int {
		if c := cmp.Compare(t.Retained(b), t.Retained(a)); c != 0 {
			return c
		}
		return cmp.Compare(a, b)
	})
	return out
}
