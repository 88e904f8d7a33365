package heap

import (
	"errors"
	"fmt"
	"sort"
	"strconv"

	"github.com/heapscope/heapscope/internal/spill"
)

// maxWarnings is how many warnings a Graph keeps word for word; beyond
// it, warnings are counted and summarized in one last warning.
const maxWarnings = 200

// ErrNoObjects is wrapped by a reader's error for a snapshot that holds
// no object: the heap of a live program is never empty, so the file is
// cut short, or not a heap snapshot after all.
var ErrNoObjects = errors.New("no objects")

// Targets says how a [Builder]'s edges name their targets.
type Targets uint8

const (
	// ByAddress: edge targets are runtime addresses, resolved when the
	// graph is built; edges to unknown addresses are dropped with a warning.
	ByAddress Targets = iota
	// ByID: edge targets are ObjectIDs the reader already knows.
	ByID
)

// Builder assembles a [Graph]. Readers add objects in order, then edges
// grouped by source in nondecreasing source order (an edge whose source
// comes earlier than the previous edge's is accepted too, at some cost).
// A Builder is not safe for concurrent use.
type Builder struct {
	targets Targets

	addr      []uint64
	typ       []TypeID
	size      []uint64
	edgeStart []uint32 // filled up to cur+1
	cur       int      // source of the last in-order edge
	tgt       []uint64 // ByAddress: edge targets
	lab       []Label  // ByAddress: edge labels
	ed        []Edge   // ByID: the edges, targets unchecked

	late []lateEdge // edges whose source came out of order

	// Edges and targets whose loss is no news (see EdgeIfObject, Omit).
	maybe   []uint32 // indices in tgt of edges kept only if they resolve, ascending
	omitted map[uint64]bool

	typeNames []StringID
	typeIndex map[string]TypeID
	strs      []string
	strIndex  map[string]StringID

	roots     []pendingRoot
	refcnt    []uint32
	flags     []Flags
	valObj    []ObjectID
	valStr    texts
	digObj    []ObjectID
	digVal    []uint64
	lenObj    []ObjectID
	lenVal    []uint32
	limObj    []ObjectID
	limVal    []uint64
	limAt     []uint64 // addresses of limits given by address
	limAtVal  []uint64
	valAt     []uint64 // addresses of values given by address
	valAtStr  texts
	digAt     []uint64
	digAtVal  []uint64
	nameObj   []ObjectID
	nameStr   []StringID
	namer     func(*Graph, ObjectID) (string, bool)
	site      []SiteID
	siteAt    []uint64 // addresses of sites given by address
	siteAtID  []SiteID
	siteFrame []Frame
	sitePar   []SiteID
	meta      Meta
	warnings  []Warning
	nwarnings int
	summaries []Warning // kept whatever the count; they come first
	err       error

	skipEdges bool // see SkipEdges
}

type lateEdge struct {
	from ObjectID
	to   uint64
	l    Label
}

type pendingRoot struct {
	kind   RootKind
	target uint64 // an address or an ObjectID, as the builder's Targets says
	name   StringID
}

// NewBuilder returns a Builder whose edges and roots name their targets
// as t says.
func NewBuilder(t Targets) *Builder {
	return &Builder{
		targets:   t,
		edgeStart: []uint32{0},
		typeIndex: map[string]TypeID{},
		strs:      []string{""},
		strIndex:  map[string]StringID{"": 0},
	}
}

// Grow preallocates room for n more objects and m more edges.
func (b *Builder) Grow(n, m int) {
	if n > 0 {
		b.addr = growTo(b.addr, n)
		b.typ = growTo(b.typ, n)
		b.size = growTo(b.size, n)
		if b.refcnt != nil {
			b.refcnt = growTo(b.refcnt, n)
		}
		if b.flags != nil {
			b.flags = growTo(b.flags, n)
		}
		if b.site != nil {
			b.site = growTo(b.site, n)
		}
	}
	if n > 0 {
		b.edgeStart = growTo(b.edgeStart, n)
	}
	if m > 0 {
		if b.targets == ByID {
			b.ed = growTo(b.ed, m)
		} else {
			b.tgt = growTo(b.tgt, m)
			b.lab = growTo(b.lab, m)
		}
	}
}

// GrowValues preallocates room for n more value labels and n more
// digests.
func (b *Builder) GrowValues(n int) {
	if n > 0 {
		b.valObj = growTo(b.valObj, n)
		b.valStr.grow(n, 16*n)
		b.digObj = growTo(b.digObj, n)
		b.digVal = growTo(b.digVal, n)
	}
}

