package analyze

import (
	"hash/maphash"

	"github.com/heapscope/heapscope/heap"
)

// IdentityMode says how objects are matched across snapshots.
type IdentityMode string

const (
	// IdentityStable: the runtime gives every object an id that stays the
	// same for its whole life and is never reused (V8 node ids).
	IdentityStable IdentityMode = "stable ids"
	// IdentityAddress: objects are matched by address, and a new object
	// at a reused address is told apart from the old one by its type, by
	// its content when it is immutable, and by where it is held: the edge
	// and the holder (matched the same way, up to a root) on its shortest
	// path (Python). An object that reuses the address of a freed one of
	// the same type, in the same slot of the same holder, is taken for the
	// old one; an object whose shortest path changes is taken for a new
	// one.
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
// mode; equal keys in two snapshots of one process mean the same object.
// Keys of different objects collide with probability about 2^-64 per pair.
func Identities(g *heap.Graph, mode IdentityMode) []uint64 {
	keys := make([]uint64, g.NumObjects())
	if mode == IdentityStable {
		for id := range g.Objects() {
			keys[id] = g.Addr(id)
		}
		return keys
	}
	own := ownKeys(g)
	r := ShortestPaths(g, PathOptions{})
	done := newBitset(g.NumObjects())
	var stack []heap.ObjectID
	var h maphash.Hash
	h.SetSeed(identitySeed)
	for id := range g.Objects() {
		// Walk up to an object whose key is known (or a root), then
		// compute keys on the way down: parents before children.
		for v := id; !done.has(uint32(v)); {
			stack = append(stack, v)
			p, _ := r.Parent(v)
			if p == SuperRoot || p == Unreachable {
				break
			}
			v = p
		}
		for i := len(stack) - 1; i >= 0; i-- {
			v := stack[i]
			k := own[v]
			if p, l := r.Parent(v); p != SuperRoot && p != Unreachable {
				h.Reset()
				var buf [16]byte
				putUint64(buf[:8], k)
				putUint64(buf[8:], keys[p])
				h.Write(buf[:])
				h.WriteString(g.EdgeName(l))
				k = h.Sum64()
			}
			keys[v] = k
			done.set(uint32(v))
		}
		stack = stack[:0]
	}
	return keys
}

func putUint64(b []byte, x uint64) {
	for i := range 8 {
		b[i] = byte(x >> (8 * i))
	}
}

// ownKeys hashes what identifies each object by itself: address, type,
// and content for immutable types.
func ownKeys(g *heap.Graph) []uint64 {
	keys := make([]uint64, g.NumObjects())
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
	return keys
}
