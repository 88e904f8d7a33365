package analyze

import (
	"cmp"
	"slices"
	"strconv"
	"strings"

	"github.com/heapscope/heapscope/heap"
)

// NativeObject is an object that something outside the snapshot's heap
// holds: its reference count exceeds the references the snapshot shows.
type NativeObject struct {
	Object   heap.ObjectID
	Refcount uint32 // the runtime's reference count
	Edges    uint32 // incoming edges of the snapshot that hold a count (all but Weak)
}

// Excess returns the references nobody in the snapshot accounts for.
func (o NativeObject) Excess() uint32 { return o.Refcount - o.Edges }

// Objects the interpreter itself holds, whose excess references are
// expected. Python only: the other runtimes have no reference counts.
var (
	// interpreterTypes are types whose instances the interpreter holds
	// from C: type slots, the thread state, the module table.
	interpreterTypes = map[string]bool{
		"type": true, "module": true, "code": true, "frame": true,
		"builtin_function_or_method": true, "method_descriptor": true,
		"wrapper_descriptor": true, "getset_descriptor": true,
		"member_descriptor": true, "classmethod_descriptor": true,
		"NoneType": true, "bool": true, "ellipsis": true,
		"NotImplementedType": true,
		// An lru_cache entry: its cache's dict holds it, and so does the
		// cache's linked list of entries, which is not an object.
		"functools._lru_list_elem": true,
		// Singletons the interpreter's C code holds: contextvars'
		// Token.MISSING, and (3.9, before they moved into the interpreter
		// state) the ast module's operator and context instances.
		"Token.MISSING": true,
	}
	astSingletons = strings.Fields(`Load Store Del And Or Add Sub Mult MatMult Div Mod Pow
		LShift RShift BitOr BitXor BitAnd FloorDiv Invert Not UAdd USub Eq NotEq Lt LtE Gt
		GtE Is IsNot In NotIn`)
	// metaclassSuffixes: a type whose name ends so is a metaclass
	// (abc.ABCMeta, enum.EnumType), so its instances are classes.
	metaclassSuffixes = []string{"Meta", "Type", "type"}
)

// maxCachedBytes is the size of the largest bytes object CPython caches
// (the empty one and those of one byte, 33 and 34 bytes on 64-bit
// platforms; statically before 3.10, so no heap object refers to them).
const maxCachedBytes = 34

// internedSlack is how many unexplained references a str may have and
// still be taken for an interned string (held by the interpreter's
// interned table and by code objects' constants the snapshot may miss).
const internedSlack = 2

