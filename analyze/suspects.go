package analyze

import (
	"cmp"
	"slices"

	"github.com/heapscope/heapscope/heap"
)

// Eclipse MAT's defaults for [SuspectOptions]: the threshold of its leak
// suspects report (LeakHunterQuery threshold_percent) and its
// big_drop_ratio (FindLeaksQuery).
const (
	DefaultSuspectShare = 0.10
	DefaultBigDrop      = 0.7
)

// SuspectOptions adjusts [Suspects]. The zero value means Eclipse MAT's
// defaults.
type SuspectOptions struct {
	// MinShare is the share of the reachable heap a suspect must retain
	// more of; 0 means [DefaultSuspectShare].
	MinShare float64
	// BigDrop: the search for an accumulation point goes down to the
	// biggest child while it retains at least this share of its parent;
	// 0 means [DefaultBigDrop].
	BigDrop float64
}

// Suspect is one leak suspect: an object, or a group of objects of one
// type, that retains a large share of the heap, with the accumulation
// point below it, where that memory piles up.
type Suspect struct {
	// Object is the suspect (for a group, its member that retains the
	// most); Members lists a group's objects and is nil for a single
	// object.
	Object  heap.ObjectID
	Members []heap.ObjectID
	// Retained is what the suspect retains, not counting the suspects
	// found below it (their memory is theirs); for a group, what its
	// members retain together. Share is Retained over the reachable heap.
	Retained uint64
	Share    float64
	// Point is the accumulation point: the object where the big drop is,
	// whose children are many small objects. It is None for a group.
	Point heap.ObjectID
	// Holder is the container Point belongs to, named as the program
	// names it: the HashMap whose table array is Point, or Point itself.
	Holder heap.ObjectID
	// PointRetained is Point's retained size, without the suspects below.
	PointRetained uint64
	// Elements sums what accumulates at Point by type, biggest first (at
	// most [maxElementGroups]): Point's children, looking through the
	// entries of containers (the values of a HashMap$Node, the items of
	// a LinkedList$Node). For a group, the group's own type.
	Elements []ElementGroup
	// Keeps is, for a group, what its members keep where their memory
	// is (see [Kept]): the numpy arrays behind memoryviews.
	Keeps []KeptGroup
}

// ElementGroup is the objects of one type that accumulate at a point.
// The instances of the classes of a large family (see classIndex.fold:
// a lambda class per plugin loader, a proxy class per interface) are
// one group, whose Type is the family's pattern ("Task$$Lambda$*/*").
type ElementGroup struct {
	Type     string
	Count    int
	Retained uint64
	// Types, when over 1, is how many types the group sums: the classes
	// of the family whose pattern Type is.
	Types int
}

// maxElementGroups bounds Suspect.Elements.
const maxElementGroups = 10

// maxDescent bounds the search for an accumulation point, as MAT does.
const maxDescent = 1000

