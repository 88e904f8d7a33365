package analyze

import (
	"strings"
	"sync"
	"sync/atomic"

	"github.com/heapscope/heapscope/heap"
	"github.com/heapscope/heapscope/internal/spill"
)

// PathOptions adjusts [ShortestPaths].
type PathOptions struct {
	// IncludeWeak follows Weak edges too, as ordinary edges: a path may
	// then hold an object only weakly.
	IncludeWeak bool
	// ExtraRoots are roots after the graph's own, of kind
	// heap.RootNative named [NativeRootName], as in [DomOptions].
	ExtraRoots []heap.ObjectID
}

// Retainers is a breadth-first search tree from the super-root: for every
// object it reaches, the edge by which a shortest path reaches it. The
// roots are searched in three tiers, each only for what the ones before
// left unreached: the program's roots (modules, stacks, threads, classes,
// globals), then the runtime's own ([heap.RootVM]: the Python
// interpreter's state, the JVM's internal roots), then the extra roots
// (objects held outside the heap). So an object a module reaches gets
// that module's path, however short a path through the interpreter's
// tables or a native reference would be: the path says where the program
// holds it. An object with [heap.FlagTransient] (what it holds depends on
// the moment the snapshot was written) is searched from only after every
// tier: a path goes through it only to objects no other path reaches.
// Within a tier, ties go to the first root (g.Roots() order, then extra
// roots) and then the first edge in edge order, so paths are
// deterministic. The search runs as far as the questions asked need
// (see search): the paths of a few objects near the roots cost little.
// Memory: 12 bytes per object during the search, 8 kept, and 8 more once
// [MergePaths] has used it. It is safe for concurrent use.
type Retainers struct {
	g      *heap.Graph
	parent []uint32     // object -> previous object, SuperRoot or Unreachable
	via    []heap.Label // the edge from the parent; for root objects, their index in roots
	roots  []heap.Root  // g.Roots() then the extra roots
	entry  []bool       // by type: a container's entry type (see entryKinds); nil when none

	mu  sync.Mutex // guards sig
	sig *sigIndex  // path signatures, built as MergePaths needs them

	smu  sync.Mutex  // guards s, and parent and via while s runs
	s    *search     // the search, while it has not ended
	done atomic.Bool // the search has ended: parent and via are final

	distOnce sync.Once
	dist     []int32 // see Distance
}

// ShortestPaths searches g breadth-first from the super-root over
// retaining edges (see [Dominators]; Weak edges too if opt.IncludeWeak).
// In a snapshot of live objects only (g.Meta().Live), the search then
// goes on through the edges that do not retain, so that the objects
// [DomTree.Hung] hangs under the super-root have a path too, whose
// non-retaining step keeps its kind (Weak).
func ShortestPaths(g *heap.Graph, opt PathOptions) *Retainers {
	return shortestPaths(g, opt, nil)
}

// shortestPaths is ShortestPaths through none of the objects in avoid
// (nil: none avoided): an avoided object is never reached, so what only
// avoided objects lead to is not reached either. For the paths of what
// holds a leak that do not go through the leak (see [Holder]).
func shortestPaths(g *heap.Graph, opt PathOptions, avoid bitset) *Retainers {
	n := g.NumObjects()
	r := &Retainers{g: g, parent: spill.Make[uint32](n), via: spill.Make[heap.Label](n), entry: entryTypes(g)}
	for i := range r.parent {
		r.parent[i] = uint32(Unreachable)
	}
	r.roots = append(r.roots, g.Roots()...)
	for _, x := range opt.ExtraRoots {
		if int(x) < n {
			r.roots = append(r.roots, heap.Root{Object: x, Kind: heap.RootNative})
		}
	}
	// Every object enters the queue at most once: room for all of them
	// up front costs less than growing it by copies.
	r.s = &search{opt: opt, isRoot: rootBits(g), avoid: avoid, queue: spill.MakeCap[uint32](0, n)}
	return r
}

// rootTier is the tier of the path search (see [Retainers]) a root of
// kind k belongs to; extra: one of [PathOptions].ExtraRoots.
func rootTier(k heap.RootKind, extra bool) int {
	switch {
	case extra:
		return 2
	case k == heap.RootVM:
		return 1
	}
	return 0
}

// Reached reports whether a path leads to id.
func (r *Retainers) Reached(id heap.ObjectID) bool {
	if int(id) >= len(r.parent) {
		return false
	}
	r.reach(id)
	return r.parent[id] != uint32(Unreachable)
}

// Parent returns the object before id on its shortest path, and the
// label of the edge from it: [SuperRoot] for root objects (the label is
// then meaningless), [Unreachable] when no path leads to id.
func (r *Retainers) Parent(id heap.ObjectID) (heap.ObjectID, heap.Label) {
	r.reach(id)
	return heap.ObjectID(r.parent[id]), r.via[id]
}

