package analyze

import "github.com/heapscope/heapscope/heap"

// A Java collection's entries and capacity come from its structure, as
// the JDK lays it out (field names of JDK 6 to 21): the table array of a
// hash map and the chains of nodes from its slots, the backing array of
// a list or queue, the nodes of a linked list or tree. Only non-weak
// edges count: a WeakHashMap's entries are strong, their referents weak.
// A collection's own size field is not in the graph (HPROF primitive
// fields are not kept); an entry whose element is null (an ArrayList
// slot set to null) is not counted.

// javaShape says how a Java collection class stores its entries.
type javaShape uint8

const (
	// shapeChained: a hash table of nodes chained by "next" (HashMap,
	// Hashtable, ConcurrentHashMap, WeakHashMap); the capacity is the
	// table's length.
	shapeChained javaShape = iota + 1
	// shapeSlots: an array whose non-null slots are the entries
	// (ArrayList, Vector, ArrayDeque, PriorityQueue, ThreadLocalMap).
	shapeSlots
	// shapePairs: an array of keys and values side by side
	// (IdentityHashMap, ImmutableCollections$MapN); the capacity is
	// half its length.
	shapePairs
	// shapeLinked: nodes linked by "next" from a first node; with Item
	// set, only the nodes that hold an element count (queues whose first
	// node is a dummy).
	shapeLinked
	// shapeTree: the nodes of a binary tree by "left" and "right"
	// (TreeMap).
	shapeTree
	// shapeWrapper: a view of another collection (HashSet's map, the
	// Collections$Unmodifiable* wrappers): its entries and capacity.
	shapeWrapper
	// shapeSegments: ConcurrentHashMap of JDK 5 to 7, hash tables in
	// "segments".
	shapeSegments
	// shapeFields: entries held in fixed fields (List12, Set12), or
	// none (Collections$EmptyList).
	shapeFields
)

// javaKind is a collection class of the JDK and how it stores entries.
type javaKind struct {
	shape javaShape
	via   string // the field that leads to the store ("a|b": either); "" is the object
	item  string // shapeLinked: the field a counting node holds; shapeFields: the fields
	fixed int    // shapeFields: a fixed number of entries (singletons)
}

// javaKinds are the JDK's collection classes by Java name. A subclass
// (LinkedHashMap, a program's own map) is read by its nearest listed
// superclass.
var javaKinds = map[string]javaKind{
	"java.util.HashMap":                            {shape: shapeChained, via: "table"},
	"java.util.Hashtable":                          {shape: shapeChained, via: "table"},
	"java.util.WeakHashMap":                        {shape: shapeChained, via: "table"},
	"java.util.concurrent.ConcurrentHashMap":       {shape: shapeChained, via: "table"},
	"java.util.Properties":                         {shape: shapeWrapper, via: "map"}, // JDK 9+: a ConcurrentHashMap
	"java.util.IdentityHashMap":                    {shape: shapePairs, via: "table"},
	"java.util.TreeMap":                            {shape: shapeTree, via: "root"},
	"java.util.concurrent.ConcurrentSkipListMap":   {shape: shapeLinked, via: "head", item: "key"},
	"java.util.HashSet":                            {shape: shapeWrapper, via: "map"},
	"java.util.TreeSet":                            {shape: shapeWrapper, via: "m"},
	"java.util.concurrent.ConcurrentSkipListSet":   {shape: shapeWrapper, via: "m"},
	"java.util.concurrent.CopyOnWriteArraySet":     {shape: shapeWrapper, via: "al"},
	"java.util.ArrayList":                          {shape: shapeSlots, via: "elementData"},
	"java.util.Vector":                             {shape: shapeSlots, via: "elementData"},
	"java.util.ArrayDeque":                         {shape: shapeSlots, via: "elements"},
	"java.util.PriorityQueue":                      {shape: shapeSlots, via: "queue"},
	"java.util.LinkedList":                         {shape: shapeLinked, via: "first"},
	"java.util.concurrent.CopyOnWriteArrayList":    {shape: shapeSlots, via: "array"},
	"java.util.concurrent.ArrayBlockingQueue":      {shape: shapeSlots, via: "items"},
	"java.util.concurrent.PriorityBlockingQueue":   {shape: shapeSlots, via: "queue"},
	"java.util.concurrent.DelayQueue":              {shape: shapeWrapper, via: "q"},
	"java.util.concurrent.LinkedBlockingQueue":     {shape: shapeLinked, via: "head", item: "item"},
	"java.util.concurrent.LinkedBlockingDeque":     {shape: shapeLinked, via: "first", item: "item"},
	"java.util.concurrent.ConcurrentLinkedQueue":   {shape: shapeLinked, via: "head", item: "item"},
	"java.util.concurrent.ConcurrentLinkedDeque":   {shape: shapeLinked, via: "head", item: "item"},
	"java.util.concurrent.LinkedTransferQueue":     {shape: shapeLinked, via: "head", item: "item"},
	"java.lang.ThreadLocal$ThreadLocalMap":         {shape: shapeSlots, via: "table"},
	"java.util.Collections$UnmodifiableMap":        {shape: shapeWrapper, via: "m"},
	"java.util.Collections$SynchronizedMap":        {shape: shapeWrapper, via: "m"},
	"java.util.Collections$CheckedMap":             {shape: shapeWrapper, via: "m"},
	"java.util.Collections$UnmodifiableCollection": {shape: shapeWrapper, via: "c"},
	"java.util.Collections$SynchronizedCollection": {shape: shapeWrapper, via: "c"},
	"java.util.Collections$CheckedCollection":      {shape: shapeWrapper, via: "c"},
	"java.util.Collections$SetFromMap":             {shape: shapeWrapper, via: "m"},
	"java.util.Collections$SingletonList":          {shape: shapeFields, fixed: 1},
	"java.util.Collections$SingletonSet":           {shape: shapeFields, fixed: 1},
	"java.util.Collections$SingletonMap":           {shape: shapeFields, fixed: 1},
	"java.util.Collections$EmptyList":              {shape: shapeFields},
	"java.util.Collections$EmptySet":               {shape: shapeFields},
	"java.util.Collections$EmptyMap":               {shape: shapeFields},
	"java.util.ImmutableCollections$ListN":         {shape: shapeSlots, via: "elements"},
	"java.util.ImmutableCollections$SetN":          {shape: shapeSlots, via: "elements"},
	"java.util.ImmutableCollections$MapN":          {shape: shapePairs, via: "table"},
	"java.util.ImmutableCollections$List12":        {shape: shapeFields, item: "e0|e1"},
	"java.util.ImmutableCollections$Set12":         {shape: shapeFields, item: "e0|e1"},
	"java.util.ImmutableCollections$Map1":          {shape: shapeFields, fixed: 1},
}

