package pysnap

import "github.com/heapscope/heapscope/heap"

// What the reader names, by the attributes the agent writes as edges:
//
//	class app.models.User     a class (an object with a __mro__): its
//	                          __qualname__ (or __name__), after the
//	                          __module__ its namespace holds unless that
//	                          is builtins
//	function app.views.index  a function: its __qualname__ after its
//	                          __module__
//	module app.views          a module: the __name__ its namespace holds
//	function app.load (lru_cache)
//	                          a functools.lru_cache wrapper: the
//	                          __qualname__ and __module__ its __dict__
//	                          holds (update_wrapper copies them from the
//	                          function it wraps); its references have no
//	                          names on some Pythons, so the dict is the
//	                          one that holds them
//
// These names are strings of the program's, so a snapshot written with
// values=False has none, and each is cut where the snapshot cut its
// values. Classes defined in C have no such strings and stay unnamed.

// Kinds of the edge names naming looks at.
const (
	nkOther = iota
	nkQualname
	nkName
	nkModule
	nkDict
	nkMRO
	nkAttrModule // ".__module__": a namespace's entry
	nkAttrName   // ".__name__"
	nkAttrQual   // ".__qualname__"
)

var nameKinds = map[string]uint8{
	"__qualname__": nkQualname, "__name__": nkName, "__module__": nkModule, "__dict__": nkDict,
	"__mro__": nkMRO, ".__module__": nkAttrModule, ".__name__": nkAttrName, ".__qualname__": nkAttrQual,
	// A wrapper's __dict__ that the agent did not know for a namespace.
	"['__qualname__']": nkAttrQual, "['__module__']": nkAttrModule,
}

// lruWrapper is the type whose objects are named by the targets of
// their edges, whatever the edges' names: a reader that leaves edges out
// (Options.SkipEdges) keeps every edge of its objects.
const lruWrapper = "functools._lru_cache_wrapper"

// namer names Python classes, functions and modules (see above).
type namer struct {
	kinds []uint8 // by StringID
}

func newNamer() *namer { return &namer{} }

// name is a heap.Builder namer.
func (n *namer) name(g *heap.Graph, id heap.ObjectID) (string, bool) {
	if n.kinds == nil {
		n.kinds = make([]uint8, g.NumStrings())
		for i := range n.kinds {
			n.kinds[i] = nameKinds[g.String(heap.StringID(i))]
		}
	}
	typ := g.TypeName(g.Type(id))
	var qual, name, mod string
	dict := heap.None
	class := false
	for _, e := range g.Edges(id) {
		switch n.kind(e.Label) {
		case nkQualname:
			qual, _ = g.Value(e.To)
		case nkName:
			name, _ = g.Value(e.To)
		case nkModule:
			mod, _ = g.Value(e.To)
		case nkDict:
			dict = e.To
		case nkMRO:
			class = true
		}
	}
	switch {
	case typ == "module":
		if s := n.attr(g, dict, nkAttrName); s != "" {
			return "module " + s, true
		}
	case typ == "function":
		if qual != "" {
			return "function " + qualified(mod, qual), true
		}
	case typ == lruWrapper:
		for _, e := range g.Edges(id) {
			if e.Label.Kind() == heap.Weak || g.TypeName(g.Type(e.To)) != "dict" {
				continue
			}
			if q := n.attr(g, e.To, nkAttrQual); q != "" {
				return "function " + qualified(n.attr(g, e.To, nkAttrModule), q) + " (lru_cache)", true
			}
		}
	case class:
		if qual == "" {
			qual = name
		}
		if qual != "" {
			return "class " + qualified(n.attr(g, dict, nkAttrModule), qual), true
		}
	}
	return "", false
}

// kind is the kind of an edge's name.
func (n *namer) kind(l heap.Label) uint8 {
	if l.IsIndex() || int(l.Name()) >= len(n.kinds) {
		return nkOther
	}
	return n.kinds[l.Name()]
}

// attr returns the value of the entry of kind k of namespace ns, or "".
func (n *namer) attr(g *heap.Graph, ns heap.ObjectID, k uint8) string {
	if ns == heap.None {
		return ""
	}
	for _, e := range g.Edges(ns) {
		if n.kind(e.Label) == k {
			v, _ := g.Value(e.To)
			return v
		}
	}
	return ""
}

// qualified returns "mod.qual", or qual for builtins or no module.
func qualified(mod, qual string) string {
	if mod == "" || mod == "builtins" {
		return qual
	}
	return mod + "." + qual
}
