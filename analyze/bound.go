package analyze

import (
	"math"
	"strconv"

	"github.com/heapscope/heapscope/heap"
)

// Bound is what the snapshots show of a limit on a finding's place: a
// cache that fills up to it is no leak, unless the limit is too big.
type Bound struct {
	// Kind says how the limit shows:
	//   - "lru_cache": a functools.lru_cache with a maxsize (sympy's
	//     cacheit is one), which Max gives;
	//   - "maxlen": a collections.deque with a maxlen, which Max gives
	//     (the snapshot records it: see [heap.Graph.Limit]); once full,
	//     each item appended pushes out the oldest;
	//   - "evicts": entries the place held in target are gone by final,
	//     so code trims it (Evicted counts them);
	//   - "per-object": the place is a field of objects the baseline
	//     already had, each of which gained one object there, once (an
	//     attribute set lazily on first use, as sympy computes a cached
	//     number's assumptions): there can be no more of them than such
	//     objects, which Max counts.
	Kind string `json:"kind"`
	// Max is the limit when the snapshot records it; 0 otherwise.
	Max int `json:"max,omitempty"`
	// Filled is how many entries the place holds in final (per-object:
	// how many of the objects hold one).
	Filled int `json:"filled"`
	// Evicted is how many of the entries it held in target are gone by
	// final (by identity; Kind "evicts").
	Evicted int `json:"evicted,omitempty"`
}

// Full reports whether the place holds as many entries as its limit
// allows: an lru_cache at its maxsize, a deque at its maxlen. Each
// entry it gains then evicts one, so it gains without growing.
func (b *Bound) Full() bool {
	return b != nil && (b.Kind == "lru_cache" || b.Kind == "maxlen") && b.Filled >= b.Max
}

// maxlenBound returns the bound of x when the snapshot records the most
// entries x can hold (a Python deque's maxlen, see [heap.Graph.Limit]),
// with the items x holds in final (a subclass's too); nil for any
// other object.
func maxlenBound(g *heap.Graph, x heap.ObjectID) *Bound {
	if x == heap.None {
		return nil
	}
	l, ok := g.Limit(x)
	if !ok {
		return nil
	}
	return &Bound{Kind: "maxlen", Max: int(min(l, math.MaxInt)), Filled: countEntries(g, x, countItems, nil)}
}

// lruType is the type of what functools.lru_cache returns.
const lruType = "functools._lru_cache_wrapper"

// lruBound returns the bound of x, when x is a functools.lru_cache
// wrapper with a maxsize: the snapshot has the maxsize as the int in the
// closure of the wrapper's cache_parameters function (functools sets it
// on every wrapper since Python 3.9), and the entries as the cache
// dict's. It returns nil for any other object, an lru_cache without a
// maxsize (maxsize=None: unbounded) or a snapshot without values.
func lruBound(g *heap.Graph, x heap.ObjectID) *Bound {
	if x == heap.None || g.TypeName(g.Type(x)) != lruType {
		return nil
	}
	max := -1
	for _, e := range g.Edges(x) {
		if e.Label.Kind() != heap.Weak && g.TypeName(g.Type(e.To)) == "dict" {
			if m, ok := lruMaxsize(g, e.To); ok {
				max = m
			}
		}
	}
	if max <= 0 {
		return nil
	}
	b := &Bound{Kind: "lru_cache", Max: max}
	if d, ok := lruCacheDict(g, x); ok {
		b.Filled = countEntries(g, d, countKeyed, newNameMatcher(g))
	}
	return b
}

// lruCacheDict returns the cache dict of x, a functools.lru_cache
// wrapper: the edge named cache, or else its only dict that is not its
// __dict__ (the one that holds cache_parameters). The C wrapper's
// references have no names on some Pythons.
func lruCacheDict(g *heap.Graph, x heap.ObjectID) (heap.ObjectID, bool) {
	if g.TypeName(g.Type(x)) != lruType {
		return heap.None, false
	}
	if d, ok := edgeTo(g, x, "cache", ".cache"); ok {
		return d, true
	}
	found := heap.None
	for _, e := range g.Edges(x) {
		if e.Label.Kind() == heap.Weak || g.TypeName(g.Type(e.To)) != "dict" || g.EdgeName(e.Label) == "__dict__" {
			continue
		}
		if _, ok := lruMaxsize(g, e.To); ok {
			continue
		}
		if found != heap.None && found != e.To {
			return heap.None, false
		}
		found = e.To
	}
	return found, found != heap.None
}

