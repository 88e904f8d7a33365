package analyze

import (
	"github.com/heapscope/heapscope/heap"
)

// MaxSignature is the most steps a path signature has (see [MergePaths]).
// A longer signature keeps its first MaxSignature-2 steps, then a
// [GapStep] standing for the steps between, then its last step, so that
// merging the paths of a long chain of objects costs time and memory in
// proportion to the chain, not to its square.
const MaxSignature = 32

// GapStep is the type name of the step that stands for the middle of a
// signature longer than [MaxSignature].
const GapStep = "..."

// sigIndex gives every object on the paths [MergePaths] has followed
// the node of its signature in a trie of signatures, so that each object
// is visited once whatever the number of targets below it: a linked list
// of n selected objects costs O(n), not O(n²).
//
// The state of an object is the trie node of the collapsed signature of
// its own path, as a prefix for the objects below it: the exact
// signature while it has at most MaxSignature steps, and past that a gap
// node, the first MaxSignature-2 steps followed by the gap. An object's
// own signature, as a target, follows from its parent's state and its
// own step without its name (see [SigStep]). Memory: 8 bytes per object
// of the graph, allocated on first use, and the trie (one node per
// distinct signature prefix met).
type sigIndex struct {
	state []int32 // object -> trie node; -1: not computed yet
	// long: object -> bit i set when the run of equal steps that
	// signature step i (exact steps only) stands for has more than one
	// object on the object's path.
	long []uint32

	nodes    []sigNode
	children map[sigKey]int32

	edgeKey map[heap.StringID]int32 // named label -> index in texts
	texts   []string                // edge and object names
	textIDs map[string]int32
	rootKey []int32 // root index -> index in rootIDs
	rootIDs []rootID

	stack  []uint32 // scratch for stateOf
	visits int      // objects whose state was computed: the work done
}

// rootID is what tells two roots apart in a signature.
type rootID struct {
	kind heap.RootKind
	name string
}

// step is an object's own step: its type, its name and the collapsed
// name of the edge that leads to it (noText for root objects).
type step struct{ typ, name, edge int32 }

// sigNode is one step of a signature: the node of the signature ending
// with it.
type sigNode struct {
	step
	parent int32 // the node before; -1 for the first step
	root   int32 // index in rootIDs
	depth  int32 // number of steps, this one included
}

// sigKey finds a node: its parent (or, for first steps, -2-root) and
// its step.
type sigKey struct {
	parent int32
	step
}

// Texts made first: index edges ("[*]"), and the empty string, the name
// of an unnamed edge, of a root object's edge (so a root object and an
// object of its type below it by an unnamed edge are one run) and of an
// object without one. gapStep is the gap's step.
const (
	anyEdge = 0
	noText  = 1
)

var gapStep = step{typ: -1, name: noText, edge: noText}

// sigs returns r's signature index, building its tables on first use.
// The caller holds r.mu.
func (r *Retainers) sigs() *sigIndex {
	if r.sig != nil {
		return r.sig
	}
	g := r.g
	s := &sigIndex{
		state:    make([]int32, g.NumObjects()),
		long:     make([]uint32, g.NumObjects()),
		children: map[sigKey]int32{},
		edgeKey:  map[heap.StringID]int32{},
		textIDs:  map[string]int32{},
	}
	for i := range s.state {
		s.state[i] = -1
	}
	s.text("[*]")
	s.text("")
	roots := map[rootID]int32{}
	s.rootKey = make([]int32, len(r.roots))
	for i := range r.roots {
		kind, name := r.rootOf(heap.Label(i))
		id := rootID{kind, name}
		k, ok := roots[id]
		if !ok {
			k = int32(len(s.rootIDs))
			roots[id] = k
			s.rootIDs = append(s.rootIDs, id)
		}
		s.rootKey[i] = k
	}
	r.sig = s
	return s
}

func (s *sigIndex) text(t string) int32 {
	k, ok := s.textIDs[t]
	if !ok {
		k = int32(len(s.texts))
		s.textIDs[t] = k
		s.texts = append(s.texts, t)
	}
	return k
}

// stepOf returns id's own step, with its name when named.
func (r *Retainers) stepOf(s *sigIndex, id heap.ObjectID, named bool) step {
	st := step{typ: int32(r.g.Type(id)), name: noText, edge: noText}
	if named {
		if name, ok := r.g.Name(id); ok {
			st.name = s.text(name)
		}
	}
	p, l := r.Parent(id)
	if p == SuperRoot {
		return st
	}
	if l.IsIndex() {
		st.edge = anyEdge
		return st
	}
	k, ok := s.edgeKey[l.Name()]
	if !ok {
		k = s.text(collapseEdge(r.g.String(l.Name())))
		s.edgeKey[l.Name()] = k
	}
	if t := s.texts[k]; (t == "first" || t == "second") && RopeStep(r.g.TypeName(r.g.Type(id)), t) {
		k = s.text(RopeEdge) // both halves of a rope are one run
	}
	st.edge = k
	return st
}

