package analyze

import (
	"cmp"
	"fmt"
	"slices"

	"github.com/heapscope/heapscope/heap"
)

// This file answers "what holds these objects" and "what do they hold"
// edge by edge, as Chrome DevTools' Retainers and Containment panes,
// Eclipse MAT's lists of objects with incoming and outgoing references
// and objgraph's show_backrefs do, where [MergePaths] gives one shortest
// path per group: every incoming (or outgoing) edge of the selected
// objects, grouped, each group expandable into the edges of its own
// objects, level by level.

// NeighborOptions adjusts [Neighbors].
type NeighborOptions struct {
	// Out follows the objects' own edges (what they hold: DevTools'
	// Containment), not the edges that point to them (what holds them:
	// the Retainers pane).
	Out bool
	// Depth is how many levels are listed (0: 1): level 1 is the edges of
	// the selected objects, level 2 those of the objects level 1 leads
	// to, and so on.
	Depth int
	// MaxGroups bounds the groups listed per level below each group (0:
	// all); the rest are counted in [NeighborGroup].Hidden.
	MaxGroups int
	// Each lists a level's edges one by one, each with the one object it
	// leads to, when the level has at most Each edges (0: 20; negative:
	// never), as DevTools lists one object's retainers; a larger level is
	// grouped.
	Each int
	// Path starts below the selection: at the objects of group Path[0] of
	// level 1, then of group Path[1] of its level, and so on, as a page
	// that expands a group at a time asks for them. The cycle cut counts
	// the groups on the way.
	Path []int
	// Budget bounds the edges looked at (0: 64 million); when it runs out,
	// groups are left unexpanded and [NeighborTree].Exhausted says so.
	Budget int
	// Stop, when not nil, is asked between groups whether to give up (the
	// client that asked has gone); Neighbors then returns what it has,
	// Exhausted.
	Stop func() bool
}

// NeighborGroup is the edges of one kind between the objects a level
// starts from and their neighbours (the objects that hold them, or that
// they hold).
type NeighborGroup struct {
	// Type is the neighbours' type name, Name their own name (g.Name:
	// "class app.Cache") when they have one and share it.
	Type string
	Name string
	// Edge is the edges' name (g.EdgeName); in a grouped level, names
	// that vary per entry of a container are "[*]" (see [MergePaths]).
	Edge string
	Kind heap.EdgeKind
	// Edges counts the edges, Objects lists the neighbours (distinct, in
	// ID order); Shallow sums their shallow sizes and Retained is what
	// they retain, each object counted once.
	Edges    int
	Objects  []heap.ObjectID
	Shallow  uint64
	Retained uint64
	// Distance is the least distance from a root among the neighbours
	// (see [Retainers.Distance]); -1 when no path reaches any.
	Distance int
	// Cycle counts the neighbours already on the way from the selection
	// to this group (a selected object, or one of a group above): they
	// are not followed again, so cycles end here.
	Cycle int
	// Kids is the next level below the group, when the depth reaches it
	// and some neighbour is not on the way; Hidden counts the groups of
	// that level left out by MaxGroups.
	Kids   []NeighborGroup
	Hidden int
}

// NeighborTree is what [Neighbors] found.
type NeighborTree struct {
	// Objects is how many objects the first level starts from: the
	// selection, or the group that Path leads to.
	Objects int
	Groups  []NeighborGroup
	Hidden  int // groups of the first level left out by MaxGroups
	// Exhausted: the budget ran out (or Stop said so) and some groups
	// are not expanded.
	Exhausted bool
}

// defaultNeighborBudget bounds the edges [Neighbors] looks at by default.
const defaultNeighborBudget = 64 << 20