func max0(n int) int { return max(n, 0) }

// isItemLabel reports whether l, a label of a deque's edge, is one of
// its items: an index, or no name and not Internal (see countItems).
func isItemLabel(l heap.Label) bool {
	return l.IsIndex() || (l.Kind() != heap.Internal && l.Name() == 0)
}

// isEntryLabel reports whether l names a container's entry: an index, a
// bracketed key or a name of digits.
func isEntryLabel(g *heap.Graph, l heap.Label) bool {
	return l.IsIndex() || collapseEdge(g.String(l.Name())) == "[*]"
}

// lruMaxsize returns the maxsize recorded in ns, an lru_cache wrapper's
// __dict__: .cache_parameters -> __closure__ -> <cell> maxsize ->
// cell_contents, an int.
func lruMaxsize(g *heap.Graph, ns heap.ObjectID) (int, bool) {
	fn, ok := edgeTo(g, ns, ".cache_parameters", "['cache_parameters']")
	if !ok {
		return 0, false
	}
	cl, ok := edgeTo(g, fn, "__closure__")
	if !ok {
		return 0, false
	}
	cell, ok := edgeTo(g, cl, "<cell> maxsize")
	if !ok {
		return 0, false
	}
	v, ok := edgeTo(g, cell, "cell_contents")
	if !ok {
		return 0, false
	}
	if g.TypeName(g.Type(v)) != "int" {
		return -1, true // None: no bound
	}
	s, ok := g.Value(v)
	if !ok {
		return -1, true
	}
	n, err := strconv.Atoi(s)
	if err != nil {
		return -1, true
	}
	return n, true
}

// edgeTo returns the target of x's first non-weak edge named one of
// names.
func edgeTo(g *heap.Graph, x heap.ObjectID, names ...string) (heap.ObjectID, bool) {
	for _, e := range g.Edges(x) {
		if e.Label.Kind() == heap.Weak || e.Label.IsIndex() {
			continue
		}
		n := g.String(e.Label.Name())
		for _, want := range names {
			if n == want {
				return e.To, true
			}
		}
	}
	return heap.None, false
}

// entries returns the objects container x holds as entries: through
// its store (see containerKind.Via), by index or key. nil when x is no
// container h knows.
func (h *containerIndex) entries(x heap.ObjectID) []heap.ObjectID {
	out, _ := h.entriesCounted(x)
	return out
}

// entriesCounted is entries, with the number of entries as the
// container's kind counts them (a V8 Map's key and value are one).
func (h *containerIndex) entriesCounted(x heap.ObjectID) ([]heap.ObjectID, int) {
	k, ok := h.kind(x)
	if !ok {
		return nil, 0
	}
	store := x
	if len(k.Via) > 0 {
		if store, ok = follow(h.g, x, k.Via, h.names); !ok {
			return nil, 0
		}
	}
	var out []heap.ObjectID
	for _, e := range h.g.Edges(store) {
		if e.Label.Kind() != heap.Weak && (isEntryLabel(h.g, e.Label) || (k.Rule == countItems && isItemLabel(e.Label))) {
			out = append(out, e.To)
		}
	}
	return out, countEntries(h.g, store, k.Rule, h.names)
}

// evictions returns the bound of place, a container of final, when
// entries of the given types (a finding's) that it held in target (the
// same container, found by its identity) are gone by final: code trims
// it. Entries are told apart by address (V8: node id) and type. nil
// when none is gone, or the container is not in target.
func evictions(target, final *heap.Graph, ct, cf *containerIndex, place heap.ObjectID, types map[string]bool) *Bound {
	if place == heap.None {
		return nil
	}
	at, ok := sameObject(final, target, place)
	if !ok {
		return nil
	}
	type ident struct {
		addr uint64
		typ  string
	}
	now, filled := cf.entriesCounted(place)
	have := make(map[ident]bool, len(now))
	for _, e := range now {
		have[ident{final.Addr(e), final.TypeName(final.Type(e))}] = true
	}
	gone := 0
	for _, e := range ct.entries(at) {
		if types[target.TypeName(target.Type(e))] && !have[ident{target.Addr(e), target.TypeName(target.Type(e))}] {
			gone++
		}
	}
	if gone == 0 {
		return nil
	}
	return &Bound{Kind: "evicts", Filled: filled, Evicted: gone}
}

