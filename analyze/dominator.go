package analyze

import (
	"runtime"
	"slices"
	"sync"

	"github.com/heapscope/heapscope/heap"
	"github.com/heapscope/heapscope/internal/spill"
)

// SuperRoot names the synthetic node above every root in a [DomTree]. It
// is not an object of the graph: heap allows at most 2^32-2 objects, so
// no ObjectID equals it.
const SuperRoot heap.ObjectID = heap.None - 1

// Unreachable is what [DomTree.Idom] returns for an object that no root
// reaches through retaining edges (and for SuperRoot itself, which has no
// dominator).
const Unreachable heap.ObjectID = heap.None

// NativeRootName is the root description given to the extra roots of
// [DomOptions]: objects held outside the heap (see [NativeHeld]).
const NativeRootName = "held outside the heap"

// DomOptions adjusts [Dominators].
type DomOptions struct {
	// ExtraRoots are objects the super-root also points to, after the
	// graph's own roots, as roots of kind heap.RootNative named
	// [NativeRootName]; typically the objects [NativeHeld] finds. IDs out
	// of range are ignored. They do not make Shortcut edges retain.
	ExtraRoots []heap.ObjectID
}

// retains reports whether an edge with label l leaving object from keeps
// its target alive: Strong and Internal edges do, Weak edges never do,
// Shortcut edges only when they leave a root object (an object listed in
// g.Roots()), as in Chrome DevTools. isRoot reports the latter; it may be
// nil when the graph has no Shortcut edges.
func retains(l heap.Label, from heap.ObjectID, isRoot bitset) bool {
	switch l.Kind() {
	case heap.Strong, heap.Internal:
		return true
	case heap.Shortcut:
		return isRoot.has(uint32(from))
	}
	return false
}

// DomTree is the dominator tree of a heap graph, rooted at [SuperRoot]:
// object d dominates object v when every path from the super-root to v
// through retaining edges (see [DomOptions] and [Dominators]) passes
// through d; d then retains v, and freeing d frees v.
//
// Memory kept: 20 bytes per object (immediate dominator 4, retained size
// 8, children 8). A DomTree is immutable and safe for concurrent use.
type DomTree struct {
	g         *heap.Graph
	n         int
	idom      []uint32 // by object: the dominator's ObjectID, SuperRoot or Unreachable
	retained  []uint64 // by object; [n] is the super-root
	kidStart  []uint32 // CSR by object; index n is the super-root
	kids      []uint32
	reachable int
	extra     []heap.ObjectID
	hung      []heap.ObjectID // see Hung

	orderOnce sync.Once
	pre, end  []uint32 // see dominates
}