// sameRun reports whether an object with step st continues the run of
// its parent, whose step is prev: the same type and name, and the same
// edge, or any edge between a container's entries.
func (r *Retainers) sameRun(prev, st step) bool {
	return prev.typ == st.typ && prev.name == st.name &&
		(prev.edge == st.edge || r.entry != nil && r.entry[st.typ])
}

// node returns the node of parent's signature followed by st (for a
// first step, parent is -2-root), making it if needed.
func (s *sigIndex) node(parent int32, st step) int32 {
	key := sigKey{parent, st}
	if k, ok := s.children[key]; ok {
		return k
	}
	n := sigNode{step: st, parent: parent, depth: 1}
	if parent >= 0 {
		n.root, n.depth = s.nodes[parent].root, s.nodes[parent].depth+1
	} else {
		n.root, n.parent = -2-parent, -1
	}
	k := int32(len(s.nodes))
	s.nodes = append(s.nodes, n)
	s.children[key] = k
	return k
}

func (s *sigIndex) isGap(k int32) bool { return s.nodes[k].typ < 0 }

// next returns the node, and the long runs, of an object with step st
// below an object whose state is ps, with long runs long and step prev:
// as the object's state when asTarget is false, as its own signature
// when true.
func (r *Retainers) next(s *sigIndex, ps int32, long uint32, prev, st step, asTarget bool) (int32, uint32) {
	same := r.sameRun(prev, st)
	kept := long & (1<<(MaxSignature-2) - 1) // the steps before a gap
	if s.isGap(ps) {
		// Past the cap every object shares the gap state; a target
		// adds its own step.
		if !asTarget {
			return ps, long
		}
		if same {
			kept |= 1 << (MaxSignature - 1)
		}
		return s.node(ps, st), kept
	}
	switch depth := s.nodes[ps].depth; {
	case same:
		// A run of equal steps is one step: mark it long.
		return ps, long | 1<<(depth-1)
	case depth < MaxSignature:
		return s.node(ps, st), long
	default:
		// The signature would outgrow the cap: keep its first
		// MaxSignature-2 steps and the gap.
		gap := s.node(s.nodes[s.nodes[ps].parent].parent, gapStep)
		if !asTarget {
			return gap, long
		}
		return s.node(gap, st), kept
	}
}

// stateOf returns id's state (see [sigIndex]), computing it for id and
// the objects above it that have none yet. id must be reached.
func (r *Retainers) stateOf(s *sigIndex, id heap.ObjectID) int32 {
	if k := s.state[id]; k >= 0 {
		return k
	}
	// Climb to an object whose state is known, or to a root object.
	stack := s.stack[:0]
	v := id
	for s.state[v] < 0 {
		stack = append(stack, uint32(v))
		s.visits++
		p, _ := r.Parent(v)
		if p == SuperRoot {
			break
		}
		v = p
	}
	// Come back down, each object's state from its parent's.
	var prev step // the parent's step
	if top := heap.ObjectID(stack[len(stack)-1]); s.state[v] >= 0 && v != top {
		prev = r.stepOf(s, v, true)
	}
	for i := len(stack) - 1; i >= 0; i-- {
		v := heap.ObjectID(stack[i])
		st := r.stepOf(s, v, true)
		p, l := r.Parent(v)
		if p == SuperRoot {
			s.state[v], s.long[v] = s.node(-2-s.rootKey[l], st), 0
		} else {
			s.state[v], s.long[v] = r.next(s, s.state[p], s.long[p], prev, st, false)
		}
		prev = st
	}
	s.stack = stack
	return s.state[id]
}

// target returns the node of id's own signature, and the steps of it
// whose runs were long on id's path (bit i: step i).
func (r *Retainers) target(s *sigIndex, id heap.ObjectID) (int32, uint32) {
	st := r.stepOf(s, id, false)
	p, l := r.Parent(id)
	if p == SuperRoot {
		return s.node(-2-s.rootKey[l], st), 0
	}
	ps := r.stateOf(s, p)
	return r.next(s, ps, s.long[p], r.stepOf(s, p, true), st, true)
}

// steps returns the signature that ends at node k, with the steps in
// long marked Repeated.
func (s *sigIndex) steps(g *heap.Graph, k int32, long uint32) (heap.RootKind, string, []SigStep) {
	n := s.nodes[k]
	out := make([]SigStep, n.depth)
	for i := n.depth - 1; i >= 0; i-- {
		st := &out[i]
		if n.typ < 0 {
			st.Type = GapStep
		} else {
			st.Type = g.TypeName(heap.TypeID(n.typ))
			st.Name, st.Edge = s.texts[n.name], s.texts[n.edge]
			st.Repeated = long&(1<<i) != 0
		}
		if n.parent >= 0 {
			n = s.nodes[n.parent]
		}
	}
	root := s.rootIDs[s.nodes[k].root]
	return root.kind, root.name, out
}
