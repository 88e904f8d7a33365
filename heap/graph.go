package heap

import (
	"iter"
	"sort"
	"strconv"
	"sync"
	"time"

	"github.com/heapscope/heapscope/internal/spill"
)

// Meta describes where a snapshot came from.
type Meta struct {
	// Runtime is "python", "java" or "v8".
	Runtime string
	// Version is the runtime's version, when known ("3.11.7", "17.0.15").
	Version string
	// Attrs holds further facts (pid, time, argv, rss) as text.
	Attrs map[string]string
	// Dumps lists the heap dumps the file holds when it holds more than
	// one (the old hprof agent wrote one per dump request into one
	// file); the graph is the one whose Read is true. Nil for a file of
	// one dump.
	Dumps []Dump
	// Live reports that every object in the snapshot was alive when it
	// was taken (the runtime collected garbage first and wrote only what
	// survived, as V8 does): an object that no retaining path reaches is
	// then held through an edge the model does not count as retaining
	// (a weak edge, or one the reader demoted), not garbage.
	Live bool
}

// Dump is one of several heap dumps in a file.
type Dump struct {
	Number  int       `json:"number"` // from 1, in file order
	Objects int       `json:"objects"`
	Time    time.Time `json:"time"`
	Read    bool      `json:"read,omitempty"` // the graph is this dump
}

// Graph is an immutable heap snapshot. All slices it returns are views
// into its arrays: callers must not modify them.
type Graph struct {
	addr      []uint64
	typ       []TypeID
	size      []uint64
	edgeStart []uint32 // len NumObjects+1
	edges     []Edge

	typeNames []StringID
	strs      []string
	roots     []Root

	refcnt []uint32 // nil when the runtime has no reference counts
	flags  []Flags  // nil when the reader supplied none

	valObj []ObjectID // sorted
	valStr texts

	digObj []ObjectID // sorted
	digVal []uint64

	lenObj []ObjectID // sorted
	lenVal []uint32

	limObj []ObjectID // sorted
	limVal []uint64

	nameObj   []ObjectID // sorted
	nameStr   []StringID
	site      []SiteID // nil when the snapshot records no allocation sites
	siteFrame []Frame  // by SiteID; entry 0 is NoSite's
	sitePar   []SiteID

	meta     Meta
	warnings []Warning
	skipped  bool // see EdgesSkipped

	addrOnce  sync.Once
	addrOrder []ObjectID

	revOnce  sync.Once
	revStart []uint32
	revFrom  []ObjectID
}

// NumObjects returns the number of objects.
func (g *Graph) NumObjects() int { return len(g.typ) }

// NumEdges returns the number of edges.
func (g *Graph) NumEdges() int { return len(g.edges) }

// NumTypes returns the number of types.
func (g *Graph) NumTypes() int { return len(g.typeNames) }

// Objects iterates over all object IDs in order.
func (g *Graph) Objects() iter.Seq[ObjectID] {
	return func(yield func(ObjectID) bool) {
		for i := range g.typ {
			if !yield(ObjectID(i)) {
				return
			}
		}
	}
}

// Addr returns the runtime's identity of the object: its address (Python,
// HPROF) or its stable node id (V8).
func (g *Graph) Addr(id ObjectID) uint64 { return g.addr[id] }

// Type returns the object's type.
func (g *Graph) Type(id ObjectID) TypeID { return g.typ[id] }

// Size returns the object's shallow size in bytes.
func (g *Graph) Size(id ObjectID) uint64 { return g.size[id] }

// Sizes returns the shallow sizes of all objects, indexed by ObjectID.
func (g *Graph) Sizes() []uint64 { return g.size }

// Types returns the types of all objects, indexed by ObjectID.
func (g *Graph) Types() []TypeID { return g.typ }

// TypeName returns the name of type t.
func (g *Graph) TypeName(t TypeID) string { return g.strs[g.typeNames[t]] }

// Edges returns the outgoing edges of id.
func (g *Graph) Edges(id ObjectID) []Edge {
	return g.edges[g.edgeStart[id]:g.edgeStart[id+1]]
}