// Dominators computes the dominator tree of g and every object's retained
// size.
//
// The flow graph has one super-root with an edge to every root object of
// g.Roots() (in order) and then to every opt.ExtraRoots object. Of the
// graph's edges, Strong and Internal edges retain, Weak edges do not,
// and Shortcut edges retain only from objects listed in g.Roots() (as
// in Chrome DevTools, where they retain only from the snapshot's root).
// Objects no root reaches through retaining edges are unreachable: they
// are left out of the tree (Idom returns [Unreachable], Retained 0) and
// [Unreachables] reports them; pass them as ExtraRoots to see what they
// hold. In a snapshot of live objects only (g.Meta().Live, V8), they
// are alive all the same, held through edges that do not retain: as in
// DevTools, they hang under the root instead (see [DomTree.Hung]): under
// the graph's root object when it has only one, as V8 snapshots do (what
// both it and a hung object reach is then under it too), else under the
// super-root.
//
// The algorithm is SEMI-NCA (Georgiadis, "Linear-time algorithms for
// dominators and related problems", PhD thesis, Princeton 2005;
// Georgiadis, Tarjan, Werneck, "Finding dominators in practice", JGAA
// 10(1), 2006): an iterative depth-first search numbers the reachable
// objects, semidominators are computed as in Lengauer and Tarjan (TOPLAS
// 1(1), 1979) with path compression but no balancing, and immediate
// dominators as nearest common ancestors on the partial tree. It runs in
// O(m log n) worst case and near-linear time in practice, with no
// recursion and no per-object Go allocation. The search also sorts the
// edges: tree edges need no predecessor list (the DFS parent is kept),
// so predecessors come from a reverse CSR built here over the other
// retaining edges between reachable objects only (4 bytes per such
// edge), as DFS numbers, indexed by DFS number so that the later passes
// read it in order. Working memory is 28.25 bytes per object plus 4 per
// non-tree retaining edge and 1 bit per edge, of which the tree keeps
// 20 bytes per object (see BENCH.md for measured figures). Two cores
// share the predecessor fill and the final conversions.
func Dominators(g *heap.Graph, opt DomOptions) *DomTree {
	n := g.NumObjects()
	edges := g.AllEdges()
	sizes := g.Sizes()

	var isRoot bitset
	rootList := make([]uint32, 0, len(g.Roots())+len(opt.ExtraRoots))
	for _, r := range g.Roots() {
		if isRoot == nil {
			isRoot = newBitset(n)
		}
		isRoot.set(uint32(r.Object))
		rootList = append(rootList, uint32(r.Object))
	}
	var extra []heap.ObjectID
	for _, x := range opt.ExtraRoots {
		if int(x) < n {
			rootList = append(rootList, uint32(x))
			extra = append(extra, x)
		}
	}

	// Working arrays. Fields read together are interleaved, so that a
	// random access costs one cache miss, not two: po holds, for object
	// v, its DFS number at 2v and its count of non-tree predecessors
	// (then their fill cursor) at 2v+1; al holds, for DFS number i, its
	// ancestor at 2i and its label at 2i+1.
	// They come from spill, which puts them in files past --max-memory.
	po := spill.Make[uint32](2 * (n + 1)) // later: idom by object, then children
	vert := spill.Make[uint32](n + 2)     // DFS number -> object
	alw := spill.Make[uint64](n + 2)      // later: retained sizes
	al := u64as32(alw)
	semi := spill.Make[uint32](n + 2)                          // edge cursor; then semidominator; then idom by DFS number
	start := spill.Make[uint32](n + 2)                         // edge end; then predecessor CSR by DFS number; then DFS parents; then children CSR
	back := bitset(spill.Make[uint64]((len(edges) + 63) / 64)) // the non-tree retaining edges, by edge index

	N := domDFS(g, edges, rootList, isRoot, po, vert, al, semi, start, back)
	var hung []heap.ObjectID
	if int(N-1) < n && g.Meta().Live {
		// Objects are left over in a snapshot of live objects: hang them
		// under the root and search again (rare, so the common case pays
		// nothing).
		if hung = hungObjects(g, rootList, isRoot); len(hung) > 0 {
			for _, x := range hung {
				rootList = append(rootList, uint32(x))
			}
			clear(po)
			clear(back)
			N = domDFS(g, edges, rootList, isRoot, po, vert, al, semi, start, back)
		}
	}

	// Non-tree predecessors as DFS numbers, in a CSR indexed by the
	// target's DFS number, so that the semidominator pass reads it
	// sequentially. Offsets go in DFS order; the fill reads the edges in
	// object order and touches only the edges the search marked.
	var total uint32
	for i := uint32(1); i < N; i++ {
		k := 2*int(vert[i]) + 1
		c := po[k]
		po[k] = total
		start[i] = total
		total += c
	}
	start[N] = total
	preds := spill.Make[uint32](int(total))
	if total > 0 {
		// Two halves of the targets, one per core: each reads all the
		// edges but writes only its targets' cursors and lists.
		half := uint32(n / 2)
		var wg sync.WaitGroup
		wg.Add(1)
		go func() {
			defer wg.Done()
			domFillBack(g, edges, back, po, preds, 0, half)
		}()
		domFillBack(g, edges, back, po, preds, half, uint32(n))
		wg.Wait()
	}
	spill.Free(back)
	back = nil

	// Semidominators, in reverse DFS order. Vertex w is "linked" once it
	// has been processed, so the linked vertices are those numbered above
	// the current one and the ancestor slots can start as the DFS
	// parents. A predecessor numbered below w is an ancestor of w, not
	// yet linked: it stands for itself, with no eval. w's label starts
	// as its DFS parent (0 if w is a root the super-root reaches again).
	// Once w is done, start[w+1] (the end of w's list) is dead; it keeps
	// w's DFS parent for the NCA pass, since path compression rewrites
	// the ancestors. The loop first touches the ancestor slots of the
	// predecessors it will evaluate domAhead steps later, so that their
	// cache misses overlap.
	semi[0] = 0
	var sink uint32
	for w := N - 1; w >= 1; w-- {
		if w > domAhead {
			for _, v := range preds[start[w-domAhead]:start[w-domAhead+1]] {
				if v > w-domAhead {
					sink += al[2*int(v)]
				}
			}
		}
		p := al[2*int(w)]
		s := al[2*int(w)+1]
		lo, hi := start[w], start[w+1]
		if s != 0 {
			for _, v := range preds[lo:hi] {
				u := v // an ancestor: its own label
				if v > w {
					u = eval(v, w+1, al)
				}
				if u < s {
					s = u
					if s == 0 { // the least possible: skip the rest
						break
					}
				}
			}
		}
		semi[w] = s
		al[2*int(w)+1] = s
		start[w+1] = p
	}
	spill.Free(preds)
	preds = nil
	keepTouches(sink)

	// Immediate dominators: the nearest ancestor of the DFS parent whose
	// number is at most the semidominator's. They overwrite semi in
	// place: semi[i] is last read at step i, and idom[d] is final for
	// every d < i.
	idom := semi
	idom[0] = 0
	for i := uint32(1); i < N; i++ {
		d := start[i+1]
		for d > semi[i] {
			d = idom[d]
		}
		idom[i] = d
	}

	// Retained sizes (on one core), while the other converts the
	// dominators to objects and counts the children.
	ret := alw[:n+1]
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		// Children have larger DFS numbers than their dominators, so
		// one pass in reverse DFS order accumulates them.
		clear(ret)
		for i := N - 1; i >= 1; i-- {
			v := vert[i]
			ret[v] += sizes[v]
			ret[vert[idom[i]]] += ret[v]
		}
	}()

	// Children CSR (index n is the super-root), counted now, filled
	// below into the free half of po.
	ks := start
	clear(ks)
	for i := uint32(1); i < N; i++ {
		ks[vert[idom[i]]]++
	}
	for i := 1; i <= n; i++ {
		ks[i] += ks[i-1]
	}
	ks[n+1] = ks[n]

	// Each object's immediate dominator, written over po in place: slot
	// v is read-only-once data of object v/2 <= v, already converted.
	for v := range n {
		var d uint32
		switch pre := po[2*int(v)]; {
		case pre == 0:
			d = uint32(Unreachable)
		case idom[pre] == 0:
			d = uint32(SuperRoot)
		default:
			d = vert[idom[pre]]
		}
		po[v] = d
	}
	idomObj := po[:n:n]

	// Children filled backwards so each list is in DFS order.
	kids := po[n : n+int(N)-1]
	for i := N - 1; i >= 1; i-- {
		p := vert[idom[i]]
		ks[p]--
		kids[ks[p]] = vert[i]
	}
	wg.Wait()
	spill.Free(vert)
	spill.Free(semi)
	t := &DomTree{
		g:         g,
		n:         n,
		idom:      idomObj,
		retained:  ret,
		kidStart:  ks,
		kids:      kids,
		reachable: int(N - 1),
		extra:     extra,
		hung:      hung,
	}
	if len(hung) > 0 && len(extra) == 0 && len(g.Roots()) == 1 {
		t.hangUnder(g.Roots()[0].Object)
	}
	return t
}