// Suspects finds leak suspects in t as Eclipse MAT's Leak Suspects
// report does (FindLeaksQuery; the help page "Running Leak Suspect
// Report"), biggest first: the objects of the dominator tree that retain
// more than opt.MinShare of the reachable heap, each with its
// accumulation point, found by going down from the suspect to its
// biggest child while that child retains at least opt.BigDrop of its
// parent (MAT's "big drops in the dominator tree").
//
// Three things differ from MAT, all so that a suspect names the
// program's own objects rather than the runtime's. First, where MAT stops
// at the top of the dominator tree, Suspects goes through what holds
// several suspects at once: when an accumulation point, or an object on
// the way down to it, still has children that each retain more than the
// threshold (the classes a class loader holds, the modules of an
// interpreter), each child is a suspect of its own, and the object stays
// a suspect only for what is left over the threshold. Second, when the
// way down goes through an object with a name ([heap.Graph.Name]: a
// class), the last such object is the suspect rather than the top (the
// class whose static field holds the memory, not the class loader above
// it); what the objects above it retain besides is not reported. The
// objects a reader made up ([heap.FlagSynthetic]: V8's root and its
// sub-roots) are never suspects, only gone through. Third,
// the accumulation is described in the terms the program uses: the
// container around the point (the HashMap around its table array, by the
// container kinds of [Containers]) and the elements the container's
// entries hold (the values of a HashMap$Node; see entryKinds), counted
// by type. Fourth, a suspect is an accumulation of the program's data,
// not of its code: the classes, functions, modules and namespaces that
// importing a large library makes (codeObjects) are left out of the
// elements, and an object whose accumulation is over the threshold only
// with them counted is not a suspect.
//
// As in MAT, the top-level objects that are not suspects on their own are
// then grouped by type, and a type whose objects together retain more
// than the threshold is a group suspect (many threads, many objects held
// outside the heap). Classes and modules the runtime keeps loaded (roots
// of kind [heap.RootClass] and [heap.RootModule]) and code objects
// (module and class namespaces, functions, classes: codeObjects) are
// left out of the groups: together they are the program's code, not a
// leak.
//
// Suspects is runtime-neutral but for the container and entry kinds,
// which it takes from the graph's runtime. It does not modify t.
func Suspects(t *DomTree, opt SuspectOptions) []Suspect {
	if opt.MinShare <= 0 {
		opt.MinShare = DefaultSuspectShare
	}
	if opt.BigDrop <= 0 {
		opt.BigDrop = DefaultBigDrop
	}
	total := t.Retained(SuperRoot)
	s := &suspectFinder{t: t, h: newContainerIndex(t.g), opt: opt,
		threshold: uint64(opt.MinShare * float64(total)), code: codeObjects(t.g), fold: newClassIndex(t.g).fold}
	var rest []heap.ObjectID
	for _, c := range t.kidsOf(SuperRoot) {
		if t.Retained(c) <= s.threshold {
			rest = append(rest, c)
		}
	}
	for _, c := range t.childrenOver(SuperRoot, s.threshold) {
		s.walk(c)
	}
	s.groups(rest)
	for i := range s.out {
		s.out[i].Share = float64(s.out[i].Retained) / float64(total)
	}
	slices.SortStableFunc(s.out, func(a, b Suspect) int {
		if c := cmp.Compare(b.Retained, a.Retained); c != 0 {
			return c
		}
		return cmp.Compare(a.Object, b.Object)
	})
	return s.out
}

type suspectFinder struct {
	t         *DomTree
	h         *containerIndex
	opt       SuspectOptions
	threshold uint64
	out       []Suspect
	code      bitset            // the program's code (codeObjects), never an accumulation
	fold      map[string]string // classIndex.fold: a large family's instances are one group
}

// elementGroups sums objects into ElementGroups by type, the instances
// of a large family's classes as one (see ElementGroup).
type elementGroups struct {
	g      *heap.Graph
	fold   map[string]string
	byName map[string]*ElementGroup
	types  map[string]map[heap.TypeID]bool // of the groups that fold sums
}

func newElementGroups(g *heap.Graph, fold map[string]string) *elementGroups {
	return &elementGroups{g: g, fold: fold, byName: map[string]*ElementGroup{}, types: map[string]map[heap.TypeID]bool{}}
}

// add counts x, which retains retained bytes, in its type's group.
func (eg *elementGroups) add(x heap.ObjectID, retained uint64) *ElementGroup {
	ty := eg.g.Type(x)
	name := eg.g.TypeName(ty)
	if p, ok := eg.fold[name]; ok {
		name = p
		if eg.types[name] == nil {
			eg.types[name] = map[heap.TypeID]bool{}
		}
		eg.types[name][ty] = true
	}
	e := eg.byName[name]
	if e == nil {
		e = &ElementGroup{Type: name}
		eg.byName[name] = e
	}
	e.Count++
	e.Retained += retained
	e.Types = len(eg.types[name])
	return e
}

