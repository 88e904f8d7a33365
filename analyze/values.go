package analyze

import (
	"slices"
	"strings"

	"github.com/heapscope/heapscope/heap"
)

// Equal by value. A program that builds the same structure again and
// again (a cache whose lookups miss, a type or a descriptor made per
// call) holds many objects that are equal by value: same type, same
// content, each a copy. A copy of a structure is many objects (an
// instance, its namespace, the tuples and strings it holds), so equality
// must look through them; this file gives every object a digest of its
// value, a Merkle-style hash over the object graph (Merkle, "A digital
// signature based on a conventional encryption function", CRYPTO 1987),
// computed over the graph's strongly connected components in one pass
// (Tarjan, "Depth-first search and linear graph algorithms", 1972).
//
// An object's value is its type, its content where the snapshot has it
// (a string's digest, a number's value; Java: the size, which fixes an
// array's length) and its edges: for each edge, its kind and its name
// or index, and the value of its target. Edges are combined as a
// multiset, by adding their hashes (Bellare and Micciancio's AdHash,
// "A new paradigm for collision-free hashing", EUROCRYPT 1997), so the
// order of named entries does not matter (a dict's keys, an object's
// fields) while an index keeps its place in its name (a list's items);
// unnamed edges (a set's items) count as a multiset.
//
// Objects whose state the snapshot does not show whole are equal only to
// themselves: classes and modules, the namespaces of modules and
// classes, code, compiled code and object shapes, objects the reader
// made up or could not see completely, Python objects without
// [heap.FlagWhole] (C types with fields of their own: a datetime, a
// lock, a numpy array), strings without a digest and numbers without a
// value, Java primitive arrays and instances with fields that are not
// references (HPROF has their values, the graph does not; an instance
// whose fields are all references is compared by value), and V8 objects that have neither edges nor
// content (a heap number). A weak edge counts its target's identity.
//
// Through structures without cycles the digest is exact (up to 64-bit
// collisions). Objects on a cycle (a doubly linked list, a tree with
// parent links) get theirs by refining their strongly connected
// component round by round, as in Weisfeiler and Leman's colour
// refinement, starting from what leaves the component, until a round
// splits no class of the component's objects, or [valueRounds] rounds;
// then the component's own digest (the multiset of its objects' colours)
// joins each object's. So objects on cycles are equal when they are
// alike within their components and their components are alike as a
// whole, as far as colour refinement tells. Two copies of one structure
// are equal, node for node; a ring of two and a ring of four are not,
// nor two lists that differ at one end. The rounds cost the component's
// edges each. Cost: one depth-first pass over the graph's edges, plus that
// many rounds over the edges inside each cycle; 8 bytes per object for
// the digests and 12 more while they are computed.

// valueRounds bounds the refinement rounds within one strongly connected
// component.
const valueRounds = 16

// Values holds the value digest of every object of one graph.
type Values struct {
	g      *heap.Graph
	hash   []uint64
	byVal  bitset // compared by value; the others by identity
	sorted []heap.ObjectID
}

// Digest returns id's value digest: equal for objects equal by value
// (see the file comment), different (up to 64-bit collisions) otherwise.
func (x *Values) Digest(id heap.ObjectID) uint64 { return x.hash[id] }

// ByValue reports whether id is compared by value; an object compared
// by identity is equal only to itself.
func (x *Values) ByValue(id heap.ObjectID) bool { return x.byVal.has(uint32(id)) }

// Graph returns the graph the digests are of.
func (x *Values) Graph() *heap.Graph { return x.g }

// fmix64 is MurmurHash3's finalizer: every bit of x affects every bit of
// the result.
func fmix64(x uint64) uint64 {
	x ^= x >> 33
	x *= 0xff51afd7ed558ccd
	x ^= x >> 33
	x *= 0xc4ceb9fe1a85ec53
	x ^= x >> 33
	return x
}

func identityDigest(id heap.ObjectID) uint64 {
	return fmix64(uint64(id)*0x9e3779b97f4a7c15 + 0x6a09e667f3bcc909)
}

func edgeDigest(l heap.Label, target uint64) uint64 {
	return fmix64(target ^ fmix64(uint64(l)+0xbb67ae8584caa73b))
}

// cycleSeed stands for an object of the component being refined before
// the first round.
const cycleSeed = 0x3c6ef372fe94f82b