// kind returns the kind of container x is, if h knows it for one.
func (h *containerIndex) kind(x heap.ObjectID) (containerKind, bool) {
	if h.kindOf == nil || h.kindOf[h.g.Type(x)] == 0 {
		return containerKind{}, false
	}
	return h.kinds[h.kindOf[h.g.Type(x)]-1], true
}

// storeOf returns the store that holds x's entries when x is a container
// whose kind keeps them in a store of its own (a V8 Map's or WeakMap's
// hash table, a HashMap's table); ok is false otherwise.
func (h *containerIndex) storeOf(x heap.ObjectID) (heap.ObjectID, bool) {
	k, ok := h.kind(x)
	if !ok || len(k.Via) == 0 {
		return heap.None, false
	}
	return follow(h.g, x, k.Via, h.names)
}

// sameObject returns the object of other that is x of g: the one at x's
// address (V8: its node id), if it has x's type.
func sameObject(g, other *heap.Graph, x heap.ObjectID) (heap.ObjectID, bool) {
	o, ok := other.FindAddr(g.Addr(x))
	return o, ok && other.TypeName(other.Type(o)) == g.TypeName(g.Type(x))
}

// replacedStore reports whether the objects of a finding at place, a
// container of final, are only the container's new store, put in place
// of the store it had in baseline (the same container, found by its
// identity) while its entries did not grow: a hash table rehashed or
// resized as entries came and went, which is no accumulation. A V8
// WeakMap whose keys churn replaces its table so; the new table is new
// since the baseline and alive in final, yet the place holds no more
// than it did.
func replacedStore(baseline, final *heap.Graph, cb, cf *containerIndex, place heap.ObjectID, parts []LeakPart) bool {
	if place == heap.None || len(parts) == 0 {
		return false
	}
	store, ok := cf.storeOf(place)
	if !ok {
		return false
	}
	for _, p := range parts {
		n := len(p.Sample.Steps)
		if p.Count != 1 || n == 0 || p.Sample.Steps[n-1].Object != store {
			return false
		}
	}
	was, ok := sameObject(final, baseline, place)
	if !ok {
		return false
	}
	if _, ok := cb.storeOf(was); !ok {
		return false
	}
	_, now := cf.entriesCounted(place)
	_, before := cb.entriesCounted(was)
	return now <= before
}

// perObject returns the bound of a finding whose place is a field (see
// [Place].Edge) when what it gained is one object on each of many
// objects the baseline had, two at least: at, the place's object of
// each of the finding's objects (those no other leaked object
// dominates), and gained, that of each object the place gained from
// target to final (of any type: what an object set once holds may grow
// too, a list set lazily and appended to ever after), are all
// distinct. Each such field was set once, and stays set; what
// the finding can grow to is one object per old object of the place's
// type, so it is bounded, with Max their number in final (counted once
// per type in counts). A field that gains again where it had gained
// before (a chain that grows from one old object's field) is no such
// bound: nil.
func perObject(final *heap.Graph, fresh bitset, at, gained []heap.ObjectID, counts map[heap.TypeID]int) *Bound {
	if len(at) == 0 {
		return nil
	}
	seen := make(map[heap.ObjectID]bool, len(at)+len(gained))
	for _, list := range [][]heap.ObjectID{at, gained} {
		for _, p := range list {
			if p == heap.None || seen[p] {
				return nil
			}
			seen[p] = true
		}
	}
	if len(seen) < 2 {
		return nil // one field set once: a finding that stopped growing says as much
	}
	ty := final.Type(at[0])
	for p := range seen {
		if final.Type(p) != ty {
			return nil
		}
	}
	n, ok := counts[ty]
	if !ok {
		for id := range final.NumObjects() {
			if final.Type(heap.ObjectID(id)) == ty && !fresh.has(uint32(id)) {
				n++
			}
		}
		counts[ty] = n
	}
	return &Bound{Kind: "per-object", Max: n, Filled: len(seen)}
}