// walk reports the suspect top, which retains more than the threshold,
// and the suspects below it: the children of its accumulation point, and
// of the objects between, that retain more than the threshold too.
func (s *suspectFinder) walk(top heap.ObjectID) {
	t := s.t
	chain, chained := s.descend(top)
	point := chain[len(chain)-1]
	// The suspect is the last object with a name on the way down (the
	// class whose static field holds the accumulation), not the class
	// loader and the list of classes above it; when none has a name, the
	// first object the reader did not make up (not V8's synthetic root).
	named := -1
	for i, v := range chain {
		if _, ok := t.g.Name(v); ok {
			named = i
		}
	}
	for i, v := range chain {
		if named >= 0 {
			break
		}
		if t.g.Flags(v)&heap.FlagSynthetic == 0 {
			named = i
		}
	}
	runtimeOnly := named < 0 // every object on the way is synthetic
	if runtimeOnly {
		named = 0
	}
	var inner, innerAtPoint uint64
	var below []heap.ObjectID // suspects of their own among the point's children
	for i, v := range chain {
		for _, c := range t.childrenOver(v, s.threshold) {
			if s.h.isEntry(c) || (i+1 < len(chain) && c == chain[i+1]) ||
				(chained && v == point && t.g.Type(c) == t.g.Type(point)) {
				continue
			}
			if i >= named {
				inner += t.Retained(c)
			}
			if v == point {
				innerAtPoint += t.Retained(c)
				below = append(below, c)
			}
			s.walk(c)
		}
	}
	own := t.Retained(chain[named]) - inner
	if runtimeOnly || (inner > 0 && own <= s.threshold) {
		return // what holds the suspects below is not one itself
	}
	sp := Suspect{Object: chain[named], Retained: own, Point: point, Holder: point,
		PointRetained: t.Retained(point) - innerAtPoint}
	var cands []heap.ObjectID // the point's dominators, outermost first
	for p, k := t.Idom(point), 0; p != SuperRoot && p != Unreachable && k < 3; p, k = t.Idom(p), k+1 {
		cands = append([]heap.ObjectID{p}, cands...)
	}
	if c, ok := s.h.containerAround(point, cands); ok {
		sp.Holder = c
	}
	var code uint64
	sp.Elements, code = s.elements(point, chained, below)
	if s.code.has(uint32(point)) && t.g.Meta().Runtime == "v8" {
		code += t.g.Size(point) // a script's source text: code itself
	}
	if own-min(own, code) <= s.threshold {
		return // what accumulates is the program's code, not its data
	}
	s.out = append(s.out, sp)
}

// descend goes down from top to its biggest child while that child
// retains at least BigDrop of its parent, and returns the objects it went
// through, top first; the last is the accumulation point. It does not go
// into a container's entries (whose container is the point), and stops
// at the head of a linked chain of one type (each node dominating the
// rest) rather than walking it to its end; chained says so.
func (s *suspectFinder) descend(top heap.ObjectID) (chain []heap.ObjectID, chained bool) {
	t, g := s.t, s.t.g
	chain = []heap.ObjectID{top}
	v := top
	run := 0
	for depth := 0; depth < maxDescent; depth++ {
		kids := t.kidsOf(v)
		if len(kids) == 0 {
			break
		}
		c := kids[0]
		for _, k := range kids[1:] {
			if cmpRetained(t.retained, uint32(k), uint32(c)) < 0 {
				c = k
			}
		}
		if s.h.isEntry(c) || float64(t.Retained(c)) < s.opt.BigDrop*float64(t.Retained(v)) {
			break
		}
		if g.Type(c) != g.Type(v) {
			run = 0
		} else if run++; run >= chainRun {
			return chain[:len(chain)-run+1], true
		}
		chain = append(chain, c)
		v = c
	}
	return chain, false
}

// chainRun is how many steps of one type in a row make a linked chain.
const chainRun = 16

