package analyze

import (
	"cmp"
	"slices"

	"github.com/heapscope/heapscope/heap"
)

// LeakFinding is one cause of a leak: the place where the program keeps
// objects that leaked, what it keeps there, how that grew, and every
// independent holder that keeps it alive. What a user changes to fix a
// leak is one place, so everything that accumulates there is one
// finding:
//   - a leaked map is one finding whose parts are its values, its keys
//     and its reallocated table, not a finding each;
//   - leaked objects that point at each other (an AST whose nodes hold
//     their parents and children) are one finding, at the place where
//     the program holds the first of them (the program's array), with
//     the whole structure's retained size;
//   - classes of several families that one cache holds (a factory's u_*,
//     m_* and damp_*) are one finding with a part per family.
type LeakFinding struct {
	// Place is where the objects accumulate.
	Place Place `json:"place"`
	// Parts are the finding's objects by the shape of the path that
	// holds them below Place (see [MergePaths]), biggest first.
	Parts []LeakPart `json:"parts"`
	// Count is the parts' objects, Shallow their shallow sizes, and
	// Retained what they retain, each object counted once.
	Count    int    `json:"count"`
	Shallow  uint64 `json:"shallow_bytes"`
	Retained uint64 `json:"retained_bytes"`
	// Gains is how the place grew over the snapshots, Bound what the
	// snapshots show of a limit on it, and Verdict what the two mean.
	Gains   Gains   `json:"gains"`
	Bound   *Bound  `json:"bound,omitempty"`
	Verdict Verdict `json:"verdict"`
	// Holders are every independent holder of the finding's objects
	// (see [Holder]), the one that holds the most first; nil when none
	// could be told apart (every path to them goes through other
	// leaked objects).
	Holders []Holder `json:"holders"`
	// Copies, when not nil, says that the finding's objects, or objects
	// they hold, are copies of a few values (see [Copies]): what a
	// cache whose lookups miss leaves behind.
	Copies *Copies `json:"copies,omitempty"`
	// Noise names the catalogue rule the finding matches, or is
	// [RehashNoise], when [LeakOptions].KeepNoise.
	Noise string `json:"noise,omitempty"`

	key    string // the place's key (see causeIndex.of)
	groups []int  // the path groups of the parts, in Leaks
}

// Place is where a finding's objects accumulate: the last object on
// their paths that did not leak itself (the Map, dict, array or
// instance the program keeps them in, or the class whose static field
// does), with a container's backing store lifted to its container (the
// HashMap rather than its table, the Map rather than its hash table).
type Place struct {
	// Path is a path to the place's object: one that goes through no
	// leaked object where there is one, so that it shows how the
	// program holds the place and not how the leak does. It has no
	// steps when the leaked objects are roots themselves (a thread
	// started and never stopped).
	Path Path `json:"-"`
	// Edge names the field of the place's object that holds the
	// objects (".log", "change") when it holds them as a field; it is
	// "" when they are its entries (of a dict, a list, a Map, an
	// array, a set).
	Edge string `json:"edge,omitempty"`
	// Where says where the place is in the program's words (see
	// [Where]): "in Map sessions of onRequest (closure)".
	Where string `json:"where,omitempty"`
	// Name, when not "", names the place's object in the place of its
	// own name: the family of classes it is one of ("class Gen*"), when
	// the place is the same field of each class of a large family (see
	// causeIndex.of). Path still goes to one of them.
	Name string `json:"name,omitempty"`
}

// LeakPart is the objects of a finding that one kind of path holds (see
// [MergePaths]): the values of a leaked Map, or its keys.
type LeakPart struct {
	PathGroup
	// Type is the objects' type.
	Type string `json:"type"`
	// Element is the type of what the objects hold for the program when
	// they are a container's entries (the values of HashMap$Nodes);
	// "" when they are no entries.
	Element string `json:"element,omitempty"`
	// Classes, when the objects are classes, names their family (see
	// [TypeDelta]): a factory's classes are a part of their own, apart
	// from another factory's in the same place.
	Classes string `json:"classes,omitempty"`
	// Types, when not 0, is how many types the part sums: the instances
	// of the classes of one large family, whose names' pattern is Type.
	Types int `json:"types,omitempty"`
	// Detached: the objects are detached DOM nodes, or hold some (the
	// sample does; see [HoldsDetached]).
	Detached bool `json:"detached,omitempty"`
}