// growTo is spill.Grow: the builder's columns are the graph's largest
// arrays, which go to files past --max-memory. s must not be used after.
func growTo[T any](s []T, more int) []T { return spill.Grow(s, more) }

// GrowStrings preallocates room for n more distinct strings (interned
// by [Builder.String] or [Builder.Type]), so that a reader that knows
// how many names it will intern does not rehash the index as it grows.
func (b *Builder) GrowStrings(n int) {
	if n <= 0 || cap(b.strs)-len(b.strs) >= n {
		return
	}
	b.strs = growTo(b.strs, n)
	idx := make(map[string]StringID, len(b.strIndex)+n)
	for s, id := range b.strIndex {
		idx[s] = id
	}
	b.strIndex = idx
}

// PendingEdges returns the edges of a ByID builder added so far in
// order (not those whose source came out of order), in the order they
// were added. The slice aliases the builder's own storage: until the
// next call of [Builder.Edge], [Builder.Grow] or [Builder.Build], a
// reader may read them and rewrite their labels in place, for instance
// to replace provisional labels given while parsing by the final ones.
// Targets must be left as they are. It returns nil for ByAddress
// builders.
func (b *Builder) PendingEdges() []Edge {
	if b.targets != ByID {
		return nil
	}
	return b.ed
}

// String interns s and returns its ID.
func (b *Builder) String(s string) StringID {
	if id, ok := b.strIndex[s]; ok {
		return id
	}
	id := StringID(len(b.strs))
	if id > labelValue && b.err == nil {
		b.err = errors.New("heap: more than 2^29 distinct strings")
	}
	b.strs = append(b.strs, s)
	b.strIndex[s] = id
	return id
}

// Type interns a type by name and returns its ID.
func (b *Builder) Type(name string) TypeID {
	if id, ok := b.typeIndex[name]; ok {
		return id
	}
	id := TypeID(len(b.typeNames))
	b.typeNames = append(b.typeNames, b.String(name))
	b.typeIndex[name] = id
	return id
}

// NumObjects returns the number of objects added so far.
func (b *Builder) NumObjects() int { return len(b.typ) }

// Object adds an object and returns its ID. addr is the runtime's identity
// of the object (address or stable id).
func (b *Builder) Object(addr uint64, t TypeID, size uint64) ObjectID {
	id := ObjectID(len(b.typ))
	if id == None-1 && b.err == nil {
		b.err = errors.New("heap: too many objects")
	}
	b.addr = append(b.addr, addr)
	b.typ = append(b.typ, t)
	b.size = append(b.size, size)
	return id
}

// SetType changes the type of object id, for readers that learn types
// after they add objects.
func (b *Builder) SetType(id ObjectID, t TypeID) { b.typ[id] = t }

// Edge adds an edge from object from to target to (an address or an
// ObjectID, as the builder's [Targets] says).
func (b *Builder) Edge(from ObjectID, to uint64, l Label) {
	if int(from) < b.cur {
		b.late = append(b.late, lateEdge{from, to, l})
		return
	}
	m := b.numEdges()
	if m >= 1<<32-1 {
		if b.err == nil {
			b.err = errors.New("heap: more than 2^32-1 edges")
		}
		return
	}
	for b.cur < int(from) {
		b.edgeStart = append(b.edgeStart, uint32(m))
		b.cur++
	}
	if b.targets == ByID {
		if to >= uint64(None) {
			to = uint64(None) // out of range; dropped at Build
		}
		b.ed = append(b.ed, Edge{ObjectID(to), l})
		return
	}
	b.tgt = append(b.tgt, to)
	b.lab = append(b.lab, l)
}

// EdgeIfObject adds an edge (as Edge does) that is kept if to is the
// address of an object, and dropped without a warning if not: a word of
// a runtime structure that may or may not be a reference (Python's
// interpreter state). Only for ByAddress builders and edges added in
// order; others are ordinary edges.
func (b *Builder) EdgeIfObject(from ObjectID, to uint64, l Label) {
	if b.targets != ByAddress || int(from) < b.cur {
		b.Edge(from, to, l) // out of order: an edge like any other
		return
	}
	b.maybe = append(b.maybe, uint32(b.numEdges()))
	b.Edge(from, to, l)
	if len(b.maybe) > 0 && int(b.maybe[len(b.maybe)-1]) >= b.numEdges() {
		b.maybe = b.maybe[:len(b.maybe)-1] // not added (too many edges)
	}
}

