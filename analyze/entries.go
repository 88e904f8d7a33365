package analyze

import (
	"github.com/heapscope/heapscope/heap"
)

// entryKinds lists, per runtime (g.Meta().Runtime), the types whose
// objects are a container's entries rather than its elements: the nodes
// of hash tables, linked lists and trees, each holding one element (and
// a key) that the program put in. Value and Key are the fields that hold
// them ("a|b": either), as the readers name fields. Python dicts and
// lists and V8 Maps and arrays hold their elements directly, without
// entry objects.
var entryKinds = map[string]map[string]entryKind{
	"java": {
		"java.util.HashMap$Node":                          {"value", "key"},
		"java.util.HashMap$TreeNode":                      {"value", "key"},
		"java.util.LinkedHashMap$Entry":                   {"value", "key"},
		"java.util.Hashtable$Entry":                       {"value", "key"},
		"java.util.WeakHashMap$Entry":                     {"value", "referent"},
		"java.util.TreeMap$Entry":                         {"value", "key"},
		"java.util.LinkedList$Node":                       {"item", ""},
		"java.util.concurrent.ConcurrentHashMap$Node":     {"val", "key"},
		"java.util.concurrent.ConcurrentHashMap$TreeNode": {"val", "key"},
		"java.util.concurrent.ConcurrentSkipListMap$Node": {"val", "key"},
		"java.util.concurrent.ConcurrentLinkedQueue$Node": {"item", ""},
		"java.util.concurrent.ConcurrentLinkedDeque$Node": {"item", ""},
		"java.util.concurrent.LinkedBlockingQueue$Node":   {"item", ""},
		"java.util.concurrent.LinkedBlockingDeque$Node":   {"item", ""},
		"java.util.concurrent.LinkedTransferQueue$Node":   {"item", ""},
		"java.lang.ThreadLocal$ThreadLocalMap$Entry":      {"value", "referent"},
	},
}

// entryTypes returns, by type of g, whether it is an entry type (see
// entryKinds); nil when g's runtime has none.
func entryTypes(g *heap.Graph) []bool {
	ek := entryKinds[g.Meta().Runtime]
	if len(ek) == 0 {
		return nil
	}
	out := make([]bool, g.NumTypes())
	for ty := range out {
		_, out[ty] = ek[g.TypeName(heap.TypeID(ty))]
	}
	return out
}

// entryKind names the fields of an entry type.
type entryKind struct {
	Value, Key string
}

// containerIndex recognises, in one graph, containers (see [Containers]) and
// their entries (see entryKinds), to name where objects accumulate in
// the terms a program's author uses: the HashMap rather than its table
// array, the element rather than the HashMap$Node around it.
type containerIndex struct {
	g        *heap.Graph
	kinds    []containerKind
	kindOf   []int // by type: index into kinds + 1, 0 when not a container
	entryOf  []*entryKind
	anyEntry bool
	names    *nameMatcher
}

func newContainerIndex(g *heap.Graph) *containerIndex {
	h := &containerIndex{g: g, names: newNameMatcher(g)}
	h.kinds, h.kindOf = containerTypes(g)
	if ek := entryKinds[g.Meta().Runtime]; len(ek) > 0 {
		h.entryOf = make([]*entryKind, g.NumTypes())
		for ty := range h.entryOf {
			if k, ok := ek[g.TypeName(heap.TypeID(ty))]; ok {
				h.entryOf[ty] = &k
				h.anyEntry = true
			}
		}
	}
	return h
}

// isEntry reports whether x is a container's entry object.
func (h *containerIndex) isEntry(x heap.ObjectID) bool {
	return h.anyEntry && h.entryOf[h.g.Type(x)] != nil
}

// element returns what entry x holds: its value, or its key when the
// value is not x's alone (a HashSet's entries share one value), as
// owns says; None when x owns neither.
func (h *containerIndex) element(x heap.ObjectID, owns func(entry, v heap.ObjectID) bool) heap.ObjectID {
	k := h.entryOf[h.g.Type(x)]
	for _, field := range []string{k.Value, k.Key} {
		if field == "" {
			continue
		}
		for _, e := range h.g.Edges(x) {
			if e.Label.Kind() != heap.Weak && h.names.is(e.Label, field) && owns(x, e.To) {
				return e.To
			}
		}
	}
	return heap.None
}

// containerAround returns the container that keeps its entries in store:
// the first of candidates (outermost first) whose kind's fields lead to
// store, or store itself when it is a container. ok is false when there
// is none.
func (h *containerIndex) containerAround(store heap.ObjectID, candidates []heap.ObjectID) (heap.ObjectID, bool) {
	if h.kindOf == nil {
		return heap.None, false
	}
	for _, c := range candidates {
		i := h.kindOf[h.g.Type(c)]
		if i == 0 || len(h.kinds[i-1].Via) == 0 {
			continue
		}
		if s, ok := follow(h.g, c, h.kinds[i-1].Via, h.names); ok && s == store {
			return c, true
		}
		if s, ok := lruCacheDict(h.g, c); ok && s == store {
			return c, true
		}
	}
	if h.kindOf[h.g.Type(store)] != 0 {
		return store, true
	}
	return heap.None, false
}

// Holding names what a path's target is in its container, for a leak
// finding: Holder is the index in steps of the container that holds the
// target (the HashMap, for an entry of its table; -1 when the path shows
// none), and Element the object the target stands for (the value of a
// HashMap$Node; the target itself when it is no entry).
func (h *containerIndex) holding(steps []Step, owns func(entry, v heap.ObjectID) bool) (holder int, element heap.ObjectID) {
	n := len(steps)
	if n == 0 {
		return -1, heap.None
	}
	target := steps[n-1].Object
	element = target
	if h.isEntry(target) {
		if el := h.element(target, owns); el != heap.None {
			element = el
		}
	}
	// Above the target: chained entries (a bucket's next nodes), then
	// the store, then the container whose fields lead to it.
	i := n - 2
	for i >= 0 && h.isEntry(steps[i].Object) {
		i--
	}
	// A namespace (a module's or an instance's __dict__) holds names,
	// not a collection.
	if i < 0 || steps[i].Edge == "__dict__" {
		return -1, element
	}
	var cands []heap.ObjectID
	for k := max(0, i-3); k < i; k++ {
		cands = append(cands, steps[k].Object)
	}
	c, ok := h.containerAround(steps[i].Object, cands)
	if !ok {
		return -1, element
	}
	for k := i; k >= 0; k-- {
		if steps[k].Object == c {
			return k, element
		}
	}
	return -1, element
}

// isStore reports whether l, an edge of x, leads to the store that holds
// x's entries when x is a container (a HashMap's "table", a V8 Map's
// "table").
func (h *containerIndex) isStore(x heap.ObjectID, l heap.Label) bool {
	if h.kindOf == nil {
		return false
	}
	i := h.kindOf[h.g.Type(x)]
	return i != 0 && len(h.kinds[i-1].Via) > 0 && h.names.is(l, h.kinds[i-1].Via[0])
}