// elements sums the objects that accumulate at point by type: its
// children but those in skip (suspects of their own), looking through container entries (and the entries chained
// to them) to the elements they hold, and, when point heads a linked
// chain, through the chain's nodes to what each holds. Code objects
// (codeObjects) are left out of the groups; code is what they retain.
func (s *suspectFinder) elements(point heap.ObjectID, chained bool, skip []heap.ObjectID) (groups []ElementGroup, code uint64) {
	t, g, h := s.t, s.t.g, s.h
	owns := func(entry, v heap.ObjectID) bool { return t.Idom(v) == entry }
	eg := newElementGroups(g, s.fold)
	add := func(x heap.ObjectID) {
		if s.code.has(uint32(x)) {
			code += t.Retained(x)
			return
		}
		eg.add(x, t.Retained(x))
	}
	stack := append([]heap.ObjectID(nil), t.kidsOf(point)...)
	pointType := g.Type(point)
	for len(stack) > 0 {
		x := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if slices.Contains(skip, x) {
			continue
		}
		switch {
		case h.isEntry(x):
			if k := h.entryOf[g.Type(x)]; k.Value != "" || k.Key != "" {
				if el := h.element(x, owns); el != heap.None {
					add(el)
				} else {
					add(x)
				}
			}
			for _, c := range t.kidsOf(x) {
				if h.isEntry(c) {
					stack = append(stack, c)
				}
			}
		case chained && g.Type(x) == pointType:
			stack = append(stack, t.kidsOf(x)...)
		default:
			add(x)
		}
	}
	out := make([]ElementGroup, 0, len(eg.byName))
	for _, e := range eg.byName {
		out = append(out, *e)
	}
	slices.SortFunc(out, func(a, b ElementGroup) int {
		return cmp.Or(cmp.Compare(b.Retained, a.Retained), cmp.Compare(b.Count, a.Count), cmp.Compare(a.Type, b.Type))
	})
	if len(out) > maxElementGroups {
		out = out[:maxElementGroups]
	}
	return out, code
}

// childrenOver returns the objects id immediately dominates that retain
// more than min, in [DomTree.Children] order. A node can have most of
// the heap as children (the top level, a large map's table): only the
// few big ones are sorted.
func (t *DomTree) childrenOver(id heap.ObjectID, min uint64) []heap.ObjectID {
	var big []heap.ObjectID
	for _, c := range t.kidsOf(id) {
		if t.retained[c] > min {
			big = append(big, c)
		}
	}
	slices.SortFunc(big, func(a, b heap.ObjectID) int { return cmpRetained(t.retained, uint32(a), uint32(b)) })
	return big
}

// kidsOf returns the objects id immediately dominates, unsorted: a view
// of the tree's arrays.
func (t *DomTree) kidsOf(id heap.ObjectID) []heap.ObjectID {
	i := t.index(id)
	return u32ids(t.kids[t.kidStart[i]:t.kidStart[i+1]])
}

// groups adds the group suspects among the top-level objects that are
// not suspects on their own.
func (s *suspectFinder) groups(rest []heap.ObjectID) {
	t, g := s.t, s.t.g
	code := newBitset(g.NumObjects())
	for _, r := range g.Roots() {
		if r.Kind == heap.RootClass || r.Kind == heap.RootModule {
			code.set(uint32(r.Object))
		}
	}
	byType := map[*ElementGroup]*Suspect{}
	var order []*ElementGroup
	eg := newElementGroups(g, s.fold)
	for _, x := range rest {
		if code.has(uint32(x)) || s.code.has(uint32(x)) || g.Flags(x)&heap.FlagSynthetic != 0 {
			continue
		}
		e := eg.add(x, t.Retained(x))
		sp := byType[e]
		if sp == nil {
			sp = &Suspect{Object: x, Point: heap.None, Holder: heap.None}
			byType[e] = sp
			order = append(order, e)
		}
		sp.Members = append(sp.Members, x)
		sp.Retained += t.Retained(x)
	}
	for _, e := range order {
		sp := byType[e]
		if sp.Retained <= s.threshold || len(sp.Members) < 2 {
			continue
		}
		sp.Elements = []ElementGroup{*e}
		sp.Keeps = Kept(t, sp.Members)
		s.out = append(s.out, *sp)
	}
}