// Neighbors groups the edges that lead to objs (or, with opt.Out, leave
// them), level by level to opt.Depth. In a grouped level, the edges of
// one kind, name (per-entry names as "[*]") and neighbour type (and
// name) are one group. Groups are ordered, for incoming edges, by
// distance from a root, nearest first (the retainer a shortest path goes
// through leads), then by retained size; for outgoing edges by retained
// size, largest first; then by edge count, type, name and edge. A level
// listed edge by edge keeps, for outgoing edges, the objects' edge
// order.
//
// A neighbour that is already on the way down to a group (a selected
// object, or an object of a group above it) is counted in Cycle and not
// followed. Weak edges are listed like others, with their kind. r gives
// the distances and may be nil (every Distance is then -1); t gives the
// retained sizes. The edges of a level's neighbours are read once per
// level, so the cost is the edges of the objects on the levels listed,
// within opt.Budget.
func Neighbors(t *DomTree, r *Retainers, objs []heap.ObjectID, opt NeighborOptions) (NeighborTree, error) {
	g := t.g
	if opt.Each == 0 {
		opt.Each = 20
	}
	if opt.Budget <= 0 {
		opt.Budget = defaultNeighborBudget
	}
	w := &walker{t: t, r: r, g: g, opt: opt, budget: opt.Budget, onWay: newBitset(g.NumObjects())}
	start := slices.Clone(objs)
	slices.Sort(start)
	start = slices.Compact(start)
	for _, x := range start {
		w.onWay.set(uint32(x))
	}
	for depth, i := range opt.Path {
		groups := w.level(start)
		sortGroups(groups, opt.Out, w.each)
		if i < 0 || i >= len(groups) {
			return NeighborTree{}, fmt.Errorf("level %d has %d groups, not a group %d", depth+1, len(groups), i)
		}
		start = start[:0:0]
		for _, x := range groups[i].Objects {
			if !w.onWay.has(uint32(x)) {
				start = append(start, x)
				w.onWay.set(uint32(x))
			}
		}
	}
	tree := NeighborTree{Objects: len(start)}
	tree.Groups, tree.Hidden = w.expand(start, max(opt.Depth, 1))
	tree.Exhausted = w.exhausted
	return tree, nil
}

// walker holds what one call of [Neighbors] shares between levels.
type walker struct {
	t      *DomTree
	r      *Retainers
	g      *heap.Graph
	opt    NeighborOptions
	budget int
	onWay  bitset // the selection and the objects of the groups above
	each   bool   // the last level made was listed edge by edge

	exhausted bool
}

// expand makes the level below objs, sorted and cut to MaxGroups, and
// the levels below its groups to depth.
func (w *walker) expand(objs []heap.ObjectID, depth int) ([]NeighborGroup, int) {
	groups := w.level(objs)
	sortGroups(groups, w.opt.Out, w.each)
	hidden := 0
	if m := w.opt.MaxGroups; m > 0 && len(groups) > m {
		hidden = len(groups) - m
		groups = groups[:m]
	}
	if depth <= 1 {
		return groups, hidden
	}
	for i := range groups {
		grp := &groups[i]
		if w.exhausted || w.opt.Stop != nil && w.opt.Stop() {
			w.exhausted = true
			break
		}
		var next []heap.ObjectID
		for _, x := range grp.Objects {
			if !w.onWay.has(uint32(x)) {
				next = append(next, x)
			}
		}
		if len(next) == 0 {
			continue
		}
		for _, x := range next {
			w.onWay.set(uint32(x))
		}
		grp.Kids, grp.Hidden = w.expand(next, depth-1)
		for _, x := range next {
			w.onWay.clear(uint32(x))
		}
	}
	return groups, hidden
}

// edgeRef is one edge of a level: from the level's object to (or from)
// a neighbour.
type edgeRef struct {
	nb    heap.ObjectID // the neighbour
	label heap.Label
}

// level returns the groups of the edges between objs and their
// neighbours, unsorted; w.each says whether they are listed edge by
// edge.
func (w *walker) level(objs []heap.ObjectID) []NeighborGroup {
	g := w.g
	var refs []edgeRef
	if w.opt.Out {
		for _, x := range objs {
			es := g.Edges(x)
			if w.spend(len(es)) {
				break
			}
			for _, e := range es {
				refs = append(refs, edgeRef{e.To, e.Label})
			}
		}
	} else {
		refs = w.incoming(objs)
	}
	w.each = w.opt.Each > 0 && len(refs) <= w.opt.Each
	if w.each {
		out := make([]NeighborGroup, 0, len(refs))
		for _, e := range refs {
			grp := NeighborGroup{Edge: g.EdgeName(e.label), Kind: e.label.Kind(), Edges: 1, Objects: []heap.ObjectID{e.nb}}
			w.fill(&grp)
			out = append(out, grp)
		}
		return out
	}
	type key struct {
		typ  heap.TypeID
		name string
		edge string
		kind heap.EdgeKind
	}
	index := map[key]int{}
	var out []NeighborGroup
	for _, e := range refs {
		name, _ := g.Name(e.nb)
		k := key{g.Type(e.nb), name, collapseEdge(g.EdgeName(e.label)), e.label.Kind()}
		i, ok := index[k]
		if !ok {
			i = len(out)
			index[k] = i
			out = append(out, NeighborGroup{Name: name, Edge: k.edge, Kind: k.kind})
		}
		out[i].Edges++
		out[i].Objects = append(out[i].Objects, e.nb)
	}
	for i := range out {
		grp := &out[i]
		slices.Sort(grp.Objects)
		grp.Objects = slices.Compact(grp.Objects)
		w.fill(grp)
	}
	return out
}