// Omit records that the object at address a was left out of the
// snapshot on purpose (the Python agent's own objects): edges to it are
// dropped without a warning. ByAddress only.
func (b *Builder) Omit(a uint64) {
	if b.omitted == nil {
		b.omitted = map[uint64]bool{}
	}
	b.omitted[a] = true
}

// quiet says whether the edge at index k of tgt (-1: a late edge), to
// address to, may point to no object without a warning.
func (b *Builder) quiet(k int, to uint64) bool {
	if b.omitted[to] {
		return true
	}
	if k < 0 || len(b.maybe) == 0 {
		return false
	}
	i := sort.Search(len(b.maybe), func(i int) bool { return int(b.maybe[i]) >= k })
	return i < len(b.maybe) && int(b.maybe[i]) == k
}

func (b *Builder) numEdges() int { return len(b.tgt) + len(b.ed) }

// Root marks target (an address or an ObjectID, as the builder's
// [Targets] says) as a root of the given kind.
func (b *Builder) Root(kind RootKind, target uint64, name StringID) {
	b.roots = append(b.roots, pendingRoot{kind, target, name})
}

// SetRefcount records the runtime's reference count of id.
func (b *Builder) SetRefcount(id ObjectID, n uint32) {
	b.refcnt = setAt(b.refcnt, cap(b.typ), id, n)
}

// setAt sets column s at id to v, making s (with capacity c) or
// growing it with zeros as needed, and returns it.
func setAt[T any](s []T, c int, id ObjectID, v T) []T {
	if s == nil {
		s = spill.MakeCap[T](0, c)
	}
	if int(id) < len(s) {
		s[id] = v
		return s
	}
	var zero T
	for len(s) < int(id) {
		s = append(s, zero)
	}
	return append(s, v)
}

// SetFlags records the flags of id.
func (b *Builder) SetFlags(id ObjectID, f Flags) {
	b.flags = setAt(b.flags, cap(b.typ), id, f)
}

// SetValue records a short value label for id.
func (b *Builder) SetValue(id ObjectID, v string) {
	b.valObj = append(b.valObj, id)
	b.valStr.add(v)
}

// SetName records the object's own name, interned by [Builder.String]
// (see [Graph.Name]). An object named twice keeps its first name.
func (b *Builder) SetName(id ObjectID, s StringID) {
	b.nameObj = append(b.nameObj, id)
	b.nameStr = append(b.nameStr, s)
}

// SetNamer has Build name the objects SetName left unnamed by what the
// built graph holds (a Python class by its __qualname__ and module): f
// returns the name of object id of g, or false. f sees g before Build
// returns it and must only read it.
func (b *Builder) SetNamer(f func(g *Graph, id ObjectID) (string, bool)) { b.namer = f }

// SetDigest records a hash of id's whole content (see [Graph.Digest]).
func (b *Builder) SetDigest(id ObjectID, d uint64) {
	b.digObj = append(b.digObj, id)
	b.digVal = append(b.digVal, d)
}

// SetLength records the number of elements of object id as the runtime
// records it: an array's length, including its empty slots, which have
// no edge.
func (b *Builder) SetLength(id ObjectID, n uint32) {
	b.lenObj = append(b.lenObj, id)
	b.lenVal = append(b.lenVal, n)
}

// SetLimit records the most entries object id can hold (see
// [Graph.Limit]).
func (b *Builder) SetLimit(id ObjectID, n uint64) {
	b.limObj = append(b.limObj, id)
	b.limVal = append(b.limVal, n)
}

// LimitAt records a limit for the object at address addr, as
// [Builder.ValueAt] does for labels.
func (b *Builder) LimitAt(addr uint64, n uint64) {
	b.limAt = append(b.limAt, addr)
	b.limAtVal = append(b.limAtVal, n)
}

// SetValueBytes is SetValue for a label held in a byte slice, which it
// copies.
func (b *Builder) SetValueBytes(id ObjectID, v []byte) {
	b.valObj = append(b.valObj, id)
	b.valStr.addBytes(v)
}

// ValueBytesAt is ValueAt for a label held in a byte slice, which it
// copies.
func (b *Builder) ValueBytesAt(addr uint64, v []byte) {
	b.valAt = append(b.valAt, addr)
	b.valAtStr.addBytes(v)
}