// IndexValues computes the value digest of every object of g.
func IndexValues(g *heap.Graph) *Values {
	n := g.NumObjects()
	x := &Values{g: g, hash: make([]uint64, n), byVal: valueObjects(g)}
	// Until an object's digest is done, x.hash holds its base: its
	// type, its content (a digest, else a value) and, for Java, its
	// size (which fixes an array's length). Objects compared by
	// identity get their final digest at once.
	java := g.Meta().Runtime == "java"
	for v, t := range g.Types() {
		if !x.byVal.has(uint32(v)) {
			x.hash[v] = identityDigest(heap.ObjectID(v))
			continue
		}
		x.hash[v] = uint64(t)*0x9e3779b97f4a7c15 + 0xa54ff53a5f1d36f1
		if java {
			x.hash[v] += fmix64(g.Size(heap.ObjectID(v)) + 3)
		}
	}
	digested := newBitset(n)
	for id, d := range g.Digests() {
		if x.byVal.has(uint32(id)) {
			x.hash[id] ^= fmix64(d + 1)
			digested.set(uint32(id))
		}
	}
	for id, s := range g.Values() {
		if x.byVal.has(uint32(id)) && !digested.has(uint32(id)) {
			x.hash[id] ^= fmix64(stringHash(s) + 2)
		}
	}
	digested = nil
	vr := &valueRefiner{x: x}

	// Tarjan's algorithm, iterative: index[v] is v's visit number + 1
	// (0: not visited), low[v] its low link; a component is done when
	// its root's low link is its own number, in reverse topological
	// order, so the targets of its outside edges are done before it.
	// Only edges to objects compared by value (not weak) are followed.
	index := make([]uint32, n)
	low := make([]uint32, n)
	onStack := newBitset(n)
	var stack []heap.ObjectID
	type frame struct {
		v  heap.ObjectID
		at uint32 // next edge to look at, in AllEdges
	}
	var calls []frame
	next := uint32(1)
	edges := g.AllEdges()
	for r := range n {
		if !x.byVal.has(uint32(r)) || index[r] != 0 {
			continue
		}
		root := heap.ObjectID(r)
		index[root], low[root] = next, next
		next++
		stack = append(stack, root)
		onStack.set(uint32(root))
		start, _ := g.EdgeRange(root)
		calls = append(calls[:0], frame{root, start})
		for len(calls) > 0 {
			f := &calls[len(calls)-1]
			_, end := g.EdgeRange(f.v)
			descended := false
			for f.at < end {
				e := edges[f.at]
				f.at++
				if e.Label.Kind() == heap.Weak || !x.byVal.has(uint32(e.To)) {
					continue
				}
				w := e.To
				if index[w] == 0 {
					index[w], low[w] = next, next
					next++
					stack = append(stack, w)
					onStack.set(uint32(w))
					ws, _ := g.EdgeRange(w)
					calls = append(calls, frame{w, ws})
					descended = true
					break
				}
				if onStack.has(uint32(w)) && index[w] < low[f.v] {
					low[f.v] = index[w]
				}
			}
			if descended {
				continue
			}
			v := f.v
			calls = calls[:len(calls)-1]
			if len(calls) > 0 {
				if p := calls[len(calls)-1].v; low[v] < low[p] {
					low[p] = low[v]
				}
			}
			if low[v] != index[v] {
				continue
			}
			k := len(stack) - 1
			for stack[k] != v {
				k--
			}
			members := stack[k:]
			for _, m := range members {
				onStack[m>>6] &^= 1 << (m & 63)
			}
			vr.component(members, index)
			stack = stack[:k]
		}
	}
	return x
}

// valueRefiner computes the digests of one strongly connected component
// at a time, its targets outside it done.
type valueRefiner struct {
	x *Values
	// Per member of a cyclic component: the digest of what leaves it,
	// its inside edges (targets by place, labels), the digests of the
	// current and next round.
	outside  []uint64
	start    []uint32
	to       []uint32
	labels   []heap.Label
	cur, nxt []uint64
	seen     []uint64 // an open-addressing set of digests, for classes
}

// contrib is an edge's share of its source's digest, its target done.
func (vr *valueRefiner) contrib(e heap.Edge) uint64 {
	if e.Label.Kind() == heap.Weak {
		return edgeDigest(e.Label, identityDigest(e.To))
	}
	return edgeDigest(e.Label, vr.x.hash[e.To])
}