// incoming returns the edges that lead to objs: each referrer's edges
// are read once, however many of objs it holds.
func (w *walker) incoming(objs []heap.ObjectID) []edgeRef {
	g := w.g
	in := newObjSet(g.NumObjects(), len(objs))
	var srcs []heap.ObjectID
	for _, x := range objs {
		in.add(x)
		rs := g.Referrers(x)
		if w.spend(len(rs)) {
			break
		}
		srcs = append(srcs, rs...)
	}
	slices.Sort(srcs)
	srcs = slices.Compact(srcs)
	var refs []edgeRef
	for _, src := range srcs {
		es := g.Edges(src)
		if w.spend(len(es)) {
			break
		}
		for _, e := range es {
			if in.has(e.To) {
				refs = append(refs, edgeRef{src, e.Label})
			}
		}
	}
	return refs
}

// spend takes n edges from the budget and reports whether it ran out.
func (w *walker) spend(n int) bool {
	if w.exhausted {
		return true
	}
	w.budget -= n
	if w.budget < 0 {
		w.exhausted = true
	}
	return w.exhausted
}

// fill sets a group's type, sizes, distance and cycle count from its
// objects.
func (w *walker) fill(grp *NeighborGroup) {
	g := w.g
	grp.Type = g.TypeName(g.Type(grp.Objects[0]))
	grp.Distance = -1
	for _, x := range grp.Objects {
		grp.Shallow += g.Size(x)
		if w.onWay.has(uint32(x)) {
			grp.Cycle++
		}
		if w.r != nil {
			if d := w.r.Distance(x); d >= 0 && (grp.Distance < 0 || d < grp.Distance) {
				grp.Distance = d
			}
		}
	}
	grp.Retained = w.t.retainedOnce(grp.Objects)
}

// sortGroups orders a level's groups (see [Neighbors]).
func sortGroups(groups []NeighborGroup, out, each bool) {
	if out && each {
		return // the objects' edge order
	}
	dist := func(d int) int {
		if d < 0 {
			return int(^uint(0) >> 1)
		}
		return d
	}
	slices.SortStableFunc(groups, func(a, b NeighborGroup) int {
		if !out {
			if c := cmp.Compare(dist(a.Distance), dist(b.Distance)); c != 0 {
				return c
			}
		}
		if c := cmp.Compare(b.Retained, a.Retained); c != 0 {
			return c
		}
		if c := cmp.Compare(b.Edges, a.Edges); c != 0 {
			return c
		}
		if c := cmp.Compare(a.Type, b.Type); c != 0 {
			return c
		}
		if c := cmp.Compare(a.Name, b.Name); c != 0 {
			return c
		}
		if c := cmp.Compare(a.Edge, b.Edge); c != 0 {
			return c
		}
		return cmp.Compare(a.Objects[0], b.Objects[0])
	})
}

// objSet is a set of objects: a map while it is small, a bitset over the
// graph's objects when it may be large.
type objSet struct {
	small map[heap.ObjectID]bool
	big   bitset
}

func newObjSet(n, size int) objSet {
	if size <= 4096 {
		return objSet{small: make(map[heap.ObjectID]bool, size)}
	}
	return objSet{big: newBitset(n)}
}

func (s objSet) add(x heap.ObjectID) {
	if s.small != nil {
		s.small[x] = true
	} else {
		s.big.set(uint32(x))
	}
}

func (s objSet) has(x heap.ObjectID) bool {
	if s.small != nil {
		return s.small[x]
	}
	return s.big.has(uint32(x))
}