// domAhead is how many vertices ahead the semidominator pass touches
// the ancestor slots of the predecessors it will evaluate (16 measured
// best, 8 to 64 alike).
const domAhead = 16

// keepTouches uses the sum of loads made only to touch memory, so that
// the compiler keeps them (a sum of 1 is rare, and a yield harmless).
func keepTouches(sum uint32) {
	if sum == 1 {
		runtime.Gosched()
	}
}

// domDFS numbers the objects the roots reach through retaining edges in
// depth-first preorder, from the super-root (number 0, object n), and
// returns how many numbers it gave (the super-root included). It fills
// po[2v] (v's number, 0 when unreached), vert (number -> object), al[2i]
// and al[2i+1] (i's DFS parent; the label is 0 instead when the
// super-root reaches i again), and counts in po[2t+1] and marks in back
// every non-tree retaining edge but self edges. cursor and ends hold each
// open vertex's edge range.
//
// Each vertex's edges are scanned once when the vertex is numbered, and
// an edge to an already numbered target is counted then (a back or cross
// edge). Those checks hit a bitset of numbered objects (n/8 bytes,
// mostly in cache) and the counts are stores, so their misses overlap.
// The scan also starts loading the edge range of each unnumbered target,
// likely the next vertex. The search proper skips the marked edges; an
// edge it meets to a numbered target is a forward edge (or a self edge).
// The numbering is that of the plain recursive search that follows
// edges in order.
func domDFS(g *heap.Graph, edges []heap.Edge, rootList []uint32, isRoot bitset,
	po, vert, al, cursor, ends []uint32, back bitset) uint32 {
	n := len(po)/2 - 1
	seen := newBitset(n)
	vert[0] = uint32(n)
	nv := uint32(1)
	cur := uint32(0)
	nextRoot := 0
	var sink uint32
	for {
		var t uint32
		if cur == 0 {
			if nextRoot == len(rootList) {
				break
			}
			t = rootList[nextRoot]
			nextRoot++
			if seen[t>>6]&(1<<(t&63)) != 0 {
				al[2*int(po[2*int(t)])+1] = 0 // a forward edge from the super-root
				continue
			}
		} else {
			e := cursor[cur]
			if e == ends[cur] {
				cur = al[2*int(cur)]
				continue
			}
			cursor[cur] = e + 1
			if back[e>>6]&(1<<(e&63)) != 0 {
				continue
			}
			ed := edges[e]
			if k := uint32(ed.Label) >> 30; k&1 != 0 && (k != 3 || !isRoot.has(vert[cur])) {
				continue
			}
			t = uint32(ed.To)
			if seen[t>>6]&(1<<(t&63)) != 0 {
				// A forward edge (its target was numbered inside this
				// vertex's subtree), or a self edge.
				if t != vert[cur] {
					po[2*int(t)+1]++
					back[e>>6] |= 1 << (e & 63)
				}
				continue
			}
		}
		// Number t, then classify its edges.
		d := nv
		nv++
		seen[t>>6] |= 1 << (t & 63)
		po[2*int(t)] = d
		vert[d] = t
		al[2*int(d)] = cur
		al[2*int(d)+1] = cur
		s, e := g.EdgeRange(heap.ObjectID(t))
		cursor[d] = s
		ends[d] = e
		tRoot := isRoot.has(t)
		for j := s; j < e; j++ {
			ed := edges[j]
			if k := uint32(ed.Label) >> 30; k&1 != 0 && (k != 3 || !tRoot) {
				continue
			}
			if x := uint32(ed.To); seen[x>>6]&(1<<(x&63)) != 0 {
				if x != t {
					po[2*int(x)+1]++
					back[j>>6] |= 1 << (j & 63)
				}
			} else {
				xs, _ := g.EdgeRange(heap.ObjectID(x)) // a touch
				sink += xs
			}
		}
		cur = d
	}
	keepTouches(sink)
	return nv
}