// NativeHeld finds the objects held by something outside the heap (a C
// structure, an extension's leaked reference): objects whose reference
// count is higher than their incoming edges that hold a count (every edge
// but Weak ones: weak references hold no count). It returns nil when the
// snapshot has no reference counts (g.HasRefcounts() is false), else the
// objects in ID order.
//
// What the interpreter itself holds is modelled by the agent where it can
// be read (the interpreter state is a synthetic root object whose edges
// are its references; code objects, descriptors, static types and
// subclass records have their edges), and left out here where it cannot,
// which would otherwise drown the report: immortal objects
// (heap.FlagImmortal, or a reference count of 100,000,000 or more: 3.11's
// static objects), synthetic objects, interned strings
// (heap.FlagInterned: identifier tables and the type attribute cache
// refer to them from C), singletons (None, True, Ellipsis,
// Token.MISSING, the ast module's operator instances), classes (objects
// of type "type" or of a metaclass, and targets of "__class__" edges),
// modules and their dicts (targets of a module's "__dict__" edge), code
// objects, frames of running threads, C functions and descriptors,
// lru_cache entries (also held by the cache's linked list), small ints
// (-5..256, cached by CPython), bytes of at most one byte (cached) and
// strs with at most 2 unexplained references (interned strings of
// snapshots without the interned flag). Objects whose referrers the
// agent could not see in full (a referrer flagged heap.FlagOpaque) may
// show up here: the snapshot cannot tell which of their references it
// missed.
func NativeHeld(g *heap.Graph) []NativeObject {
	// staticRefcount: CPython 3.11 gives its statically allocated and
	// deep-frozen objects (identifier strings, frozen modules' constants)
	// a reference count of 999999999 before PEP 683 made such objects
	// immortal (2^30 and up): no real object is held that many times.
	const staticRefcount = 100_000_000
	if !g.HasRefcounts() {
		return nil
	}
	n := g.NumObjects()
	in := make([]uint32, n)
	for _, e := range g.AllEdges() {
		if e.Label.Kind() != heap.Weak {
			in[e.To]++
		}
	}
	noiseType := make([]bool, g.NumTypes())
	isStr := make([]bool, g.NumTypes())
	isInt := make([]bool, g.NumTypes())
	isBytes := make([]bool, g.NumTypes())
	isModule := make([]bool, g.NumTypes())
	singleton := map[string]bool{}
	for _, n := range astSingletons {
		singleton["ast."+n] = true
	}
	for t := range noiseType {
		name := g.TypeName(heap.TypeID(t))
		noiseType[t] = interpreterTypes[name] || singleton[name]
		for _, s := range metaclassSuffixes {
			noiseType[t] = noiseType[t] || strings.HasSuffix(name, s)
		}
		isStr[t] = name == "str"
		isInt[t] = name == "int"
		isBytes[t] = name == "bytes"
		isModule[t] = name == "module"
	}
	cand := newBitset(n)
	found := false
	for v := range n {
		id := heap.ObjectID(v)
		rc, _ := g.Refcount(id)
		ty := g.Type(id)
		if rc <= in[v] || rc >= staticRefcount || g.Flags(id)&(heap.FlagImmortal|heap.FlagSynthetic|heap.FlagInterned) != 0 || noiseType[ty] {
			continue
		}
		if isBytes[ty] && g.Size(id) <= maxCachedBytes {
			continue
		}
		if isStr[ty] && rc-in[v] <= internedSlack {
			continue
		}
		if isInt[ty] {
			if x, err := strconv.Atoi(valueOf(g, id)); err == nil && x >= -5 && x <= 256 {
				continue
			}
		}
		cand.set(uint32(v))
		found = true
	}
	if !found {
		return nil
	}
	// Classes and module dicts, known by the edges that reach them.
	for v := range n {
		src := heap.ObjectID(v)
		srcIsModule := isModule[g.Type(src)]
		for _, e := range g.Edges(src) {
			if !cand.has(uint32(e.To)) || e.Label.IsIndex() {
				continue
			}
			switch name := g.String(e.Label.Name()); {
			case name == "__class__", srcIsModule && name == "__dict__":
				cand[e.To>>6] &^= 1 << (e.To & 63)
			}
		}
	}
	var out []NativeObject
	for v := range n {
		if cand.has(uint32(v)) {
			rc, _ := g.Refcount(heap.ObjectID(v))
			out = append(out, NativeObject{Object: heap.ObjectID(v), Refcount: rc, Edges: in[v]})
		}
	}
	return out
}

func valueOf(g *heap.Graph, id heap.ObjectID) string {
	v, _ := g.Value(id)
	return v
}

// NativeRoots returns the objects of held, to pass as
// [DomOptions].ExtraRoots or [PathOptions].ExtraRoots.
func NativeRoots(held []NativeObject) []heap.ObjectID {
	out := make([]heap.ObjectID, len(held))
	for i, o := range held {
		out[i] = o.Object
	}
	return out
}

// NativeGroup sums the objects held outside the heap of one type.
type NativeGroup struct {
	Type   string
	Count  int
	Excess uint64 // unexplained references, summed
	// Retained is the memory these objects retain, each object counted
	// once across all groups: the retained sizes of the group's members
	// that no other held object dominates. It needs a tree built with
	// the held objects as extra roots (else most of them are unreachable
	// and retain 0).
	Retained uint64
	Sample   heap.ObjectID // the member with the largest retained size (then lowest ID)
	// Keeps is what the members keep where their memory is, by type,
	// the most first (at most maxKept types): for each member, the
	// object its memory sits in (see keptBy). A memoryview keeps the
	// numpy array whose buffer it views; a member whose memory is its
	// own keeps nothing here.
	Keeps []KeptGroup
}