// Detached reports whether a part of f is, or holds, detached DOM
// nodes.
func (f LeakFinding) Detached() bool {
	for _, p := range f.Parts {
		if p.Detached {
			return true
		}
	}
	return false
}

// Gains is how a finding's place grew: how many objects of its biggest
// part's type, of the kind parts count (those no other new object
// dominates), it gained from baseline to target (still alive in final:
// the leaked ones) and from target to final. Without identities (IdentityNone) the gains are those
// of the counts, which are its biggest part's (a Map's values rather
// than its keys, which may be shared immutable objects that other paths
// hold too).
type Gains struct {
	New [2]int `json:"new"`
	// Counts is how many such objects the place's paths held in
	// baseline, target and final; set when they were counted
	// ([LeakOptions].Scaling, or without identities).
	Counts []int `json:"counts,omitempty"`
	// Held, when set, is how many such objects the place held in
	// target and in final by count, no more in final, which overruled
	// New[1]: what identity took for gains after target replaced what
	// the place lost (turnover at reused addresses, see turnover), and
	// the verdict is Stopped.
	Held *[2]int `json:"held,omitempty"`
	// Inside, when set, is what grew inside the finding's objects from
	// target to final, objects of another type than the biggest part's,
	// when the finding gained none of that type (or only what Held
	// would overrule): the entries appended to lists that a field of the
	// baseline's objects was set to once, as many lists in final as in
	// target. The finding grows (see grewInside), and Held is nil.
	Inside *Inside `json:"inside,omitempty"`
}

// Inside is what grew inside a finding's objects (see [Gains].Inside):
// objects of Type, New of which the place gained inside objects it held
// since target (by identity), and Held how many objects of Type the
// paths of those held in target and in final by count, more in final.
type Inside struct {
	Type string `json:"type"`
	New  int    `json:"new"`
	Held [2]int `json:"held"`
}

// Verdict says what a finding's growth means.
type Verdict string

const (
	// Grows: the place gained objects in both intervals and shows no
	// bound, or what its objects hold grew from target to final (see
	// [Gains].Inside): a leak, in proportion to the work when the
	// snapshots were taken after equal amounts of it. Ranked first.
	Grows Verdict = "grows"
	// Bounded: the place is a cache whose limit the snapshots show (an
	// lru_cache's maxsize, a deque's maxlen, entries evicted between
	// target and final): it fills up to its bound and is no leak unless
	// the bound is too big; full, it evicts as it gains (see
	// [Bound].Full). Ranked after what grows.
	Bounded Verdict = "bounded"
	// Stopped: the place gained nothing from target to final, and
	// nothing grew inside its objects by count: a cache that filled
	// once, warm-up; or what identity took for gains, its paths held no
	// more objects in final than in target by count (turnover at reused
	// addresses, see turnover). Ranked last.
	Stopped Verdict = "stopped"
)

// rank orders verdicts: what grows first.
func (v Verdict) rank() int {
	switch v {
	case Grows:
		return 0
	case Bounded:
		return 1
	}
	return 2
}

// verdictOf classes a finding by its growth and bound.
func verdictOf(gr Gains, b *Bound) Verdict {
	switch {
	case b != nil:
		return Bounded
	case gr.New[1] <= 0:
		return Stopped
	}
	return Grows
}

// InProportion reports whether the place gained from target to final
// at least half as much as from baseline to target: with snapshots
// taken after equal amounts of work, growth in proportion to the work.
func (gr Gains) InProportion() bool {
	return gr.New[0] > 0 && gr.New[1] > 0 && 2*gr.New[1] >= gr.New[0]
}

// RehashNoise is the Noise of a finding whose objects are only its
// place's new store, put in place of the store the container had in
// the baseline while its entries did not grow (see replacedStore): a
// hash table rehashed, not a leak.
const RehashNoise = "rehash"

// cause is a finding being built: its key (see causeIndex.key), its
// place's object and the indices of its parts.
type cause struct {
	key   string
	place heap.ObjectID // heap.None when the objects are roots
	edge  string
	at    heap.ObjectID // the first leaked object below the place, on the sample's path
	parts []int
	noise string
}

