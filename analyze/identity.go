package analyze

import (
	"hash/maphash"
	"slices"

	"github.com/heapscope/heapscope/heap"
)

// IdentityMode says how objects are matched across snapshots.
type IdentityMode string

const (
	// IdentityStable: the runtime gives every object an id that stays the
	// same for its whole life (V8 node ids). Objects are matched by id
	// and type: V8 gives a new object the id of a dead one whose address
	// it took between two snapshots (its map of ids forgets dead objects
	// only when it takes the next snapshot), and a different type tells
	// them apart (a TypeScript checker's TypeObject took a NodeObject's
	// id, in the tests).
	IdentityStable IdentityMode = "stable ids"
	// IdentityAddress: objects are matched by address and type (Python),
	// and a new object at a reused address is told apart from the old one
	// by its content when it is immutable (str, int, tuple...), and
	// otherwise by who holds it: the old and the new object must share a
	// referrer (matched the same way) and the name of its reference (the
	// dict key, the attribute, the list index). A mutable object that
	// takes the address of a freed one of the same type, in the same slot
	// of the same holder, is taken for the old one.
	IdentityAddress IdentityMode = "address, type, content and holder"
	// IdentityNone: addresses move (HPROF dumps after a compacting GC), so
	// objects cannot be matched; leak detection falls back to growth per
	// type and path.
	IdentityNone IdentityMode = "none (addresses move)"
)

// Identify returns how g's objects can be matched across snapshots.
func Identify(g *heap.Graph) IdentityMode {
	switch g.Meta().Runtime {
	case "v8":
		return IdentityStable
	case "python", "test":
		return IdentityAddress
	}
	return IdentityNone
}

// immutable lists the Python types whose content never changes, so that
// content can tell a new object at a reused address from the old one.
var immutable = map[string]bool{
	"str": true, "bytes": true, "int": true, "float": true, "complex": true,
	"tuple": true, "frozenset": true, "code": true, "range": true,
}

// identitySeed makes identity keys comparable across the graphs of one
// run of heapscope (and only of one run).
var identitySeed = maphash.MakeSeed()

// Identities returns one key per object of g (indexed by ObjectID) under
// mode: the V8 id, or a hash of address, type and, for immutable objects,
// content. Equal keys in two snapshots of one process mean the same
// object, except for mutable objects under IdentityAddress, where a new
// object may reuse an old one's address: [Matcher] tells those apart.
// Keys of different objects collide with probability about 2^-64 per pair.
func Identities(g *heap.Graph, mode IdentityMode) []uint64 {
	if mode == IdentityStable {
		return stableKeys(g)
	}
	keys, _ := ownKeys(g)
	return keys
}

// stableKeys combines each object's id with a hash of its type name:
// the id times an odd constant (one to one) xor the hash, so that keys of
// different objects, or of one id under two types, collide with
// probability about 2^-64 per pair.
func stableKeys(g *heap.Graph) []uint64 {
	typeHash := make([]uint64, g.NumTypes())
	for t := range typeHash {
		typeHash[t] = maphash.String(identitySeed, g.TypeName(heap.TypeID(t)))
	}
	keys := make([]uint64, g.NumObjects())
	for id, t := range g.Types() {
		keys[id] = g.Addr(heap.ObjectID(id))*0x9e3779b97f4a7c15 ^ typeHash[t]
	}
	return keys
}

// Matcher finds, in other snapshots of the same process, the objects of
// one snapshot (or of a subset of it).
type Matcher struct {
	mode   IdentityMode
	marked bool     // keys carry a mark in their lowest bit (see newMarkedMatcher)
	plain  []uint64 // sorted keys matched alone (stable ids, immutable objects)
	pairs  []uint64 // sorted (object, referrer, reference name) keys of mutable objects
}

// NewMatcher indexes the objects of g for which keep returns true (all
// when keep is nil).
func NewMatcher(g *heap.Graph, mode IdentityMode, keep func(heap.ObjectID) bool) *Matcher {
	return newMatcher(g, mode, keep, nil)
}

// newMarkedMatcher is NewMatcher over every object of g, with the
// objects mark returns true for marked: [Matcher.matchesMarked] tells
// an object that matches one of them from one that matches another.
// A key's lowest bit holds the mark, so that one sorted index serves
// both (keys of different objects then collide with probability about
// 2^-63 per pair).
func newMarkedMatcher(g *heap.Graph, mode IdentityMode, mark func(heap.ObjectID) bool) *Matcher {
	return newMatcher(g, mode, nil, mark)
}

