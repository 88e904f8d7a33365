package analyze

import (
	"cmp"
	"slices"
	"strconv"

	"github.com/heapscope/heapscope/heap"
)

// Holder is one independent holder of a group of objects (a leak
// finding's, or those a path group of `why` selects): the references
// into the group from outside it that come from one place, each place
// able to keep the group alive without the others. Clearing one cache
// frees nothing while a registry holds the same objects; a user who
// sees only the shortest path clears the cache and wonders why.
//
// References from objects whose paths (through none of the objects
// studied, where there is such a path) have one signature (see
// [MergePaths]) are one holder: a dict, a registry set, the 300 lists
// of one field of 300 sessions. References from the objects of another
// group (another finding) are one holder, that group. References from
// objects that only the studied objects reach (a cycle back into the
// group, a parent pointer) hold nothing on their own and are no holder.
type Holder struct {
	// Path leads to a referring object, through none of the objects
	// studied where such a path exists, and on to the first object of
	// the group that it refers to.
	Path Path `json:"-"`
	// At is the index in Path.Steps of the object that holds: the
	// referrer, or the container whose store the referrer is (the
	// HashMap of a table, the lru_cache of its dict).
	At int `json:"-"`
	// Field names the field of the referrer that holds (".log",
	// "SESSIONS") when it holds by a field; "" when by an entry (an
	// index, a key) or through a container's store.
	Field string `json:"field,omitempty"`
	// Referrers is how many objects refer into the group from this
	// place, and Holds how many of the group's objects they hold (refer
	// to, or reach through fresh objects that hold group members, such
	// as a leaked Map's new table).
	Referrers int `json:"referrers"`
	Holds     int `json:"holds"`
	// Frees is how many of the group's objects removing this holder
	// alone would free, and FreesBytes what they retain: 0 when the
	// other holders keep every one of them.
	Frees      int    `json:"frees"`
	FreesBytes uint64 `json:"frees_bytes"`
	// Group is the index of the other group (finding) whose objects
	// refer here, -1 when the referrers belong to none.
	Group int `json:"group"`
	// Bound is the limit of the holding object when the snapshot
	// records one (an lru_cache with a maxsize, a deque with a maxlen;
	// see [Bound]), nil otherwise. A bounded holder that is full lets
	// go of what it holds as it evicts: removing the other holders then
	// frees those objects in time, even when Frees says removing one
	// alone frees nothing now.
	Bound *Bound `json:"bound,omitempty"`
}

// MaxHolders is how many holders a group lists at most: the ones that
// hold the most. The others still count when what removing a holder
// frees is worked out.
const MaxHolders = 12

// holderFinder finds the independent holders of groups of objects
// ([Holder]) in one graph: the members of each group (objects no other
// studied object dominates, as [TopMost] finds them), the objects they
// dominate, and, through fresh, every object studied (the leaked ones,
// or those selected).
type holderFinder struct {
	g      *heap.Graph
	t      *DomTree
	r      *Retainers // shortest paths (through anything)
	clean  *Retainers // shortest paths through no fresh object
	fresh  bitset
	isRoot bitset
	cont   *containerIndex
	// owner is, per object, the member that dominates it (itself for a
	// member); Unreachable when no member does.
	owner   []uint32
	groupOf map[heap.ObjectID]int32 // member -> its group
	// placeMemo keeps the holder of each referrer met (see holderPlace).
	placeMemo map[heap.ObjectID]holderKey
	// aboveMemo keeps what holds each object that only fresh objects
	// lead to (see above).
	aboveMemo map[heap.ObjectID][]aboveRef
	edgeIndex map[heap.ObjectID]map[heap.ObjectID]heap.Label // see edgeTo
	// placeOf tells, for a fresh object no member dominates (a leaked
	// Map's new table), the group of objects held at the same place,
	// or -1; nil when there are no such places.
	placeOf func(heap.ObjectID) int
}

// newHolderFinder indexes groups of members. r and clean are shortest
// paths of t's graph, clean searched through no object of fresh.
// Memory: 4 bytes per object of the graph.
func newHolderFinder(t *DomTree, r, clean *Retainers, fresh bitset, groups [][]heap.ObjectID) *holderFinder {
	g := t.g
	hf := &holderFinder{g: g, t: t, r: r, clean: clean, fresh: fresh, isRoot: rootBits(g), cont: newContainerIndex(g),
		groupOf: map[heap.ObjectID]int32{}, placeMemo: map[heap.ObjectID]holderKey{},
		aboveMemo: map[heap.ObjectID][]aboveRef{}, edgeIndex: map[heap.ObjectID]map[heap.ObjectID]heap.Label{}}
	for i, ms := range groups {
		for _, m := range ms {
			if _, dup := hf.groupOf[m]; !dup {
				hf.groupOf[m] = int32(i)
			}
		}
	}
	hf.owner = make([]uint32, g.NumObjects())
	for i := range hf.owner {
		hf.owner[i] = uint32(Unreachable)
	}
	var stack []uint32
	t.walk(func(v uint32) {
		if _, ok := hf.groupOf[heap.ObjectID(v)]; ok {
			stack = append(stack, v)
		}
		if n := len(stack); n > 0 {
			hf.owner[v] = stack[n-1]
		}
	}, func(v uint32) {
		if n := len(stack); n > 0 && stack[n-1] == v {
			stack = stack[:n-1]
		}
	})
	return hf
}