// javaKindsOf returns, for every type of g, the JDK collection class it
// is or extends (the nearest one up its superclass chain, found through
// the class objects' "<super>" edges), or "".
func javaKindsOf(g *heap.Graph) []string {
	supers := superclasses(g)
	out := make([]string, g.NumTypes())
	for t := range out {
		out[t] = nearestSuper(supers, g.TypeName(heap.TypeID(t)), func(n string) bool {
			_, ok := javaKinds[n]
			return ok
		})
	}
	return out
}

// javaEntries returns the entries and the capacity (0: none, or not
// known) of the Java collection id of class kind.
func javaEntries(g *heap.Graph, id heap.ObjectID, kind string, m *nameMatcher, kinds []string, depth int) (entries, capacity int) {
	k := javaKinds[kind]
	store := id
	if k.via != "" {
		s, ok := follow(g, id, []string{k.via}, m)
		if !ok {
			if k.shape == shapeChained {
				// Before JDK 8, a ConcurrentHashMap keeps its tables in
				// segments.
				if segs, ok := follow(g, id, []string{"segments"}, m); ok {
					return segmentEntries(g, segs, m)
				}
			}
			return 0, 0 // a lazily made store not made yet: empty
		}
		store = s
	}
	length := func() int {
		n, _ := g.Length(store)
		return int(n)
	}
	switch k.shape {
	case shapeChained:
		return countEntries(g, store, countChain, m), length()
	case shapeSlots:
		return countEntries(g, store, countIndex, m), length()
	case shapePairs:
		return countEntries(g, store, countIndex, m) / 2, length() / 2
	case shapeLinked:
		return linkedEntries(g, store, k.item, m), 0
	case shapeTree:
		return treeEntries(g, store, m), 0
	case shapeWrapper:
		inner := kinds[g.Type(store)]
		if inner == "" || depth > 8 {
			return 0, 0
		}
		return javaEntries(g, store, inner, m, kinds, depth+1)
	case shapeFields:
		if k.item == "" {
			return k.fixed, 0
		}
		n := 0
		for _, e := range g.Edges(id) {
			if e.Label.Kind() != heap.Weak && m.is(e.Label, k.item) {
				n++
			}
		}
		return n, 0
	}
	return 0, 0
}

// segmentEntries counts the entries of a ConcurrentHashMap of JDK 5 to 7:
// the chains of each segment's table.
func segmentEntries(g *heap.Graph, segs heap.ObjectID, m *nameMatcher) (entries, capacity int) {
	for _, e := range g.Edges(segs) {
		if !e.Label.IsIndex() {
			continue
		}
		if table, ok := follow(g, e.To, []string{"table"}, m); ok {
			entries += countEntries(g, table, countChain, m)
			n, _ := g.Length(table)
			capacity += int(n)
		}
	}
	return entries, capacity
}

// linkedEntries counts the nodes linked by "next" from first (for a
// skip list, from the base level's header node), each node once; with
// item, only the nodes that have a non-weak edge of that name.
func linkedEntries(g *heap.Graph, first heap.ObjectID, item string, m *nameMatcher) int {
	if node, ok := follow(g, first, []string{"node"}, m); ok && g.TypeName(g.Type(first)) != g.TypeName(g.Type(node)) {
		first = node // ConcurrentSkipListMap: head is an index over the nodes
	}
	seen := map[heap.ObjectID]bool{}
	n := 0
	for node := first; !seen[node] && len(seen) < maxChain; {
		seen[node] = true
		if item == "" {
			n++
		} else if _, ok := follow(g, node, []string{item}, m); ok {
			n++
		}
		next, ok := follow(g, node, nextField, m)
		if !ok {
			break
		}
		node = next
	}
	return n
}

// treeEntries counts the nodes of the binary tree at root.
func treeEntries(g *heap.Graph, root heap.ObjectID, m *nameMatcher) int {
	seen := map[heap.ObjectID]bool{root: true}
	stack := []heap.ObjectID{root}
	for len(stack) > 0 && len(seen) < maxChain {
		node := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		for _, e := range g.Edges(node) {
			if e.Label.Kind() != heap.Weak && m.is(e.Label, "left|right") && !seen[e.To] {
				seen[e.To] = true
				stack = append(stack, e.To)
			}
		}
	}
	return len(seen)
}

// primitiveArray reports whether a Java type name is an array of a
// primitive type, which holds no references and is no container.
func primitiveArray(name string) bool {
	switch name {
	case "boolean[]", "byte[]", "char[]", "short[]", "int[]", "long[]", "float[]", "double[]":
		return true
	}
	return false
}