// Root returns the kind and description of the root that holds id, when
// id is a root object of the search (its [Retainers.Parent] is
// SuperRoot), as [Path] gives them for a path that starts at id.
func (r *Retainers) Root(id heap.ObjectID) (heap.RootKind, string, bool) {
	if !r.Reached(id) || r.parent[id] != uint32(SuperRoot) {
		return 0, "", false
	}
	k, name := r.rootOf(r.via[id])
	return k, name, true
}

// Step is one object on a path.
type Step struct {
	Object heap.ObjectID
	Type   string
	// Name is the object's own name (g.Name: "class java.util.HashMap"
	// for a class object), "" when it has none.
	Name string
	// Edge names the edge from the previous step to Object
	// (g.EdgeName: a name, "[i]" for an index, "" when unnamed); it is
	// "" on the first step, which the root holds.
	Edge string
	Kind heap.EdgeKind // kind of that edge
}

// Path is a shortest path from the super-root to an object.
type Path struct {
	RootKind heap.RootKind
	RootName string // the root's description; NativeRootName for extra roots
	Steps    []Step // Steps[0] is the root object, the last step the target
}

// Path returns the shortest path to id, or false when none leads there.
func (r *Retainers) Path(id heap.ObjectID) (Path, bool) {
	if !r.Reached(id) {
		return Path{}, false
	}
	g := r.g
	var steps []Step
	for v := id; ; {
		p, l := r.Parent(v)
		st := Step{Object: v, Type: g.TypeName(g.Type(v))}
		st.Name, _ = g.Name(v)
		if p == SuperRoot {
			steps = append(steps, st)
			var path Path
			path.RootKind, path.RootName = r.rootOf(l)
			for i, j := 0, len(steps)-1; i < j; i, j = i+1, j-1 {
				steps[i], steps[j] = steps[j], steps[i]
			}
			path.Steps = steps
			return path, true
		}
		st.Edge, st.Kind = g.EdgeName(l), l.Kind()
		steps = append(steps, st)
		v = p
	}
}

// Selector picks objects; its non-zero fields must all match.
type Selector struct {
	Type    string // exact type name
	Addr    uint64 // runtime address (g.FindAddr), when HasAddr
	HasAddr bool
	Value   string // substring of the object's value label (g.Value)
	// Class picks class objects by their name (see [ClassName]): the
	// qualified name, its last part (after a dot), or a pattern in
	// which "*" stands for any text (see [MatchClass]).
	Class string
	// Label, with an address, is the name the object must go by (its
	// type name, its own name or its class's name): a selector copied
	// from heapscope's output ("Server @47297") picks nothing when the
	// id names another object.
	Label string
	// Loose takes a Type that no type has for what else a name printed
	// by heapscope stands for, the first that picks something: objects
	// whose own name it is ("module app", "class app.Cache"), class
	// objects of that name (see Class), the closures of a function of
	// that name ("refreshItemView" for "refreshItemView (closure)"), a
	// row of leaks or diff ("T (classes P)", "P (instances of N
	// classes)"), or types whose name matches it with "*" for any text.
	Loose bool
	// InstanceOf picks the instances of a class and of all its
	// subclasses (Java: by the class objects' superclasses).
	InstanceOf string
}

// Select returns the objects s picks, in ID order. The zero Selector
// picks nothing.
func Select(g *heap.Graph, s Selector) []heap.ObjectID {
	if s.InstanceOf != "" {
		want := instanceOf(g, s.InstanceOf)
		var out []heap.ObjectID
		for v, t := range g.Types() {
			if want[t] {
				out = append(out, heap.ObjectID(v))
			}
		}
		return out
	}
	if s.Class != "" {
		return selectClasses(g, s)
	}
	if s.HasAddr {
		id, ok := g.FindAddr(s.Addr)
		if !ok || !s.matchRest(g, id) || s.Label != "" && !labelMatches(g, id, s.Label) {
			return nil
		}
		return []heap.ObjectID{id}
	}
	if s.Type == "" && s.Value == "" {
		return nil
	}
	if s.Loose && s.Value == "" {
		if out := Select(g, Selector{Type: s.Type}); out != nil {
			return out
		}
		return selectLoose(g, s)
	}
	var out []heap.ObjectID
	if s.Value != "" {
		for id, v := range g.Values() {
			if strings.Contains(v, s.Value) && s.matchRest(g, id) {
				out = append(out, id)
			}
		}
		return out
	}
	want := make([]bool, g.NumTypes())
	for t := range want {
		want[t] = g.TypeName(heap.TypeID(t)) == s.Type
	}
	for v, t := range g.Types() {
		if want[t] {
			out = append(out, heap.ObjectID(v))
		}
	}
	return out
}

func (s Selector) matchRest(g *heap.Graph, id heap.ObjectID) bool {
	if s.Type != "" && g.TypeName(g.Type(id)) != s.Type {
		return false
	}
	if s.Value != "" {
		v, ok := g.Value(id)
		return ok && strings.Contains(v, s.Value)
	}
	return true
}