// component computes the digests of the members of one strongly
// connected component (of edges to objects compared by value). index is
// the search's visit numbers, which the members no longer need: a
// member's becomes its place among them, plus one.
func (vr *valueRefiner) component(members []heap.ObjectID, index []uint32) {
	x, g := vr.x, vr.x.g
	if len(members) == 1 {
		v := members[0]
		sum := x.hash[v] // its base
		self := false
		for _, e := range g.Edges(v) {
			if e.To == v && e.Label.Kind() != heap.Weak {
				self = true
				break
			}
			sum += vr.contrib(e)
		}
		if !self {
			x.hash[v] = fmix64(sum)
			return
		}
	}
	// A cycle: refine, as in colour refinement, from what leaves the
	// component, until the partition of the members stops splitting or
	// after valueRounds rounds.
	for i, m := range members {
		index[m] = uint32(i) + 1
	}
	place := func(t heap.ObjectID) (uint32, bool) {
		p := index[t] - 1
		return p, p < uint32(len(members)) && members[p] == t
	}
	size := fmix64(uint64(len(members)) + 0x510e527fade682d1)
	edges := 0
	for _, m := range members {
		edges += len(g.Edges(m))
	}
	vr.outside, vr.start = slices.Grow(vr.outside[:0], len(members)), slices.Grow(vr.start[:0], len(members)+1)
	vr.to, vr.labels = slices.Grow(vr.to[:0], edges), slices.Grow(vr.labels[:0], edges)
	vr.cur, vr.nxt = slices.Grow(vr.cur[:0], len(members)), slices.Grow(vr.nxt[:0], len(members))
	for _, m := range members {
		sum := x.hash[m] + size // its base
		vr.start = append(vr.start, uint32(len(vr.to)))
		var in uint64
		for _, e := range g.Edges(m) {
			if p, ok := place(e.To); ok && e.Label.Kind() != heap.Weak {
				vr.to = append(vr.to, p)
				vr.labels = append(vr.labels, e.Label)
				in += edgeDigest(e.Label, cycleSeed)
			} else {
				sum += vr.contrib(e)
			}
		}
		vr.outside = append(vr.outside, sum)
		vr.cur = append(vr.cur, fmix64(sum+in))
		vr.nxt = append(vr.nxt, 0)
	}
	vr.start = append(vr.start, uint32(len(vr.to)))
	classes := vr.classes(vr.cur)
	for range min(len(members), valueRounds) {
		for i := range members {
			sum := vr.outside[i]
			for k := vr.start[i]; k < vr.start[i+1]; k++ {
				sum += edgeDigest(vr.labels[k], vr.cur[vr.to[k]])
			}
			vr.nxt[i] = fmix64(sum)
		}
		vr.cur, vr.nxt = vr.nxt, vr.cur
		c := vr.classes(vr.cur)
		if c == classes {
			break // refining splits no class any more
		}
		classes = c
	}
	// A member's colour says what it is within its component; the
	// component's own digest, the multiset of its members' colours,
	// says which component: members of two components are equal only
	// when the components are too (else two lists that differ at one
	// end would be equal at the other, within the rounds run).
	var comp uint64
	for _, c := range vr.cur {
		comp += fmix64(c + 0x1f83d9abfb41bd6b)
	}
	comp = fmix64(comp)
	for i, m := range members {
		x.hash[m] = fmix64(vr.cur[i] ^ comp)
	}
}

// classes counts the distinct digests of a round, in an open-addressing
// set of twice as many slots (0 marks a free slot; a digest of 0 is
// counted apart).
func (vr *valueRefiner) classes(d []uint64) int {
	size := 4
	for size < 2*len(d) {
		size *= 2
	}
	if cap(vr.seen) < size {
		vr.seen = make([]uint64, size)
	}
	set := vr.seen[:size]
	clear(set)
	n, zero := 0, 0
	for _, h := range d {
		if h == 0 {
			zero = 1
			continue
		}
		for i := fmix64(h) & uint64(size-1); ; i = (i + 1) & uint64(size-1) {
			if set[i] == h {
				break
			}
			if set[i] == 0 {
				set[i] = h
				n++
				break
			}
		}
	}
	return n + zero
}

// stringHash is FNV-1a over s.
func stringHash(s string) uint64 {
	h := uint64(14695981039346656037)
	for i := 0; i < len(s); i++ {
		h ^= uint64(s[i])
		h *= 1099511628211
	}
	return h
}

// pythonWholeTypes are the Python types compared by value in snapshots
// that mark no object whole (agents before format 1.2): the builtin
// containers, whose state their edges show.
var pythonWholeTypes = map[string]bool{
	"tuple": true, "list": true, "dict": true, "set": true, "frozenset": true, "cell": true,
}