// ValueAt records a value label for the object at address addr, resolved
// when the graph is built (labels of unknown addresses are dropped). Only
// for builders whose Targets is ByAddress.
func (b *Builder) ValueAt(addr uint64, v string) {
	b.valAt = append(b.valAt, addr)
	b.valAtStr.add(v)
}

// GrowValuesAt preallocates room for n more value labels (of about
// bytes bytes in all) and n more digests given by address.
func (b *Builder) GrowValuesAt(n, bytes int) {
	if n > 0 {
		b.valAt = growTo(b.valAt, n)
		b.valAtStr.grow(n, bytes)
		b.digAt = growTo(b.digAt, n)
		b.digAtVal = growTo(b.digAtVal, n)
	}
}

// DigestAt records a content digest for the object at address addr, as
// [Builder.ValueAt] does for labels.
func (b *Builder) DigestAt(addr uint64, d uint64) {
	b.digAt = append(b.digAt, addr)
	b.digAtVal = append(b.digAtVal, d)
}

// SkipEdges records that the reader leaves the snapshot's references
// out, but for the few that names need (a Python class's __qualname__):
// see [Graph.EdgesSkipped]. Edge targets given by address are then found
// without an index of every address: a map of the few addresses looked
// up (so objects that share an address are not counted).
func (b *Builder) SkipEdges() { b.skipEdges = true }

// SetMeta records where the snapshot came from.
func (b *Builder) SetMeta(m Meta) { b.meta = m }

// Warn records a problem that did not stop reading; offset is the byte
// offset in the input, or -1.
func (b *Builder) Warn(offset int64, format string, args ...any) {
	b.nwarnings++
	if len(b.warnings) < maxWarnings {
		b.warnings = append(b.warnings, Warning{offset, fmt.Sprintf(format, args...)})
	}
}

// WarnSummary records a warning that sums up many problems, or names
// their cause: unlike [Builder.Warn]'s, it is always kept, however many
// warnings came before it, and the graph lists it before them.
func (b *Builder) WarnSummary(offset int64, format string, args ...any) {
	b.summaries = append(b.summaries, Warning{offset, fmt.Sprintf(format, args...)})
}

// Build resolves edge targets and returns the finished Graph. The Builder
// must not be used afterwards.
func (b *Builder) Build() (*Graph, error) {
	if b.err != nil {
		return nil, b.err
	}
	n := len(b.typ)
	if len(b.edgeStart) == 1 && b.numEdges() == 0 {
		// No references (a census): offsets of 0 are what new memory
		// holds already, untouched until read.
		if cap(b.edgeStart) > n {
			b.edgeStart = b.edgeStart[:n+1]
		} else {
			spill.Free(b.edgeStart)
			b.edgeStart = spill.Make[uint32](n + 1)
		}
	}
	for len(b.edgeStart) < n+1 {
		b.edgeStart = append(b.edgeStart, uint32(b.numEdges()))
	}
	if b.cur >= n && b.numEdges() > 0 {
		return nil, fmt.Errorf("heap: edge from object %d, but only %d objects", b.cur, n)
	}
	for _, e := range b.late {
		if int(e.from) >= n {
			return nil, fmt.Errorf("heap: edge from object %d, but only %d objects", e.from, n)
		}
	}

	var idx addrLookup
	if b.targets == ByAddress {
		// A snapshot with nothing but roots to resolve by address (a
		// census: objects without references), or few (SkipEdges), needs
		// no index of every address.
		rootsOnly := b.numEdges() == 0 && len(b.late) == 0 && len(b.valAt) == 0 && len(b.digAt) == 0 && len(b.siteAt) == 0 && len(b.limAt) == 0
		if rootsOnly || b.skipEdges {
			idx = b.wantedIndex()
		} else {
			full := NewAddrIndex(b.addr)
			if d := full.Duplicates(); d > 0 {
				b.Warn(-1, "%d objects share an address with an earlier object; references go to the first", d)
			}
			idx = full
		}
	}
	var dangling int
	var firstDangling uint64
	resolve := func(k int, to uint64) (ObjectID, bool) {
		if idx != nil {
			id, ok := idx.Lookup(to)
			if !ok && !b.quiet(k, to) {
				if dangling == 0 {
					firstDangling = to
				}
				dangling++
			}
			return id, ok
		}
		if to >= uint64(n) {
			if dangling == 0 {
				firstDangling = to
			}
			dangling++
			return None, false
		}
		return ObjectID(to), true
	}

	var edges []Edge
	var newStart []uint32
	if b.targets == ByID {
		// Compact in place: no copy of the edge array.
		edges, newStart = b.ed, b.edgeStart[:n+1]
		w := uint32(0)
		firstSrc := -1 // source of the first dangling edge
		for src := 0; src < n; src++ {
			lo, hi := newStart[src], newStart[src+1]
			newStart[src] = w
			for k := lo; k < hi; k++ {
				if id, ok := resolve(-1, uint64(edges[k].To)); ok {
					edges[w] = Edge{id, edges[k].Label}
					w++
				} else if firstSrc < 0 {
					firstSrc = src
				}
			}
		}
		newStart[n] = w
		edges = edges[:w]
		if len(b.late) > 0 {
			edges = b.mergeLate(n, edges, newStart, firstSrc, &dangling, &firstDangling)
		}
		edges = edges[:len(edges):len(edges)]
	} else if b.targets == ByAddress && len(b.late) == 0 && len(b.tgt) > 0 {
		edges, newStart, dangling, firstDangling = b.resolveInPlace(n, idx)
		spill.Free(b.lab)
	} else if b.numEdges() == 0 && len(b.late) == 0 {
		// No references at all (a census): the offsets are all 0
		// already, and there is nothing to copy.
		edges, newStart = []Edge{}, b.edgeStart[:n+1]
	} else {
		edges, newStart = b.mergeEdges(n, resolve)
		spill.Free(b.tgt)
		spill.Free(b.lab)
		spill.Free(b.ed)
		spill.Free(b.edgeStart)
	}
	b.tgt, b.lab, b.ed, b.late = nil, nil, nil, nil
	if dangling > 0 {
		b.Warn(-1, "%d references point to no object in the snapshot (first: %#x); they were dropped", dangling, firstDangling)
	}
	return b.finish(n, idx, edges, newStart)
}

