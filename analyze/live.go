package analyze

import "github.com/heapscope/heapscope/heap"

// hungObjects returns, for a snapshot whose objects were all alive when
// it was taken (g.Meta().Live), the objects that the roots do not reach
// through retaining edges, to hang under the super-root as DevTools
// does (buildDominatorTree: nodes with only non-essential retainers
// become children of the root). They are held through edges that do
// not retain in the model: weak edges, and the edges a reader demoted
// (V8's non-essential ones, such as a WeakMap's table to a value, or an
// edge into the page from an object outside it).
//
// Only the entries are returned, so that what they retain stays under
// them: first the unreached targets of non-retaining edges from reached
// objects, layer by layer (each layer's retaining closure reached
// before the next layer's entries are taken), then, in ID order, any
// object still unreached (held by nothing the snapshot shows, or by a
// cycle of such objects) with its retaining closure. It returns nil
// for other snapshots. Time O(objects + edges); memory a bitset and a
// queue of 4 bytes per object.
func hungObjects(g *heap.Graph, rootList []uint32, isRoot bitset) []heap.ObjectID {
	if !g.Meta().Live {
		return nil
	}
	n := g.NumObjects()
	edges := g.AllEdges()
	seen := newBitset(n)
	var queue []uint32
	closure := func(from int) {
		for head := from; head < len(queue); head++ {
			v := heap.ObjectID(queue[head])
			s, e := g.EdgeRange(v)
			for _, ed := range edges[s:e] {
				if !seen.has(uint32(ed.To)) && retains(ed.Label, v, isRoot) {
					seen.set(uint32(ed.To))
					queue = append(queue, uint32(ed.To))
				}
			}
		}
	}
	for _, r := range rootList {
		if !seen.has(r) {
			seen.set(r)
			queue = append(queue, r)
		}
	}
	closure(0)
	var hung []heap.ObjectID
	for lo := 0; lo < len(queue); {
		hi := len(queue)
		for _, u := range queue[lo:hi] {
			v := heap.ObjectID(u)
			s, e := g.EdgeRange(v)
			for _, ed := range edges[s:e] {
				if !seen.has(uint32(ed.To)) {
					seen.set(uint32(ed.To))
					queue = append(queue, uint32(ed.To))
					hung = append(hung, ed.To)
				}
			}
		}
		lo = hi
		closure(hi)
	}
	for v := range n {
		if !seen.has(uint32(v)) {
			seen.set(uint32(v))
			from := len(queue)
			queue = append(queue, uint32(v))
			hung = append(hung, heap.ObjectID(v))
			closure(from)
		}
	}
	return hung
}

// hangUnder moves every child of the super-root but r under r, the
// graph's only root object, as if r had an edge to each object hung
// under the super-root: DevTools' root node is that object, so the hung
// objects, and what both they and r reach (which the super-root would
// otherwise dominate), are under it. Dominance below is unchanged: an
// object that some object other than the super-root dominated is
// dominated by it still. Time and extra memory O(objects).
func (t *DomTree) hangUnder(r heap.ObjectID) {
	n := t.n
	ks, kids := t.kidStart, t.kids
	top := kids[ks[n]:ks[n+1]]
	if len(top) <= 1 {
		return
	}
	out := make([]uint32, 0, len(kids))
	start := make([]uint32, n+2)
	for p := 0; p < n; p++ {
		start[p] = uint32(len(out))
		out = append(out, kids[ks[p]:ks[p+1]]...)
		if p != int(r) {
			continue
		}
		for _, x := range top {
			if x != uint32(r) {
				out = append(out, x)
				t.idom[x] = uint32(r)
				t.retained[r] += t.retained[x]
			}
		}
	}
	start[n] = uint32(len(out))
	out = append(out, uint32(r))
	start[n+1] = uint32(len(out))
	t.kidStart, t.kids = start, out
}