// valueObjects marks the objects of g compared by value (see the file
// comment); the others are compared by identity.
func valueObjects(g *heap.Graph) bitset {
	n := g.NumObjects()
	out := newBitset(n)
	rt := g.Meta().Runtime
	code := codeObjects(g)
	isClass := classTypes(g)
	type kind uint8
	const (
		plain   kind = iota // by value, if its flags allow
		content             // by value only with a digest or a value
		never               // by identity
		arrays              // Java: by value when an array of references
		number              // V8: by value when it has its value's edge
		store               // V8: a backing store, by value when it has elements
		flagged             // Java: an instance, by value when the reader marks it whole
	)
	kinds := make([]kind, g.NumTypes())
	whole := false // a Python snapshot that marks whole objects
	if rt == "python" {
		for v := range n {
			if g.Flags(heap.ObjectID(v))&heap.FlagWhole != 0 {
				whole = true
				break
			}
		}
	}
	numeric := rt == "v8" && V8Numbers(g)
	for t := range kinds {
		name := g.TypeName(heap.TypeID(t))
		switch {
		case isClass[t]:
			kinds[t] = never
		case rt == "python":
			switch {
			case name == "str" || name == "bytes" || name == "int" || name == "float":
				kinds[t] = content
			case name == "module" || name == "code" || name == "frame":
				kinds[t] = never
			case !whole && !pythonWholeTypes[name]:
				kinds[t] = never
			}
		case rt == "java":
			switch {
			case name == "java.lang.String":
				kinds[t] = content
			case strings.HasSuffix(name, "[]"):
				kinds[t] = arrays
				if _, prim := javaPrimArrays[name]; prim {
					kinds[t] = never
				}
			default:
				kinds[t] = flagged // an instance: by value when its fields are all references
			}
		case rt == "v8":
			switch {
			case !numeric || codeTypeNames["v8"][name] || name == "(system)":
				kinds[t] = never
			case name == "(number)":
				kinds[t] = number
			case name == "(array)":
				kinds[t] = store
			}
		}
	}
	for v, t := range g.Types() {
		id := heap.ObjectID(v)
		fl := g.Flags(id)
		if fl&(heap.FlagSynthetic|heap.FlagOpaque) != 0 || kinds[t] == never {
			continue
		}
		switch kinds[t] {
		case content:
			if _, ok := g.Digest(id); !ok {
				if _, ok := g.Value(id); !ok {
					continue
				}
			}
		case plain:
			if whole && fl&heap.FlagWhole == 0 {
				continue
			}
			if rt == "python" && code.has(uint32(v)) {
				continue // a module's or class's namespace
			}
			if rt == "v8" && len(g.Edges(id)) == 0 {
				if _, ok := g.Digest(id); !ok {
					if _, ok := g.Value(id); !ok {
						continue
					}
				}
			}
		case flagged:
			if fl&heap.FlagWhole == 0 {
				continue
			}
		case number:
			if !hasEdge(g, id, "value") {
				continue
			}
		case store:
			// A store of doubles or bytes shows none of them: only the
			// stores whose elements are edges are compared.
			if !hasEdgeBut(g, id, "map") {
				continue
			}
		}
		out.set(uint32(v))
	}
	return out
}

// javaPrimArrays are the HPROF reader's primitive array types.
var javaPrimArrays = map[string]struct{}{
	"boolean[]": {}, "char[]": {}, "float[]": {}, "double[]": {},
	"byte[]": {}, "short[]": {}, "int[]": {}, "long[]": {},
}

// V8Numbers reports whether a V8 snapshot records numbers: each small
// integer and heap number a node of its own with its value as a string
// (an internal edge "value"), as V8 writes when asked to (DevTools'
// "Include numerical values in capture", Node's
// v8.writeHeapSnapshot(file, {exposeNumericValues: true})). Without
// them a snapshot shows no small integer at all, and objects that
// differ only in one look equal: V8 objects are then compared by
// identity only.
func V8Numbers(g *heap.Graph) bool {
	if g.Meta().Runtime != "v8" {
		return false
	}
	num, ok := typeNamed(g, "(number)")
	if !ok {
		return false
	}
	for v, t := range g.Types() {
		if t == num && hasEdge(g, heap.ObjectID(v), "value") {
			return true
		}
	}
	return false
}

// typeNamed returns the type of g named name.
func typeNamed(g *heap.Graph, name string) (heap.TypeID, bool) {
	for t := range g.NumTypes() {
		if g.TypeName(heap.TypeID(t)) == name {
			return heap.TypeID(t), true
		}
	}
	return 0, false
}

// hasEdge reports whether id has an edge named name.
func hasEdge(g *heap.Graph, id heap.ObjectID, name string) bool {
	for _, e := range g.Edges(id) {
		if !e.Label.IsIndex() && g.String(e.Label.Name()) == name {
			return true
		}
	}
	return false
}

// hasEdgeBut reports whether id has an edge not named name.
func hasEdgeBut(g *heap.Graph, id heap.ObjectID, name string) bool {
	for _, e := range g.Edges(id) {
		if e.Label.IsIndex() || g.String(e.Label.Name()) != name {
			return true
		}
	}
	return false
}
