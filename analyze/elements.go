package analyze

import (
	"strings"

	"github.com/heapscope/heapscope/heap"
)

// preferElements returns the leaked objects to group as findings: top
// (the leaked objects no leaked object dominates), where each container
// is replaced by the leaked elements it holds, as far down as that goes.
// What grows in a leak is the elements; the container that holds them
// is often new too (a V8 Map's table or an array's backing store is
// reallocated as it grows), and it then dominates them all, so that the
// finding would name "(array) x 1" instead of "Session x 1,000".
//
// An object x is replaced by its leaked children in the dominator tree
// when
//   - at least two of them are its elements: x refers to them by index
//     or by a per-entry name (the edges [MergePaths] collapses to
//     "[*]"), and they are at least half of its leaked children; or
//   - it has one leaked child, held through an Internal edge, that
//     retains at least 90% of what x retains and holds elements itself
//     as above (a runtime object's backing store: a JavaScript array's
//     elements, a Map's table).
//
// Time: the leaked objects' edges and dominator-tree children, once.
func preferElements(t *DomTree, leaked []heap.ObjectID, top []heap.ObjectID) []heap.ObjectID {
	g := t.g
	isLeaked := newBitset(g.NumObjects())
	for _, x := range leaked {
		isLeaked.set(uint32(x))
	}
	var out []heap.ObjectID
	work := append([]heap.ObjectID(nil), top...)
	var kids []heap.ObjectID
	for len(work) > 0 {
		x := work[len(work)-1]
		work = work[:len(work)-1]
		kids = kids[:0]
		for _, c := range t.kids[t.kidStart[x]:t.kidStart[x+1]] {
			if isLeaked.has(c) {
				kids = append(kids, heap.ObjectID(c))
			}
		}
		if descend(t, x, kids, isLeaked) {
			work = append(work, kids...)
			continue
		}
		out = append(out, x)
	}
	return out
}

// descend reports whether preferElements replaces x by kids, its leaked
// children in the dominator tree.
func descend(t *DomTree, x heap.ObjectID, kids []heap.ObjectID, isLeaked bitset) bool {
	g := t.g
	switch {
	case len(kids) == 0:
		return false
	case len(kids) == 1:
		c := kids[0]
		if 10*t.retained[c] < 9*t.retained[x] {
			return false
		}
		internal := false
		for _, e := range g.Edges(x) {
			internal = internal || (e.To == c && e.Label.Kind() == heap.Internal)
		}
		if !internal {
			return false
		}
		// Only into a backing store, which holds elements itself.
		var grand []heap.ObjectID
		for _, k := range t.kids[t.kidStart[c]:t.kidStart[c+1]] {
			if isLeaked.has(k) {
				grand = append(grand, heap.ObjectID(k))
			}
		}
		return len(grand) >= 2 && holdsElements(g, c, grand, isLeaked)
	}
	return holdsElements(g, x, kids, isLeaked)
}

// holdsElements reports whether at least two of kids, and at least half
// of them, are elements of x: x refers to them by index or per-entry
// name.
func holdsElements(g *heap.Graph, x heap.ObjectID, kids []heap.ObjectID, isLeaked bitset) bool {
	// Count the kids x holds as elements, each once.
	seen := map[heap.ObjectID]bool{}
	for _, c := range kids {
		seen[c] = false
	}
	elems := 0
	for _, e := range g.Edges(x) {
		done, ok := seen[e.To]
		if !ok || done || !isLeaked.has(uint32(e.To)) {
			continue
		}
		if e.Label.IsIndex() || collapseEdge(g.String(e.Label.Name())) == "[*]" {
			seen[e.To] = true
			elems++
		}
	}
	return elems >= 2 && 2*elems >= len(kids)
}

// Where says where a group's objects sit, from its path signature, in
// the words of the program: the nearest holder on the path of a type
// the program knows (with the field that reaches it) and the next such
// object, which holds it: "in Map sessions of onRequest (closure)", "in
// dict .cache of module app", "in Array change of Object _events". Runtime objects between them (a Map's
// table, a closure's context, an array's backing store) are passed
// over. A root object is named by its root when the root names it (a
// Python module, "module app"), a Java class object by its class ("class
// app.Cache"), never by the kind of GC root that holds it ("sticky
// class"). It returns "" when the path has no such holder.
func Where(grp PathGroup) string {
	sig := grp.Signature
	skip := func(j int) bool {
		// Runtime objects, and namespace dicts (a module's or an
		// instance's __dict__), whose entries read as attributes.
		return runtimeType(sig[j].Type) || (sig[j].Edge == "__dict__" && strings.HasPrefix(sig[j].Type, "dict"))
	}
	name := func(j int) string {
		s := sig[j]
		switch {
		case s.Name != "":
			return s.Name // a Java class: "class app.Cache"
		case j == 0 && grp.RootName != "" && grp.RootName != NativeRootName && grp.RootKind.String() == s.Type:
			return grp.RootKind.String() + " " + grp.RootName // "module app"
		case s.Edge == "" || s.Edge == "[*]" || strings.HasSuffix(s.Type, " (closure)"):
			return s.Type
		}
		return s.Type + " " + s.Edge
	}
	holder := len(sig) - 2
	for holder >= 0 && skip(holder) {
		holder--
	}
	if holder < 0 {
		return ""
	}
	s := "in " + name(holder)
	for j := holder - 1; j >= 0; j-- {
		if !skip(j) {
			return s + " of " + name(j)
		}
	}
	return s
}

// runtimeType reports whether a type is the runtime's rather than the
// program's: its name is in parentheses ("(array)", "(system)", V8's
// synthetic roots) or starts "system / " (V8's contexts and maps).
func runtimeType(t string) bool {
	if strings.HasSuffix(t, " (closure)") {
		return false // "(anonymous) (closure)" is the program's
	}
	return strings.HasPrefix(t, "(") || strings.HasPrefix(t, "system / ")
}