// finish resolves roots and the sparse columns and assembles the Graph.
func (b *Builder) finish(n int, idx addrLookup, edges []Edge, newStart []uint32) (*Graph, error) {
	roots := make([]Root, 0, len(b.roots))
	var lostRoots int
	for _, r := range b.roots {
		var id ObjectID
		var ok bool
		if idx != nil {
			id, ok = idx.Lookup(r.target)
		} else {
			id, ok = ObjectID(r.target), r.target < uint64(n)
		}
		if !ok {
			lostRoots++
			continue
		}
		roots = append(roots, Root{Object: id, Kind: r.kind, Name: r.name})
	}
	if lostRoots > 0 {
		b.Warn(-1, "%d roots point to no object in the snapshot; they were dropped", lostRoots)
	}

	if b.refcnt != nil {
		for len(b.refcnt) < n {
			b.refcnt = append(b.refcnt, 0)
		}
	}
	if b.flags != nil {
		for len(b.flags) < n {
			b.flags = append(b.flags, 0)
		}
	}
	if idx != nil {
		for i, a := range b.valAt {
			if id, ok := idx.Lookup(a); ok {
				b.valObj = append(b.valObj, id)
				b.valStr.add(b.valAtStr.at(i))
			}
		}
		for i, a := range b.digAt {
			if id, ok := idx.Lookup(a); ok {
				b.digObj = append(b.digObj, id)
				b.digVal = append(b.digVal, b.digAtVal[i])
			}
		}
		for i, a := range b.limAt {
			if id, ok := idx.Lookup(a); ok {
				b.limObj = append(b.limObj, id)
				b.limVal = append(b.limVal, b.limAtVal[i])
			}
		}
		for i, a := range b.siteAt {
			if id, ok := idx.Lookup(a); ok && (int(id) >= len(b.site) || b.site[id] == NoSite) {
				b.SetSite(id, b.siteAtID[i])
			}
		}
	}
	if b.site != nil {
		for len(b.site) < n {
			b.site = append(b.site, NoSite)
		}
		b.site = b.site[:n]
	}
	if len(b.valObj) > 0 && b.valStr.len() == 0 {
		b.valStr.grow(len(b.valObj), 0)
	}
	valObj, valStr := sortTexts(b.valObj, b.valStr, n)
	digObj, digVal := sortSparse(b.digObj, b.digVal, n)
	lenObj, lenVal := sortSparse(b.lenObj, b.lenVal, n)
	limObj, limVal := sortSparse(b.limObj, b.limVal, n)
	nameObj, nameStr := sortSparse(b.nameObj, b.nameStr, n)

	if b.nwarnings > len(b.warnings) {
		b.warnings = append(b.warnings, Warning{-1, fmt.Sprintf("%d more warnings not kept", b.nwarnings-len(b.warnings))})
	}
	if len(b.summaries) > 0 {
		b.warnings = append(b.summaries, b.warnings...)
	}
	if b.meta.Attrs == nil {
		b.meta.Attrs = map[string]string{}
	}
	g := &Graph{
		addr:      b.addr,
		typ:       b.typ,
		size:      b.size,
		edgeStart: newStart,
		edges:     edges,
		typeNames: b.typeNames,
		strs:      b.strs,
		roots:     roots,
		refcnt:    b.refcnt,
		flags:     b.flags,
		valObj:    valObj,
		valStr:    valStr,
		digObj:    digObj,
		digVal:    digVal,
		lenObj:    lenObj,
		lenVal:    lenVal,
		limObj:    limObj,
		limVal:    limVal,
		nameObj:   nameObj,
		nameStr:   nameStr,
		site:      b.site,
		siteFrame: b.siteFrame,
		sitePar:   b.sitePar,
		meta:      b.meta,
		warnings:  b.warnings,
		skipped:   b.skipEdges,
	}
	namer := b.namer
	*b = Builder{}
	if namer != nil {
		g.addNames(namer)
	}
	return g, nil
}