// KeptGroup is the objects of one type that some objects keep.
type KeptGroup struct {
	Type     string
	Count    int
	Retained uint64 // what they retain together
	// Least and Most are the smallest and largest retained size of one.
	Least, Most uint64
	Example     heap.ObjectID // the one that retains the most (then lowest ID)
}

// maxKept bounds NativeGroup.Keeps.
const maxKept = 3

// keptShare: going down from an object, the biggest child is followed
// while it retains at least this share of the object.
const keptShare = 0.5

// Kept says what objs keep where their memory is, by type, the most
// first (at most maxKept types): for each object, the object its memory
// sits in (see keptBy), when that is another. objs should not dominate
// one another (else what one keeps counts twice).
func Kept(t *DomTree, objs []heap.ObjectID) []KeptGroup {
	g := t.g
	byType := map[heap.TypeID]*KeptGroup{}
	for _, x := range objs {
		k := keptBy(t, x)
		if k == x {
			continue
		}
		kg := byType[g.Type(k)]
		if kg == nil {
			kg = &KeptGroup{Type: g.TypeName(g.Type(k)), Least: t.Retained(k), Example: k}
			byType[g.Type(k)] = kg
		}
		r := t.Retained(k)
		kg.Count++
		kg.Retained += r
		kg.Least, kg.Most = min(kg.Least, r), max(kg.Most, r)
		if cmpRetained(t.retained, uint32(k), uint32(kg.Example)) < 0 {
			kg.Example = k
		}
	}
	var out []KeptGroup
	for _, kg := range byType {
		out = append(out, *kg)
	}
	slices.SortFunc(out, func(a, b KeptGroup) int {
		return cmp.Or(cmp.Compare(b.Retained, a.Retained), cmp.Compare(b.Count, a.Count), cmp.Compare(a.Type, b.Type))
	})
	if len(out) > maxKept {
		out = out[:maxKept]
	}
	return out
}

// keptBy returns the object the memory of x sits in: going down the
// dominator tree from x to the biggest child while it retains at least
// keptShare of x (at most maxDescent steps), the last object reached;
// x itself when its first child retains less.
func keptBy(t *DomTree, x heap.ObjectID) heap.ObjectID {
	v := x
	want := uint64(keptShare * float64(t.Retained(x)))
	for range maxDescent {
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
		if t.Retained(c) < want || t.Retained(c) == 0 {
			break
		}
		v = c
	}
	return v
}

// NativeByType groups held by type name, sorted by retained size, then
// count (largest first), then type name.
func NativeByType(t *DomTree, held []NativeObject) []NativeGroup {
	g := t.g
	top, _ := TopMost(t, NativeRoots(held))
	isTop := newBitset(g.NumObjects())
	for _, x := range top {
		isTop.set(uint32(x))
	}
	idx := map[string]int{}
	var out []NativeGroup
	var tops [][]heap.ObjectID // per group, its members no other held object dominates
	for _, o := range held {
		name := g.TypeName(g.Type(o.Object))
		i, ok := idx[name]
		if !ok {
			i = len(out)
			idx[name] = i
			out = append(out, NativeGroup{Type: name, Sample: o.Object})
			tops = append(tops, nil)
		}
		grp := &out[i]
		grp.Count++
		grp.Excess += uint64(o.Excess())
		if isTop.has(uint32(o.Object)) {
			grp.Retained += t.Retained(o.Object)
			tops[i] = append(tops[i], o.Object)
		}
		if cmpRetained(t.retained, uint32(o.Object), uint32(grp.Sample)) < 0 {
			grp.Sample = o.Object
		}
	}
	for i := range out {
		out[i].Keeps = Kept(t, tops[i])
	}
	slices.SortFunc(out, func(a, b NativeGroup) int {
		if c := cmp.Compare(b.Retained, a.Retained); c != 0 {
			return c
		}
		if c := cmp.Compare(b.Count, a.Count); c != 0 {
			return c
		}
		return cmp.Compare(a.Type, b.Type)
	})
	return out
}
