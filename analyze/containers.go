package analyze

import (
	"cmp"
	"slices"
	"strconv"
	"strings"

	"github.com/heapscope/heapscope/heap"
)

// Container is one collection object and what it holds.
type Container struct {
	Object   heap.ObjectID
	Type     string
	Entries  int    // entries, counted as the container's rule says (see [Containers])
	Capacity int    // the slots of its table or array, when it has one (Java); else 0
	Retained uint64 // the container's retained size
}

// Fill returns Entries / Capacity, or 0 without a capacity.
func (c Container) Fill() float64 {
	if c.Capacity == 0 {
		return 0
	}
	return float64(c.Entries) / float64(c.Capacity)
}

// How a container's entries are counted from its edges. Only non-weak
// edges count, except for countWeakKeyed.
type entryRule uint8

const (
	// countIndex: index edges ([i]): list and tuple items, array slots.
	countIndex entryRule = iota
	// countKeyed: Python dicts. The agent names a value edge by its key
	// (['key']) and key edges "<key>"; entries are the larger of the
	// number of value edges (bracketed names or indices) and of key
	// edges, so dicts with non-str keys count too.
	countKeyed
	// countAll: every edge that is not Internal (Python sets).
	countAll
	// countChain: Java hash tables. The table array's slots lead to
	// bucket nodes chained by "next" fields; entries are the nodes
	// found following each slot's chain (HashMap's size field is not in
	// the graph).
	countChain
	// countPairs: the entries of a V8 ordered hash table (see
	// countEntries; V8 ordered hash tables store
	// keys and values in one array).
	countPairs
	// countItems: index edges and unnamed edges that are not Internal:
	// the items of a Python deque, which the agent leaves unnamed (a
	// subclass's __dict__ and slots are named).
	countItems
)

// containerKind says how to recognise a container type and count its
// entries: Via is a chain of edge names ("a|b": either) followed from
// the object to the store that holds the entries.
type containerKind struct {
	Type   string // exact type name, or a suffix when it starts with "*"
	Via    []string
	Rule   entryRule
	MinEnt int // objects of this type with fewer entries are not containers
}

// containerKinds, per g.Meta().Runtime. The edge names are those the
// readers write: the Python agent (docs/pysnap-format.md), HPROF field
// names, V8 edge names.
var containerKinds = map[string][]containerKind{
	"python": {
		{Type: "dict", Rule: countKeyed},
		{Type: "list", Rule: countIndex},
		{Type: "tuple", Rule: countIndex},
		{Type: "set", Rule: countAll},
		{Type: "frozenset", Rule: countAll},
		{Type: "collections.deque", Rule: countItems},
		{Type: "collections.OrderedDict", Rule: countKeyed},
		{Type: "collections.defaultdict", Rule: countKeyed},
		{Type: "collections.Counter", Rule: countKeyed},
		{Type: "functools._lru_cache_wrapper", Via: []string{"cache|.cache"}, Rule: countKeyed},
		{Type: "weakref.WeakKeyDictionary", Via: []string{".data|data"}, Rule: countKeyed},
		{Type: "weakref.WeakValueDictionary", Via: []string{".data|data"}, Rule: countKeyed},
		{Type: "weakref.WeakSet", Via: []string{".data|data"}, Rule: countAll},
	},
	// Containers reads Java collections by javaKinds (collections.go);
	// these name the stores that leak findings place objects in.
	"java": {
		{Type: "java.util.HashMap", Via: []string{"table"}, Rule: countChain},
		{Type: "java.util.LinkedHashMap", Via: []string{"table"}, Rule: countChain},
		{Type: "java.util.WeakHashMap", Via: []string{"table"}, Rule: countChain},
		{Type: "java.util.Hashtable", Via: []string{"table"}, Rule: countChain},
		{Type: "java.util.concurrent.ConcurrentHashMap", Via: []string{"table"}, Rule: countChain},
		{Type: "java.util.HashSet", Via: []string{"map", "table"}, Rule: countChain},
		{Type: "java.util.LinkedHashSet", Via: []string{"map", "table"}, Rule: countChain},
		{Type: "java.util.ArrayList", Via: []string{"elementData"}, Rule: countIndex},
		{Type: "java.util.Vector", Via: []string{"elementData"}, Rule: countIndex},
		{Type: "java.util.ArrayDeque", Via: []string{"elements"}, Rule: countIndex},
		{Type: "java.util.concurrent.CopyOnWriteArrayList", Via: []string{"array"}, Rule: countIndex},
		{Type: "*[]", Rule: countIndex}, // object arrays
	},
	"v8": {
		{Type: "Array", Rule: countIndex},
		{Type: "Map", Via: []string{"table"}, Rule: countPairs},
		{Type: "Set", Via: []string{"table"}, Rule: countIndex},
		{Type: "WeakMap", Via: []string{"table"}, Rule: countPairs},
		// An Object used as a dictionary: many named properties.
		{Type: "Object", Rule: countAll, MinEnt: 64},
	},
}