// holderGroup is a holder being built.
type holderGroup struct {
	Holder
	key       string
	referrers map[heap.ObjectID]bool
	holds     map[int]bool // node indices
	from      heap.ObjectID
	at        heap.ObjectID // the holding object: from, or its container
	label     heap.Label
	to        heap.ObjectID
	clean     bool // from's path is a clean one
}

// holders returns the independent holders of group gi, whose members
// are ms, the ones that hold the most first (at most [MaxHolders]).
//
// The group and what holds it are condensed into a small graph: a node
// per member (and per fresh object that holds members at the group's
// place without a member dominating it: a leaked Map's reallocated
// table), an edge from a member to a member it reaches through the
// objects it dominates, and a node per holder with an edge to each node
// its referrers refer to. What removing holder h alone frees is the
// members that the other holders do not reach in that graph. Time: the
// edges of the members' referrers, then a search of the small graph
// per holder.
func (hf *holderFinder) holders(gi int, ms []heap.ObjectID) []Holder {
	g := hf.g
	node := map[heap.ObjectID]int{}
	var nodes []heap.ObjectID
	addNode := func(x heap.ObjectID) int {
		i, ok := node[x]
		if !ok {
			i = len(nodes)
			node[x] = i
			nodes = append(nodes, x)
		}
		return i
	}
	for _, m := range ms {
		addNode(m)
	}
	members := len(nodes)
	out := map[int][]int{} // node -> nodes it holds
	byKey := map[string]*holderGroup{}
	var hgs []*holderGroup
	// Each referrer's edges are scanned once, for every node known
	// then; a node added later (a fresh holder of members) has its
	// earlier-scanned referrers scanned again for it alone. An edge met
	// twice counts once: holders and node edges are sets.
	scannedAt := map[heap.ObjectID]int{} // referrer -> nodes known when scanned
	edges := g.AllEdges()
	for i := 0; i < len(nodes); i++ {
		x := nodes[i]
		again := map[heap.ObjectID]bool{}
		for _, r := range g.Referrers(x) {
			at, ok := scannedAt[r]
			switch {
			case !ok:
				scannedAt[r] = len(nodes)
				s, e := g.EdgeRange(r)
				for _, ed := range edges[s:e] {
					if j, ok := node[ed.To]; ok && retains(ed.Label, r, hf.isRoot) {
						hf.classify(gi, r, ed, j, addNode, out, byKey, &hgs)
					}
				}
			case at <= i && !again[r]:
				again[r] = true
				s, e := g.EdgeRange(r)
				for _, ed := range edges[s:e] {
					if ed.To == x && retains(ed.Label, r, hf.isRoot) {
						hf.classify(gi, r, ed, i, addNode, out, byKey, &hgs)
					}
				}
			}
		}
	}
	if len(hgs) == 0 {
		return nil
	}
	// What each holder holds: the members it reaches (through fresh
	// holders of members, such as a leaked Map's table); and what
	// removing it alone frees: those of them the others do not reach.
	// A member no holder reaches (held by an older object that only
	// fresh objects lead to, such as the assumptions a library made
	// lazily for a cached number the leaked expressions share) is freed
	// by removing none of them.
	mine := make([]bool, len(nodes))
	seen := make([]bool, len(nodes))
	var queue []int
	// drain marks in `in` what the members in queue reach in out.
	drain := func(in []bool) {
		for len(queue) > 0 {
			v := queue[len(queue)-1]
			queue = queue[:len(queue)-1]
			for _, w := range out[v] {
				if !in[w] {
					in[w] = true
					queue = append(queue, w)
				}
			}
		}
	}
	for hi, h := range hgs {
		clear(mine)
		queue = queue[:0]
		for j := range h.holds {
			mine[j] = true
			queue = append(queue, j)
		}
		drain(mine)
		clear(seen)
		queue = queue[:0]
		for hj, o := range hgs {
			if hj == hi {
				continue
			}
			for j := range o.holds {
				if !seen[j] {
					seen[j] = true
					queue = append(queue, j)
				}
			}
		}
		drain(seen)
		for j := range members {
			if !mine[j] {
				continue
			}
			h.Holds++
			if !seen[j] {
				h.Frees++
				h.FreesBytes += hf.t.Retained(nodes[j])
			}
		}
		h.Referrers = len(h.referrers)
	}
	// The program's places first, then the other groups that hold
	// these; each by what it holds.
	slices.SortFunc(hgs, func(a, b *holderGroup) int {
		if c := cmp.Compare(min(a.Group+1, 1), min(b.Group+1, 1)); c != 0 {
			return c
		}
		if c := cmp.Compare(b.Holds, a.Holds); c != 0 {
			return c
		}
		if c := cmp.Compare(b.Referrers, a.Referrers); c != 0 {
			return c
		}
		return cmp.Compare(a.key, b.key)
	})
	var res []Holder
	for _, h := range hgs[:min(len(hgs), MaxHolders)] {
		paths := hf.r
		if h.clean {
			paths = hf.clean
		}
		h.Path, _ = paths.Path(h.from)
		h.At = len(h.Path.Steps) - 1
		for i, st := range h.Path.Steps {
			if st.Object == h.at {
				h.At = i
			}
		}
		st := Step{Object: h.to, Type: g.TypeName(g.Type(h.to)), Edge: g.EdgeName(h.label), Kind: h.label.Kind()}
		st.Name, _ = g.Name(h.to)
		h.Path.Steps = append(h.Path.Steps, st)
		if h.Group < 0 {
			if h.Bound = lruBound(g, h.at); h.Bound == nil {
				h.Bound = maxlenBound(g, h.at)
			}
		}
		res = append(res, h.Holder)
	}
	return res
}