func newMatcher(g *heap.Graph, mode IdentityMode, keep, mark func(heap.ObjectID) bool) *Matcher {
	m := &Matcher{mode: mode, marked: mark != nil}
	key := func(id heap.ObjectID, k uint64) uint64 {
		if mark == nil {
			return k
		}
		if mark(id) {
			return k | 1
		}
		return k &^ 1
	}
	if mode == IdentityStable {
		keys := stableKeys(g)
		for id := range g.Objects() {
			if keep == nil || keep(id) {
				m.plain = append(m.plain, key(id, keys[id]))
			}
		}
		slices.Sort(m.plain)
		return m
	}
	own, mutable := ownKeys(g)
	each := func(id heap.ObjectID, k uint64) {
		if keep == nil || keep(id) {
			m.pairs = append(m.pairs, key(id, k))
		}
	}
	for id := range g.Objects() {
		if (keep == nil || keep(id)) && !mutable[id] {
			m.plain = append(m.plain, key(id, own[id]))
		}
	}
	forEachPair(g, own, mutable, each)
	slices.Sort(m.plain)
	slices.Sort(m.pairs)
	return m
}

// Matches returns, for every object of g, whether the matcher's snapshot
// has it.
func (m *Matcher) Matches(g *heap.Graph) []bool {
	out, _ := m.matchesMarked(g)
	return out
}

// matchesMarked returns, for every object of g, whether the matcher's
// snapshot has it, and whether it has it among the objects marked (see
// newMarkedMatcher; all false when the matcher marks none).
func (m *Matcher) matchesMarked(g *heap.Graph) (any, marked []bool) {
	any = make([]bool, g.NumObjects())
	if m.marked {
		marked = make([]bool, g.NumObjects())
	}
	find := func(keys []uint64, id heap.ObjectID, k uint64) {
		if !m.marked {
			if !any[id] {
				_, any[id] = slices.BinarySearch(keys, k)
			}
			return
		}
		if !marked[id] {
			if _, ok := slices.BinarySearch(keys, k|1); ok {
				any[id], marked[id] = true, true
				return
			}
		}
		if !any[id] {
			_, any[id] = slices.BinarySearch(keys, k&^1)
		}
	}
	if m.mode == IdentityStable {
		keys := stableKeys(g)
		for id := range g.Objects() {
			find(m.plain, id, keys[id])
		}
		return any, marked
	}
	own, mutable := ownKeys(g)
	for id := range g.Objects() {
		if !mutable[id] {
			find(m.plain, id, own[id])
		}
	}
	forEachPair(g, own, mutable, func(id heap.ObjectID, k uint64) { find(m.pairs, id, k) })
	return any, marked
}

// forEachPair calls fn for every way a mutable object is held: each
// incoming edge (the referrer's key and the edge's name), each root that
// names it, and, for an object nothing holds, its own key alone.
func forEachPair(g *heap.Graph, own []uint64, mutable []bool, fn func(heap.ObjectID, uint64)) {
	var h maphash.Hash
	h.SetSeed(identitySeed)
	var buf [17]byte
	pair := func(o uint64, by uint64, name string, tag byte) uint64 {
		h.Reset()
		putUint64(buf[0:8], o)
		putUint64(buf[8:16], by)
		buf[16] = tag
		h.Write(buf[:])
		h.WriteString(name)
		return h.Sum64()
	}
	held := newBitset(g.NumObjects())
	for src := range g.Objects() {
		for _, e := range g.Edges(src) {
			if mutable[e.To] {
				fn(e.To, pair(own[e.To], own[src], g.EdgeName(e.Label), 1))
				held.set(uint32(e.To))
			}
		}
	}
	for _, r := range g.Roots() {
		if mutable[r.Object] {
			fn(r.Object, pair(own[r.Object], uint64(r.Kind), g.String(r.Name), 2))
			held.set(uint32(r.Object))
		}
	}
	for id := range g.Objects() {
		if mutable[id] && !held.has(uint32(id)) {
			fn(id, pair(own[id], 0, "", 3))
		}
	}
}

func putUint64(b []byte, x uint64) {
	for i := range 8 {
		b[i] = byte(x >> (8 * i))
	}
}

// ownKeys hashes what identifies each object by itself: address, type,
// and content for immutable types; mutable reports which are not.
func ownKeys(g *heap.Graph) (keys []uint64, mutable []bool) {
	keys = make([]uint64, g.NumObjects())
	mutable = make([]bool, g.NumObjects())
	typeHash := make([]uint64, g.NumTypes())
	isImmutable := make([]bool, g.NumTypes())
	for t := range typeHash {
		name := g.TypeName(heap.TypeID(t))
		typeHash[t] = maphash.String(identitySeed, name)
		isImmutable[t] = immutable[name]
	}
	var h maphash.Hash
	h.SetSeed(identitySeed)
	var buf [8]byte
	put := func(x uint64) {
		for i := range buf {
			buf[i] = byte(x >> (8 * i))
		}
		h.Write(buf[:])
	}
	for id := range g.Objects() {
		h.Reset()
		put(g.Addr(id))
		t := g.Type(id)
		put(typeHash[t])
		mutable[id] = !isImmutable[t]
		if isImmutable[t] {
			put(g.Size(id))
			if d, ok := g.Digest(id); ok {
				put(d)
			}
			if v, ok := g.Value(id); ok {
				h.WriteString(v)
			}
			for _, e := range g.Edges(id) {
				put(g.Addr(e.To))
			}
		}
		keys[id] = h.Sum64()
	}
	return keys, mutable
}