// EdgeRange returns the half-open range of id's edges in [Graph.AllEdges].
func (g *Graph) EdgeRange(id ObjectID) (start, end uint32) {
	return g.edgeStart[id], g.edgeStart[id+1]
}

// AllEdges returns every edge, grouped by source in ObjectID order.
func (g *Graph) AllEdges() []Edge { return g.edges }

// NumStrings returns the size of the string table.
func (g *Graph) NumStrings() int { return len(g.strs) }

// TypeNameID returns the interned name of type t.
func (g *Graph) TypeNameID(t TypeID) StringID { return g.typeNames[t] }

// String returns interned string s.
func (g *Graph) String(s StringID) string {
	if int(s) >= len(g.strs) {
		return ""
	}
	return g.strs[s]
}

// EdgeName formats an edge label for display: its name, "[i]" for an
// index, or "" when it has neither.
func (g *Graph) EdgeName(l Label) string {
	if l.IsIndex() {
		return "[" + strconv.FormatUint(uint64(l.Index()), 10) + "]"
	}
	return g.String(l.Name())
}

// Roots returns the roots, in the order the reader found them.
func (g *Graph) Roots() []Root { return g.roots }

// Refcount returns the object's reference count as the runtime reported
// it, and whether the runtime reports reference counts at all.
func (g *Graph) Refcount(id ObjectID) (uint32, bool) {
	if g.refcnt == nil {
		return 0, false
	}
	return g.refcnt[id], true
}

// HasRefcounts reports whether the snapshot carries reference counts.
func (g *Graph) HasRefcounts() bool { return g.refcnt != nil }

// Flags returns the object's flags (0 when the reader supplied none).
func (g *Graph) Flags(id ObjectID) Flags {
	if g.flags == nil {
		return 0
	}
	return g.flags[id]
}

// Value returns the object's short value label (a string prefix, a
// number), if the snapshot has one.
func (g *Graph) Value(id ObjectID) (string, bool) {
	i := sort.Search(len(g.valObj), func(i int) bool { return g.valObj[i] >= id })
	if i < len(g.valObj) && g.valObj[i] == id {
		return g.valStr.at(i), true
	}
	return "", false
}

// NumValues returns how many objects carry a value label.
func (g *Graph) NumValues() int { return len(g.valObj) }

// Values iterates over the objects that carry a value label, in ID order.
func (g *Graph) Values() iter.Seq2[ObjectID, string] {
	return func(yield func(ObjectID, string) bool) {
		for i, id := range g.valObj {
			if !yield(id, g.valStr.at(i)) {
				return
			}
		}
	}
}

// Name returns the object's own name, when the snapshot gives it one: the
// class a class object stands for ("class java.util.HashMap"). Reports
// print it in place of the type name, which stays what the object is
// (java.lang.Class); analyses that group objects group them by type.
func (g *Graph) Name(id ObjectID) (string, bool) {
	i := sort.Search(len(g.nameObj), func(i int) bool { return g.nameObj[i] >= id })
	if i < len(g.nameObj) && g.nameObj[i] == id {
		return g.strs[g.nameStr[i]], true
	}
	return "", false
}

// NumNames returns how many objects carry a name.
func (g *Graph) NumNames() int { return len(g.nameObj) }

// Digest returns a hash of the object's whole content (a string's
// characters, a byte string's bytes) when the snapshot has one. Equal
// content gives equal digests within one snapshot; duplicate detection
// relies on it. Digests are not comparable across snapshots.
func (g *Graph) Digest(id ObjectID) (uint64, bool) {
	i := sort.Search(len(g.digObj), func(i int) bool { return g.digObj[i] >= id })
	if i < len(g.digObj) && g.digObj[i] == id {
		return g.digVal[i], true
	}
	return 0, false
}