// classify files the edge ed, from r to node j of group gi: an edge
// inside the group, or a reference of a holder.
func (hf *holderFinder) classify(gi int, r heap.ObjectID, ed heap.Edge, j int, addNode func(heap.ObjectID) int,
	out map[int][]int, byKey map[string]*holderGroup, hgs *[]*holderGroup) {
	var key string
	other := -1
	clean := false
	at := r
	if o := hf.owner[r]; o != uint32(Unreachable) {
		og := int(hf.groupOf[heap.ObjectID(o)])
		if og == gi {
			if i := addNode(heap.ObjectID(o)); i != j {
				out[i] = append(out[i], j)
			}
			return
		}
		key, other = "group\x00"+strconv.Itoa(og), og
	} else if hf.fresh.has(uint32(r)) {
		og := -1
		if hf.placeOf != nil {
			og = hf.placeOf(r)
		}
		if og == gi {
			i := addNode(r)
			out[i] = append(out[i], j)
			return
		}
		if og < 0 {
			return // fresh objects of no group: what holds them holds these
		}
		key, other = "group\x00"+strconv.Itoa(og), og
	} else {
		if !hf.clean.Reached(r) {
			// Only fresh objects lead to r: it holds nothing on its
			// own, but what holds r holds j through it.
			for _, up := range hf.above(r) {
				hf.classify(gi, up.from, heap.Edge{To: up.to, Label: up.l}, j, addNode, out, byKey, hgs)
			}
			return
		}
		k, ok := hf.placeMemo[r]
		if !ok {
			k = hf.holderPlace(r)
			hf.placeMemo[r] = k
		}
		key, at, clean = k.key, k.at, true
	}
	h := byKey[key]
	if h == nil {
		field := ""
		if e := collapseEdge(hf.g.EdgeName(ed.Label)); at == r && e != "[*]" && e != "" && e != "<key>" && !hf.cont.isStore(r, ed.Label) {
			field = e
		}
		h = &holderGroup{Holder: Holder{Group: other, Field: field}, key: key, referrers: map[heap.ObjectID]bool{}, holds: map[int]bool{},
			from: r, at: at, label: ed.Label, to: ed.To, clean: clean}
		byKey[key] = h
		*hgs = append(*hgs, h)
	}
	h.referrers[r] = true
	h.holds[j] = true
	// The sample leads to the biggest object held.
	if hf.t.Retained(ed.To) > hf.t.Retained(h.to) {
		h.from, h.at, h.label, h.to, h.clean = r, at, ed.Label, ed.To, clean
	}
}

// maxAbove bounds the objects [holderFinder.above] goes through.
const maxAbove = 256

// aboveRef is a reference from object from to object to, by label l.
type aboveRef struct {
	from, to heap.ObjectID
	l        heap.Label
}