// Containers returns the collection objects of g (recognised by type
// name per runtime, g.Meta().Runtime: Python dict, list, tuple, set,
// frozenset, deque, OrderedDict, defaultdict, Counter, lru_cache
// wrappers, weak dictionaries; the JDK's collections and their
// subclasses, read as javaKinds says, and object arrays, not primitive
// ones; V8 arrays, Maps, Sets, and Objects with at least 64
// properties), with their entry counts (and, for Java, capacities) and
// retained sizes, sorted by retained size, then entries (largest first),
// then type name, then ID. Only reachable containers are listed, and not
// Python namespaces (the __dict__ of a module, class or instance); top >
// 0 keeps the first top.
//
// Entry counts come from the edges (a container's own size field is not
// in the graph): index edges for lists and arrays; for Python dicts the
// larger of the value edges (['key'] or [i]) and "<key>" edges; for Java
// collections their structure (collections.go), checked against size()
// of every collection of the JDK on a real JVM; half the table's index
// edges for V8 Maps, checked on hand-made graphs only. A Java
// container's capacity is the length of its table or array (half for
// keys and values side by side), from [heap.Graph.Length]. Containers
// reached through a field (ArrayList.elementData, lru_cache's cache
// dict) are listed once, as the outer object; the inner store may also
// be listed on its own when its type is a container type (a Python
// dict, a Java Object[]).
func Containers(t *DomTree, top int) []Container {
	g := t.g
	kinds, byType := containerTypes(g)
	if len(kinds) == 0 {
		return nil
	}
	names := newNameMatcher(g)
	// Namespaces (the __dict__ of a module, a class or an instance) hold
	// a program's names, not its data: they are not listed.
	namespace := newBitset(g.NumObjects())
	if g.Meta().Runtime == "python" {
		for _, e := range g.AllEdges() {
			if names.is(e.Label, "__dict__") {
				namespace.set(uint32(e.To))
			}
		}
	}
	var java []string
	if g.Meta().Runtime == "java" {
		java = javaKindsOf(g)
		for ty := range byType {
			if primitiveArray(g.TypeName(heap.TypeID(ty))) {
				byType[ty] = 0
			}
		}
	}
	var out []Container
	for v, ty := range g.Types() {
		id := heap.ObjectID(v)
		if java != nil && java[ty] != "" && t.Reachable(id) {
			c := Container{Object: id, Type: g.TypeName(ty), Retained: t.Retained(id)}
			c.Entries, c.Capacity = javaEntries(g, id, java[ty], names, java, 0)
			out = append(out, c)
			continue
		}
		if byType[ty] == 0 || !t.Reachable(id) || namespace.has(uint32(v)) {
			continue
		}
		k := kinds[byType[ty]-1]
		store, ok := follow(g, id, k.Via, names)
		if !ok {
			continue
		}
		c := Container{Object: id, Type: g.TypeName(ty), Retained: t.Retained(id),
			Entries: countEntries(g, store, k.Rule, names)}
		if n, ok := g.Length(store); ok && java != nil {
			c.Capacity = int(n)
		}
		if c.Entries < k.MinEnt {
			continue
		}
		out = append(out, c)
	}
	slices.SortFunc(out, func(a, b Container) int {
		if c := cmp.Compare(b.Retained, a.Retained); c != 0 {
			return c
		}
		if c := cmp.Compare(b.Entries, a.Entries); c != 0 {
			return c
		}
		if c := cmp.Compare(a.Type, b.Type); c != 0 {
			return c
		}
		return cmp.Compare(a.Object, b.Object)
	})
	if top > 0 && len(out) > top {
		out = slices.Clip(out[:top])
	}
	return out
}

// containerTypes returns the container kinds of g's runtime and, for
// every type of g, the index of its kind plus one (0: not a container).
func containerTypes(g *heap.Graph) ([]containerKind, []int) {
	kinds := containerKinds[g.Meta().Runtime]
	if len(kinds) == 0 {
		return nil, nil
	}
	byType := make([]int, g.NumTypes())
	for ty := range byType {
		name := g.TypeName(heap.TypeID(ty))
		for i, k := range kinds {
			if k.Type == name || (strings.HasPrefix(k.Type, "*") && strings.HasSuffix(name, k.Type[1:])) {
				byType[ty] = i + 1
				break
			}
		}
	}
	return kinds, byType
}

