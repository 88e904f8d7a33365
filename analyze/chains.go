package analyze

import "github.com/heapscope/heapscope/heap"

// ChainOptions bounds [DominatorChains].
type ChainOptions struct {
	// MinRetained: a frame whose objects retain less is a leaf named by
	// their type, with everything below it counted in it. 0 keeps every
	// frame.
	MinRetained uint64
	// MaxDepth is the most frames a chain has (0: 64); the objects at the
	// last level are a leaf named by their type, with everything they
	// dominate counted in it.
	MaxDepth int
	// MaxFrames is the most frames made before the small ones are folded
	// (0: 200,000; one more, "(other)", when the top level is full):
	// objects that would need another are counted in their dominator's
	// frame.
	MaxFrames int
}

// ChainFrame is one frame of [DomChains]: a distinct chain of dominator
// labels from the root to here.
type ChainFrame struct {
	Parent int32  // the enclosing frame's index; -1 at the top
	Label  string // the name of the objects it stands for, else their type
	Depth  int    // frames above it
	// Count and Bytes are the objects counted in this frame itself and
	// their shallow sizes: the frame's objects, and what MinRetained,
	// MaxDepth and MaxFrames folded into it.
	Count int
	Bytes uint64
}

// DomChains is the dominator tree folded by labels: what a flame graph
// of retained memory draws. A frame's total (its Bytes plus those of
// every frame below it) is the retained size of the objects that enter
// it, none of which dominates another: each object is counted once, in
// the frame its dominator chain leads to, so the totals of the top-level
// frames add up to the retained size of the whole tree.
type DomChains struct {
	Frames      []ChainFrame // parents before children
	MinRetained uint64       // the option the chains were made with
	Folded      int          // objects counted in a frame above their own
}

// DominatorChains folds the dominator tree of t into chains of labels:
// an object's frame is the child, labelled by the object's name (a
// class's, a module's) or else its type name, of its immediate
// dominator's frame, and the same child for every object with that
// label there. The dominator tree is grouped as a calling-context tree
// groups calls (Ammons, Ball, Larus, "Exploiting hardware performance
// counters with flow and context sensitive profiling", PLDI 1997), so
// that profile viewers draw it as a flame graph (Gregg, "The flame
// graph", CACM 59(6), 2016) and can subtract two of them.
//
// An object with the label of its dominator's frame joins that frame (a
// linked list is one frame, not one per node). A frame whose objects
// retain less than opt.MinRetained together becomes a leaf named by the
// type of its objects (the classes too small to show are one frame
// "java.lang.Class"), merged with its siblings of that name, and what
// was below it is counted in it; so do the objects at the last level
// opt.MaxDepth allows. Past opt.MaxFrames frames, objects are counted in
// their dominator's frame. Every fold keeps each frame's total equal to
// what its objects retain, and bounds the output whatever the heap.
//
// Objects no root reaches are not in the tree, and not in the chains.
func DominatorChains(t *DomTree, opt ChainOptions) DomChains {
	if opt.MaxDepth <= 0 {
		opt.MaxDepth = 64
	}
	if opt.MaxFrames <= 0 {
		opt.MaxFrames = 200000
	}
	all, typeOf, folded := buildChains(t, opt)
	out := DomChains{MinRetained: opt.MinRetained, Folded: folded}
	// What each frame and those below it hold: children come after
	// their parents.
	total := make([]uint64, len(all))
	for f := len(all) - 1; f >= 0; f-- {
		total[f] += all[f].Bytes
		if p := all[f].Parent; p >= 0 {
			total[p] += total[f]
		}
	}
	kids := map[chainKey]int32{}
	to := make([]int32, len(all))  // the frame of out each frame of all is counted in
	leaf := make([]bool, len(all)) // counted in a leaf, with what is below it
	for f, fr := range all {
		parent := int32(-1)
		if fr.Parent >= 0 {
			parent = to[fr.Parent]
		}
		switch {
		case fr.Parent >= 0 && leaf[fr.Parent]:
			to[f], leaf[f] = parent, true
			out.Folded += fr.Count
		case total[f] < opt.MinRetained:
			to[f], leaf[f] = out.child(kids, parent, typeOf[f]), true
		default:
			to[f] = out.child(kids, parent, fr.Label)
		}
		out.Frames[to[f]].Count += fr.Count
		out.Frames[to[f]].Bytes += fr.Bytes
	}
	return out
}

// chainKey finds a frame by its parent and label.
type chainKey struct {
	parent int32
	label  string
}

// child returns the frame labelled label below parent (-1: at the top),
// made if need be; parent itself when it has that label.
func (c *DomChains) child(kids map[chainKey]int32, parent int32, label string) int32 {
	if parent >= 0 && c.Frames[parent].Label == label {
		return parent
	}
	if f, ok := kids[chainKey{parent, label}]; ok {
		return f
	}
	depth := 0
	if parent >= 0 {
		depth = c.Frames[parent].Depth + 1
	}
	f := int32(len(c.Frames))
	c.Frames = append(c.Frames, ChainFrame{Parent: parent, Label: label, Depth: depth})
	kids[chainKey{parent, label}] = f
	return f
}

// buildChains makes the frames of every object's chain of labels, as
// far as opt.MaxDepth and opt.MaxFrames allow, with the type name of
// each frame's first object and the count of objects folded into a
// frame above theirs.
func buildChains(t *DomTree, opt ChainOptions) (frames []ChainFrame, typeOf []string, folded int) {
	g := t.g
	sizes := g.Sizes()
	c := DomChains{}
	kids := map[chainKey]int32{}
	// One entry per open object of the walk: its frame, and whether it
	// was folded into a frame with what it dominates.
	type open struct {
		frame  int32
		folded bool
	}
	var stack []open
	t.walk(func(v uint32) {
		parent, fold := int32(-1), false
		if len(stack) > 0 {
			parent, fold = stack[len(stack)-1].frame, stack[len(stack)-1].folded
		}
		id := heap.ObjectID(v)
		typ := g.TypeName(g.Type(id))
		f := parent
		last := opt.MaxDepth == 1 || (parent >= 0 && c.Frames[parent].Depth+2 >= opt.MaxDepth)
		label, named := g.Name(id)
		if !named || last {
			label = typ
		}
		switch {
		case fold:
			folded++
		case parent >= 0 && c.Frames[parent].Label == label:
			// a run of one label: one frame
		case last:
			fold = true
			f = c.child(kids, parent, label)
		default:
			if _, ok := kids[chainKey{parent, label}]; !ok && len(c.Frames) >= opt.MaxFrames {
				// No room for a frame of its own: count it in its
				// parent, or at the top in one frame more for all such.
				fold = true
				folded++
				if parent >= 0 {
					break
				}
				label = "(other)"
			}
			f = c.child(kids, parent, label)
		}
		if int(f) == len(typeOf) {
			typeOf = append(typeOf, typ)
		}
		c.Frames[f].Count++
		c.Frames[f].Bytes += sizes[v]
		stack = append(stack, open{f, fold})
	}, func(uint32) {
		stack = stack[:len(stack)-1]
	})
	return c.Frames, typeOf, folded
}