// causeIndex tells where leaked objects sit: for an object of the
// final snapshot, the last object on its path that is not fresh (new
// since the baseline), lifted to its container.
type causeIndex struct {
	g     *heap.Graph
	r     *Retainers
	fresh bitset
	cont  *containerIndex
	fold  map[string]string // classIndex.fold: one factory's classes are one place
	memo  map[placeEdge]placeKey
}

// placeEdge is an edge: its source and label.
type placeEdge struct {
	from heap.ObjectID
	l    heap.Label
}

// placeKey is a place as causeIndex finds it.
type placeKey struct {
	key   string
	place heap.ObjectID // heap.None: the objects are roots
	edge  string        // the field that holds them; "" for entries
	at    heap.ObjectID // the first fresh object below place
}

func newCauseIndex(g *heap.Graph, r *Retainers, fresh bitset, fold map[string]string) *causeIndex {
	return &causeIndex{g: g, r: r, fresh: fresh, cont: newContainerIndex(g), fold: fold, memo: map[placeEdge]placeKey{}}
}

// of returns the place of object x, which a path must reach: the last
// object on x's path that is not fresh. A container's store (a HashMap's
// table, a V8 Map's hash table) is lifted to its container, and so is
// the place of objects held by index or key, whatever holds them. The
// key is the same for every object held at one place of the program:
// the signature of the place's path (see [MergePaths]), its object's
// name (two classes' static fields are two places), and the field that
// holds the objects, or "*" for a container's entries. The classes of
// a large family (see classIndex.fold) are one place: the static field
// T of every class a factory made (Gen0.T, Gen1.T, ...) holds one kind
// of object, at one place of the program.
func (c *causeIndex) of(x heap.ObjectID) placeKey {
	v := x
	p, l := c.r.Parent(v)
	for p != SuperRoot && p != Unreachable && c.fresh.has(uint32(p)) {
		v = p
		p, l = c.r.Parent(v)
	}
	if p == SuperRoot || p == Unreachable {
		sig, kind, root := c.r.signature(v)
		sig, _ = foldSteps(c.fold, sig)
		return placeKey{key: signatureKey(PathGroup{RootKind: kind, RootName: root, Signature: sig}) + "\x00root", place: heap.None, at: v}
	}
	ref := placeEdge{p, l}
	if k, ok := c.memo[ref]; ok {
		k.at = v
		return k
	}
	h, edge := p, collapseEdge(c.g.EdgeName(l))
	switch {
	case edge == "[*]" || edge == "" || edge == "<key>":
		// An entry (by index or key, or a dict's key itself), or an
		// unnamed reference of a C container.
		var above []heap.ObjectID
		for q, _ := c.r.Parent(h); q != SuperRoot && q != Unreachable && len(above) < 3; q, _ = c.r.Parent(q) {
			above = append(above, q)
		}
		slices.Reverse(above) // outermost first
		if ct, ok := c.cont.containerAround(h, above); ok {
			h = ct
		}
		edge = ""
	case c.cont.isStore(h, l):
		edge = ""
	}
	sig, kind, root := c.r.signature(h)
	sig, _ = foldSteps(c.fold, sig)
	name, _ := c.g.Name(h)
	name, _ = foldClassName(c.fold, name)
	key := signatureKey(PathGroup{RootKind: kind, RootName: root, Signature: sig}) + "\x00" + name + "\x00"
	if edge == "" {
		key += "*"
	} else {
		key += "." + edge
	}
	k := placeKey{key: key, place: h, edge: edge, at: v}
	c.memo[ref] = k
	return k
}

// rankFindings orders findings by verdict (what grows first), then by
// retained size, count and place.
func rankFindings(fs []LeakFinding) {
	slices.SortStableFunc(fs, func(a, b LeakFinding) int {
		if c := cmp.Compare(a.Verdict.rank(), b.Verdict.rank()); c != 0 {
			return c
		}
		if c := cmp.Compare(b.Retained, a.Retained); c != 0 {
			return c
		}
		return cmp.Compare(b.Count, a.Count)
	})
}