// domFillBack writes the source DFS number of each marked edge whose
// target t is in [lo, hi) into preds at t's cursor po[2t+1], which it
// advances.
func domFillBack(g *heap.Graph, edges []heap.Edge, back bitset, po, preds []uint32, lo, hi uint32) {
	n := len(po)/2 - 1
	for v := range n {
		d := po[2*v]
		if d == 0 {
			continue
		}
		s, e := g.EdgeRange(heap.ObjectID(v))
		for j := s; j < e; j++ {
			if back[j>>6]&(1<<(j&63)) != 0 {
				if t := uint32(edges[j].To); t-lo < hi-lo {
					k := 2*int(t) + 1
					preds[po[k]] = d
					po[k]++
				}
			}
		}
	}
}

// eval returns the least semidominator number on the path from v up to
// (excluding) the root of its tree in the forest of linked vertices
// (those numbered >= linked), compressing the path. al interleaves each
// vertex's ancestor (2i) and label (2i+1). As in Georgiadis'
// implementation, labels are semidominator numbers rather than vertices,
// which saves an indirection per step. eval reverses the ancestor
// pointers on the way up instead of using a stack, so deep paths cost no
// memory; nil32 is a number no vertex has.
func eval(v, linked uint32, al []uint32) uint32 {
	if al[2*int(v)] < linked {
		return al[2*int(v)+1]
	}
	const nil32 = ^uint32(0)
	prev, x := nil32, v
	for al[2*int(x)] >= linked {
		next := al[2*int(x)]
		al[2*int(x)] = prev
		prev, x = x, next
	}
	r := al[2*int(x)]
	best := al[2*int(x)+1]
	for prev != nil32 {
		y := prev
		prev = al[2*int(y)]
		al[2*int(y)] = r
		if l := al[2*int(y)+1]; best < l {
			al[2*int(y)+1] = best
		} else {
			best = l
		}
	}
	return al[2*int(v)+1]
}