// Length returns the number of elements of the object as the runtime
// records it, when the snapshot has it: a Java object array's length,
// empty slots included (they have no edge).
func (g *Graph) Length(id ObjectID) (uint32, bool) {
	i := sort.Search(len(g.lenObj), func(i int) bool { return g.lenObj[i] >= id })
	if i < len(g.lenObj) && g.lenObj[i] == id {
		return g.lenVal[i], true
	}
	return 0, false
}

// Limit returns the most entries the object can hold, when the snapshot
// records such a limit: a Python deque's maxlen. A container without
// one (a deque without a maxlen, a dict) has none.
func (g *Graph) Limit(id ObjectID) (uint64, bool) {
	i := sort.Search(len(g.limObj), func(i int) bool { return g.limObj[i] >= id })
	if i < len(g.limObj) && g.limObj[i] == id {
		return g.limVal[i], true
	}
	return 0, false
}

// Limits iterates over the objects that carry a limit, in ID order.
func (g *Graph) Limits() iter.Seq2[ObjectID, uint64] {
	return func(yield func(ObjectID, uint64) bool) {
		for i, id := range g.limObj {
			if !yield(id, g.limVal[i]) {
				return
			}
		}
	}
}

// Digests iterates over the objects that carry a digest, in ID order.
func (g *Graph) Digests() iter.Seq2[ObjectID, uint64] {
	return func(yield func(ObjectID, uint64) bool) {
		for i, id := range g.digObj {
			if !yield(id, g.digVal[i]) {
				return
			}
		}
	}
}

// EdgesSkipped reports that the reader left the snapshot's references
// out (a summary reads none: heapfile.Options.SkipEdges), but for the few
// that names need, such as a Python class's edge to its __qualname__. An
// analysis of what holds what must not use such a graph.
func (g *Graph) EdgesSkipped() bool { return g.skipped }

// Meta returns where the snapshot came from.
func (g *Graph) Meta() Meta { return g.meta }

// Warnings returns the problems the reader survived.
func (g *Graph) Warnings() []Warning { return g.warnings }

// TotalSize returns the sum of all shallow sizes.
func (g *Graph) TotalSize() uint64 {
	var t uint64
	for _, s := range g.size {
		t += s
	}
	return t
}

// FindAddr returns the object with runtime address a. The first call
// builds a sorted index of addresses (4 bytes per object), once.
func (g *Graph) FindAddr(a uint64) (ObjectID, bool) {
	g.addrOnce.Do(func() {
		order := spill.Make[ObjectID](len(g.addr))
		for i := range order {
			order[i] = ObjectID(i)
		}
		sort.Slice(order, func(i, j int) bool { return g.addr[order[i]] < g.addr[order[j]] })
		g.addrOrder = order
	})
	i := sort.Search(len(g.addrOrder), func(i int) bool { return g.addr[g.addrOrder[i]] >= a })
	if i < len(g.addrOrder) && g.addr[g.addrOrder[i]] == a {
		return g.addrOrder[i], true
	}
	return None, false
}

// Referrers returns the sources of the edges that point to id, one entry
// per edge (a source that refers twice appears twice), in source order.
// The reverse index is built on first call, once, for the whole graph.
func (g *Graph) Referrers(id ObjectID) []ObjectID {
	g.revOnce.Do(g.buildReverse)
	return g.revFrom[g.revStart[id]:g.revStart[id+1]]
}

// buildReverse builds the reverse CSR: count, prefix sum, fill.
func (g *Graph) buildReverse() {
	n := len(g.typ)
	start := spill.Make[uint32](n + 1)
	for _, e := range g.edges {
		start[e.To+1]++
	}
	for i := 1; i <= n; i++ {
		start[i] += start[i-1]
	}
	from := spill.Make[ObjectID](len(g.edges))
	fill := spill.Make[uint32](n)
	copy(fill, start[:n])
	for src := 0; src < n; src++ {
		for _, e := range g.edges[g.edgeStart[src]:g.edgeStart[src+1]] {
			from[fill[e.To]] = ObjectID(src)
			fill[e.To]++
		}
	}
	spill.Free(fill)
	g.revStart, g.revFrom = start, from
}