// above returns the references that hold r, an object that only fresh
// objects lead to and that is neither fresh nor dominated by a member
// (an older object that only the leaked ones still refer to, such as a
// cached number whose assumptions a library made lazily, which the
// leaked expressions share): the references from members, fresh
// objects and objects of other groups to r, and to objects of its kind
// that lead to r (at most maxAbove of those). What refers to r by them
// holds, through r, what r refers to.
func (hf *holderFinder) above(r heap.ObjectID) []aboveRef {
	if refs, ok := hf.aboveMemo[r]; ok {
		return refs
	}
	g := hf.g
	var refs []aboveRef
	seen := map[heap.ObjectID]bool{r: true}
	queue := []heap.ObjectID{r}
	for len(queue) > 0 {
		v := queue[0]
		queue = queue[1:]
		for _, q := range g.Referrers(v) {
			if seen[q] {
				continue
			}
			l, ok := hf.edgeTo(q, v)
			if !ok {
				continue
			}
			seen[q] = true
			if hf.owner[q] == uint32(Unreachable) && !hf.fresh.has(uint32(q)) && !hf.clean.Reached(q) {
				if len(seen) <= maxAbove {
					queue = append(queue, q)
				}
			} else {
				refs = append(refs, aboveRef{from: q, to: v, l: l})
			}
		}
	}
	hf.aboveMemo[r] = refs
	return refs
}

// edgeTo returns the label of a retaining edge from q to v. An object
// of many edges (a leaked list of a million older objects) is indexed
// once, not scanned for each of them.
func (hf *holderFinder) edgeTo(q, v heap.ObjectID) (heap.Label, bool) {
	g := hf.g
	s, e := g.EdgeRange(q)
	edges := g.AllEdges()[s:e]
	if len(edges) <= 64 {
		for _, ed := range edges {
			if ed.To == v && retains(ed.Label, q, hf.isRoot) {
				return ed.Label, true
			}
		}
		return 0, false
	}
	idx, ok := hf.edgeIndex[q]
	if !ok {
		idx = make(map[heap.ObjectID]heap.Label, len(edges))
		for _, ed := range edges {
			if _, dup := idx[ed.To]; !dup && retains(ed.Label, q, hf.isRoot) {
				idx[ed.To] = ed.Label
			}
		}
		hf.edgeIndex[q] = idx
	}
	l, ok := idx[v]
	return l, ok
}

// GroupHolders returns the independent holders (see [Holder]) of each
// of groups, which [MergePaths](r, t, objs) made, in the order of
// groups; a holder's Group is the index of the other group whose
// objects hold these. A group's members are its objects that no other
// selected object dominates; holders' paths go through no selected
// object where they can. Only the groups for which want returns true
// (nil: all) get theirs. Time: a search of the graph, then the edges of
// the members' referrers.
func GroupHolders(t *DomTree, r *Retainers, objs []heap.ObjectID, groups []PathGroup, want func(int) bool) [][]Holder {
	g := t.g
	sel := newBitset(g.NumObjects())
	for _, x := range objs {
		if int(x) < g.NumObjects() {
			sel.set(uint32(x))
		}
	}
	at := make(map[string]int, len(groups))
	for i, grp := range groups {
		at[signatureKey(grp)] = i
	}
	top, _ := TopMost(t, objs)
	sets := make([][]heap.ObjectID, len(groups))
	for _, x := range top {
		if !r.Reached(x) {
			continue
		}
		sig, kind, root := r.signature(x)
		if i, ok := at[signatureKey(PathGroup{RootKind: kind, RootName: root, Signature: sig})]; ok {
			sets[i] = append(sets[i], x)
		}
	}
	clean := shortestPaths(g, PathOptions{ExtraRoots: t.ExtraRoots()}, sel)
	hf := newHolderFinder(t, r, clean, sel, sets)
	out := make([][]Holder, len(groups))
	for i := range groups {
		if want == nil || want(i) {
			out[i] = hf.holders(i, sets[i])
		}
	}
	return out
}

// holderKey is the holder a referrer that is not fresh counts in: the
// key of its place, and the object that holds (the referrer, or the
// container whose store it is).
type holderKey struct {
	key string
	at  heap.ObjectID
}

// holderPlace returns the holder the referrer r counts in: a
// container's store (its table, an lru_cache's dict) holds for the
// container; holders are told apart by the signature of the holding
// object's path through no fresh object, and its name.
func (hf *holderFinder) holderPlace(r heap.ObjectID) holderKey {
	at := r
	var above []heap.ObjectID
	for q, _ := hf.clean.Parent(r); q != SuperRoot && q != Unreachable && len(above) < 3; q, _ = hf.clean.Parent(q) {
		above = append(above, q)
	}
	slices.Reverse(above)
	if c, ok := hf.cont.containerAround(r, above); ok {
		at = c
	} else if q, l := hf.clean.Parent(r); q != SuperRoot && q != Unreachable && l.Kind() == heap.Internal && runtimeType(hf.g.TypeName(hf.g.Type(r))) {
		at = q // a runtime object's store ((array) of an object's properties)
	}
	sig, kind, root := hf.clean.signature(at)
	name, _ := hf.g.Name(at)
	return holderKey{"sig\x00" + signatureKey(PathGroup{RootKind: kind, RootName: root, Signature: sig}) + "\x00" + name, at}
}