// cmpRetained orders objects by retained size, largest first, then by ID.
func cmpRetained(ret []uint64, a, b uint32) int {
	switch {
	case ret[a] > ret[b]:
		return -1
	case ret[a] < ret[b]:
		return 1
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// Graph returns the graph the tree was computed from.
func (t *DomTree) Graph() *heap.Graph { return t.g }

// Idom returns the immediate dominator of id: an object, [SuperRoot] for
// the objects only the super-root dominates (roots among them), or
// [Unreachable] for unreachable objects and for SuperRoot itself.
func (t *DomTree) Idom(id heap.ObjectID) heap.ObjectID {
	if id == SuperRoot {
		return Unreachable
	}
	return heap.ObjectID(t.idom[id])
}

// Reachable reports whether a root reaches id through retaining edges.
// SuperRoot is reachable.
func (t *DomTree) Reachable(id heap.ObjectID) bool {
	return id == SuperRoot || t.idom[id] != uint32(Unreachable)
}

// Retained returns the retained size of id: the sum of the shallow sizes
// of the objects it dominates, itself included; 0 when unreachable. For
// SuperRoot it is the size of everything reachable.
func (t *DomTree) Retained(id heap.ObjectID) uint64 {
	return t.retained[t.index(id)]
}

// Children returns the objects id immediately dominates, by retained
// size, largest first, then by ID, in a new slice. Children(SuperRoot)
// are the tree's top level. (The tree stores children in DFS order and
// sorts a list when asked: sorting every list up front cost more than
// the rest of the computation on large graphs.)
func (t *DomTree) Children(id heap.ObjectID) []heap.ObjectID {
	i := t.index(id)
	l := slices.Clone(u32ids(t.kids[t.kidStart[i]:t.kidStart[i+1]]))
	slices.SortFunc(l, func(a, b heap.ObjectID) int { return cmpRetained(t.retained, uint32(a), uint32(b)) })
	return l
}

// NumChildren returns how many objects id immediately dominates.
func (t *DomTree) NumChildren(id heap.ObjectID) int {
	i := t.index(id)
	return int(t.kidStart[i+1] - t.kidStart[i])
}

// NumReachable returns how many objects are in the tree (SuperRoot
// excluded).
func (t *DomTree) NumReachable() int { return t.reachable }

// Hung returns the objects hung under the root because no root reaches
// them through retaining edges although the snapshot holds only live
// objects (g.Meta().Live): objects held only through weak or demoted
// edges, the entries of what they retain, in the order found. What they
// retain is in the tree below them.
func (t *DomTree) Hung() []heap.ObjectID { return t.hung }

// ExtraRoots returns the extra roots the tree was built with (those in
// range), in the order given.
func (t *DomTree) ExtraRoots() []heap.ObjectID { return t.extra }

func (t *DomTree) index(id heap.ObjectID) int {
	if id == SuperRoot {
		return t.n
	}
	return int(id)
}

// Dominates reports whether a dominates b (a == b included); SuperRoot
// dominates every reachable object. It walks b's dominator chain.
func (t *DomTree) Dominates(a, b heap.ObjectID) bool {
	if !t.Reachable(a) || !t.Reachable(b) {
		return false
	}
	for b != SuperRoot {
		if a == b {
			return true
		}
		b = t.Idom(b)
	}
	return a == SuperRoot
}