// nameMatcher compares edge names by StringID, caching each name's text
// test, so scans over many edges do not compare strings.
type nameMatcher struct {
	g     *heap.Graph
	cache map[string]map[heap.StringID]bool
}

func newNameMatcher(g *heap.Graph) *nameMatcher {
	return &nameMatcher{g: g, cache: map[string]map[heap.StringID]bool{}}
}

// is reports whether l is a named label whose name is one of the
// "|"-separated alternatives.
func (m *nameMatcher) is(l heap.Label, alts string) bool {
	if l.IsIndex() {
		return false
	}
	c := m.cache[alts]
	if c == nil {
		c = map[heap.StringID]bool{}
		m.cache[alts] = c
	}
	ok, seen := c[l.Name()]
	if !seen {
		name := m.g.String(l.Name())
		for _, a := range strings.Split(alts, "|") {
			ok = ok || a == name
		}
		c[l.Name()] = ok
	}
	return ok
}

// bracketed reports whether l is an index or a name in brackets.
func (m *nameMatcher) bracketed(l heap.Label) bool {
	if l.IsIndex() {
		return true
	}
	const key = "\x00bracketed"
	c := m.cache[key]
	if c == nil {
		c = map[heap.StringID]bool{}
		m.cache[key] = c
	}
	ok, seen := c[l.Name()]
	if !seen {
		ok = collapseEdge(m.g.String(l.Name())) == "[*]"
		c[l.Name()] = ok
	}
	return ok
}

// follow walks the non-weak edges named by via from id.
func follow(g *heap.Graph, id heap.ObjectID, via []string, m *nameMatcher) (heap.ObjectID, bool) {
next:
	for _, alts := range via {
		for _, e := range g.Edges(id) {
			if e.Label.Kind() != heap.Weak && m.is(e.Label, alts) {
				id = e.To
				continue next
			}
		}
		return id, false
	}
	return id, true
}

var nextField = []string{"next"}

// maxChain bounds the nodes counted in one bucket chain, against cycles.
const maxChain = 1 << 20

// slot returns the slot number of an edge to an element: an index label,
// or a name made of digits (V8 names the slots of hash tables "1020").
func slot(g *heap.Graph, l heap.Label) (uint64, bool) {
	if l.IsIndex() {
		return uint64(l.Index()), true
	}
	name := g.EdgeName(l)
	if name == "" || len(name) > 18 || strings.Trim(name, "0123456789") != "" {
		return 0, false
	}
	n, err := strconv.ParseUint(name, 10, 64)
	return n, err == nil
}

func countEntries(g *heap.Graph, id heap.ObjectID, rule entryRule, m *nameMatcher) int {
	n, keys, vals := 0, 0, 0
	var residues [3]int
	for _, e := range g.Edges(id) {
		k := e.Label.Kind()
		if k == heap.Weak {
			continue
		}
		switch rule {
		case countIndex:
			if _, ok := slot(g, e.Label); ok {
				n++
			}
		case countPairs:
			// A V8 ordered hash map stores an entry as three slots (key,
			// value, chain); keys that are small integers are no edge.
			// The values share one slot number modulo 3, the keys
			// another: count the larger class.
			if i, ok := slot(g, e.Label); ok {
				residues[i%3]++
			}
		case countKeyed:
			if m.bracketed(e.Label) || (!e.Label.IsIndex() && strings.HasPrefix(g.EdgeName(e.Label), ".")) {
				// ['key'], or .name in a namespace dict (a module's or
				// an instance's __dict__).
				vals++
			} else if m.is(e.Label, "<key>") {
				keys++
			}
		case countAll:
			if k != heap.Internal {
				n++
			}
		case countItems:
			if isItemLabel(e.Label) {
				n++
			}
		case countChain:
			if !e.Label.IsIndex() {
				continue
			}
			start := e.To
			if strings.HasSuffix(g.TypeName(g.Type(start)), "$TreeBin") {
				// ConcurrentHashMap: a bin turned into a tree holds its
				// nodes, still chained by "next", from "first".
				if first, ok := follow(g, start, []string{"first"}, m); ok {
					start = first
				}
			}
			for node, steps := start, 0; steps < maxChain; steps++ {
				n++
				nxt, ok := follow(g, node, nextField, m)
				if !ok || nxt == node {
					break
				}
				node = nxt
			}
		}
	}
	switch rule {
	case countKeyed:
		return max(keys, vals)
	case countPairs:
		return max(residues[0], residues[1], residues[2])
	}
	return n
}