// addNames names the objects g has no name for that f names (see
// [Builder.SetNamer]), each distinct name interned once.
func (g *Graph) addNames(f func(*Graph, ObjectID) (string, bool)) {
	var ids []ObjectID
	var strs []StringID
	interned := map[string]StringID{}
	j := 0
	for id := range ObjectID(len(g.typ)) {
		if j < len(g.nameObj) && g.nameObj[j] == id {
			j++
			continue
		}
		s, ok := f(g, id)
		if !ok {
			continue
		}
		sid, ok := interned[s]
		if !ok {
			sid = StringID(len(g.strs))
			g.strs = append(g.strs, s)
			interned[s] = sid
		}
		ids = append(ids, id)
		strs = append(strs, sid)
	}
	if len(ids) == 0 {
		return
	}
	// Merge the two sorted columns.
	objs := make([]ObjectID, 0, len(g.nameObj)+len(ids))
	names := make([]StringID, 0, cap(objs))
	a := 0
	for i, id := range ids {
		for a < len(g.nameObj) && g.nameObj[a] < id {
			objs, names = append(objs, g.nameObj[a]), append(names, g.nameStr[a])
			a++
		}
		objs, names = append(objs, id), append(names, strs[i])
	}
	objs, names = append(objs, g.nameObj[a:]...), append(names, g.nameStr[a:]...)
	g.nameObj, g.nameStr = objs, names
}

// sortSparse sorts a sparse per-object column by object, keeping the first
// entry of an object given twice and dropping objects out of range.
func sortSparse[T any](ids []ObjectID, vals []T, n int) ([]ObjectID, []T) {
	if !sort.SliceIsSorted(ids, func(i, j int) bool { return ids[i] < ids[j] }) {
		perm := make([]int, len(ids))
		for i := range perm {
			perm[i] = i
		}
		sort.SliceStable(perm, func(i, j int) bool { return ids[perm[i]] < ids[perm[j]] })
		si, sv := make([]ObjectID, len(perm)), make([]T, len(perm))
		for i, p := range perm {
			si[i], sv[i] = ids[p], vals[p]
		}
		ids, vals = si, sv
	}
	w := 0
	for i := range ids {
		if int(ids[i]) >= n || (w > 0 && ids[w-1] == ids[i]) {
			continue
		}
		ids[w], vals[w] = ids[i], vals[i]
		w++
	}
	return ids[:w], vals[:w]
}

// IndexLabel returns the label of an edge of kind k that is element i of
// its source, as [IndexLabel] does, but loses nothing: an index above
// [MaxIndex] is interned as a name, its decimal text in brackets
// ("[600000000]"), which [Graph.EdgeName] shows as it would an index.
func (b *Builder) IndexLabel(k EdgeKind, i uint64) Label {
	if i <= MaxIndex {
		return IndexLabel(k, i)
	}
	s := b.String("[" + strconv.FormatUint(i, 10) + "]")
	if s > labelValue {
		return IndexLabel(k, i) // Build fails: too many strings
	}
	return NamedLabel(k, s)
}
