package analyze

import (
	"slices"
	"strings"

	"github.com/heapscope/heapscope/heap"
)

// A placed name is how leaks, top and why name where a program keeps
// objects, an object by where it is rather than by its identity:
//
//   - "dict at module app.contexts", "global at (root)[2]": an object at
//     a place, the object that holds it (by its own name, its type, or
//     the root's description) and the field or index it is held by;
//   - "300 RequestContext in Map at system / Context.contexts", "900
//     app.Session in java.util.HashMap at class app.Cache.SESSIONS": the
//     objects a holder keeps (a leak finding, a suspect), with how many;
//   - "1 list at module app.log": the objects at a place, with how many;
//   - "1,350 java.lang.String -> 1,345 byte[], 24 B to 144 B each, held
//     by no single object", "60 memoryview, held outside the heap": a
//     group of objects of a type (and what they keep) that top names a
//     suspect.
//
// selectPlaced returns the objects name stands for: for "WHAT in
// HOLDER", the objects WHAT names whose shortest path from the roots
// (see [ShortestPaths]) goes through the holder, as the paths leaks and
// top print do; for "WHAT at PLACE", the objects at the place that WHAT
// names, else those WHAT names that it holds; for a group, the objects
// of its type. WHAT is a list of kinds as leaks prints them ("2,010
// Node, 1,860 Position and 300 more of 3 other types", "300 classes
// (app.u_*, app.m_*)"): the kinds it names are selected, the "more" it
// only counts are not. The counts are the finding's (its new objects)
// and may be fewer than those selected. nil when name is not a placed
// name or names nothing.
func selectPlaced(g *heap.Graph, name string) []heap.ObjectID {
	name = strings.TrimSuffix(name, " (holds detached DOM)")
	if i := strings.LastIndex(name, " ("); i > 0 && strings.HasSuffix(name, " of them)") {
		name = name[:i] // a holder of many referrers: "dict at module app.x (3 of them)"
	}
	for _, group := range []string{", held by no single object", ", held outside the heap"} {
		if what, ok := strings.CutSuffix(name, group); ok {
			// A suspect that is a group of objects of one type, with
			// what they keep: "1,350 java.lang.String -> 1,345 byte[],
			// 24 B to 144 B each, held by no single object".
			what, _, _ = strings.Cut(what, " -> ")
			return selectKinds(g, what)
		}
	}
	left, place, hasAt := cutLast(name, " at ")
	what, holder, hasIn := cutLast(left, " in ")
	if !hasAt {
		what, holder, hasIn = cutLast(name, " in ")
	}
	var holders []heap.ObjectID
	switch {
	case hasAt && hasIn:
		holders = labeled(g, objectsAt(g, place), holder)
	case hasAt:
		at := objectsAt(g, place)
		if out := labeled(g, at, trimCount(left)); len(out) > 0 {
			return out
		}
		if len(at) == 0 {
			return nil
		}
		holders, what = at, left
	case hasIn:
		holders = rootOrNamed(g, holder)
	default:
		// A field that holds ("module app.log", "class
		// app.Cache.SESSIONS"), or a root object ("Map (vm root)").
		if out := objectsAt(g, name); out != nil {
			return out
		}
		if i := strings.LastIndex(name, " ("); i > 0 && strings.HasSuffix(name, ")") {
			return labeled(g, rootObjects(g), name[:i])
		}
		return nil
	}
	if len(holders) == 0 {
		return nil
	}
	kinds := selectKinds(g, what)
	if len(kinds) == 0 {
		return nil
	}
	return heldThrough(g, kinds, holders)
}

// selectKinds returns the objects of the kinds what names (see
// [whatKinds]), in ID order.
func selectKinds(g *heap.Graph, what string) []heap.ObjectID {
	var out []heap.ObjectID
	for _, k := range whatKinds(what) {
		if k.Loose {
			out = append(out, selectName(g, k.Type)...)
		} else {
			out = append(out, Select(g, k)...)
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// rootOrNamed returns the objects a holder's name picks: a root object
// named by its type and its root ("Map (vm root)"), else any object of
// that name.
func rootOrNamed(g *heap.Graph, holder string) []heap.ObjectID {
	if i := strings.LastIndex(holder, " ("); i > 0 && strings.HasSuffix(holder, ")") {
		if out := labeled(g, rootObjects(g), holder[:i]); out != nil {
			return out
		}
	}
	return selectName(g, holder)
}

// rootObjects returns the objects the roots hold, in ID order, once each.
func rootObjects(g *heap.Graph) []heap.ObjectID {
	var out []heap.ObjectID
	for _, r := range g.Roots() {
		out = append(out, r.Object)
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// placedWhat is the name of the first kind of objects a placed name
// says, for the names nearest to it when it selects nothing ("300
// Session in Map at app.x" is Session); name itself when it is not one.
func placedWhat(name string) string {
	left, _, hasAt := cutLast(name, " at ")
	what, _, hasIn := cutLast(left, " in ")
	if !hasAt && !hasIn {
		return name
	}
	for _, k := range whatKinds(what) {
		if k.Loose {
			return k.Type
		}
		return k.Class
	}
	return name
}

// cutLast is strings.Cut at the last sep.
func cutLast(s, sep string) (before, after string, found bool) {
	i := strings.LastIndex(s, sep)
	if i <= 0 {
		return s, "", false
	}
	return s[:i], s[i+len(sep):], true
}

// trimCount drops a count ("300 ", "2,010 ") before a name.
func trimCount(s string) string {
	i := strings.IndexByte(s, ' ')
	if i <= 0 || strings.Trim(s[:i], "0123456789,") != "" {
		return s
	}
	return s[i+1:]
}

// selectName returns the objects a bare name picks: those of that type,
// else what [Selector].Loose takes the name for, but no placed name.
func selectName(g *heap.Graph, name string) []heap.ObjectID {
	if out := Select(g, Selector{Type: name}); out != nil {
		return out
	}
	return selectLooseName(g, name)
}

// labeled returns the objects of ids that go by label (see
// [labelMatches]).
func labeled(g *heap.Graph, ids []heap.ObjectID, label string) []heap.ObjectID {
	var out []heap.ObjectID
	for _, id := range ids {
		if labelMatches(g, id, label) {
			out = append(out, id)
		}
	}
	return out
}

// whatKinds splits what a placed name says its objects are into the
// selectors of its kinds: "300 RequestContext" is RequestContext;
// "2,010 Node, 1,860 Position and 300 more of 3 other types" is Node and
// Position; "300 classes (app.u_*, app.m_*)" is the classes app.u_* and
// app.m_*; "300 instances of classes app.u_*, app.m_*" the types app.u_*
// and app.m_*. A name is Loose (see [selectName]).
func whatKinds(what string) []Selector {
	var out []Selector
	for _, p := range splitTop(what) {
		p = trimCount(p)
		switch {
		case strings.HasPrefix(p, "more of "), strings.HasPrefix(p, "more ") && strings.HasSuffix(p, " families"):
		case strings.HasPrefix(p, "classes (") && strings.HasSuffix(p, ")"):
			for _, fam := range strings.Split(p[len("classes ("):len(p)-1], ", ") {
				if fam = trimMore(fam); fam != "" {
					out = append(out, Selector{Class: fam})
				}
			}
		default:
			out = append(out, Selector{Type: strings.TrimPrefix(p, "instances of classes "), Loose: true})
		}
	}
	return out
}

// trimMore drops " and N more families" after the last family a list
// names.
func trimMore(s string) string {
	if before, _, ok := strings.Cut(s, " and "); ok {
		return before
	}
	return s
}

// splitTop splits a list "A, B and C" at its commas and its last " and
// ", but not inside parentheses ("classes (a, b)").
func splitTop(s string) []string {
	var out []string
	depth, start := 0, 0
	for i := 0; i < len(s); i++ {
		switch {
		case s[i] == '(':
			depth++
		case s[i] == ')':
			depth--
		case depth == 0 && strings.HasPrefix(s[i:], ", "):
			out = append(out, s[start:i])
			start = i + 2
			i++
		case depth == 0 && strings.HasPrefix(s[i:], " and ") && start < i:
			out = append(out, s[start:i])
			start = i + len(" and ")
			i += len(" and ") - 1
		}
	}
	return append(out, s[start:])
}

// objectsAt returns the objects at a place as leaks prints it: an
// anchor (an object's own name, a type, a class, a root's description)
// and the fields and indices from it (".contexts", "[2]", "[*]" for any,
// ".PAGES[3]"). A Python object's attribute is also found through its
// __dict__. It tries the longest anchor first that picks objects.
func objectsAt(g *heap.Graph, place string) []heap.ObjectID {
	for p := len(place) - 1; p > 0; p-- {
		if place[p] != '.' && place[p] != '[' {
			continue
		}
		steps, ok := accessors(place[p:])
		if !ok {
			continue
		}
		anchors := anchorObjects(g, place[:p])
		if len(anchors) == 0 {
			continue
		}
		for _, st := range steps {
			anchors = followStep(g, anchors, st)
		}
		if len(anchors) > 0 {
			return anchors
		}
	}
	return nil
}

// accessors splits ".a[3].b" into ".a", "[3]", ".b".
func accessors(s string) ([]string, bool) {
	var out []string
	for s != "" {
		switch s[0] {
		case '[':
			i := strings.IndexByte(s, ']')
			if i < 0 {
				return nil, false
			}
			out = append(out, s[:i+1])
			s = s[i+1:]
		case '.':
			i := strings.IndexAny(s[1:], ".[")
			if i < 0 {
				i = len(s) - 1
			}
			if i == 0 {
				return nil, false
			}
			out = append(out, s[:i+1])
			s = s[i+1:]
		default:
			return nil, false
		}
	}
	return out, len(out) > 0
}

// anchorObjects returns the objects a place's anchor names: by name,
// type or class, or the root objects whose root it describes ("module
// app" for a module root named app).
func anchorObjects(g *heap.Graph, anchor string) []heap.ObjectID {
	if out := selectName(g, anchor); out != nil {
		return out
	}
	var out []heap.ObjectID
	for _, r := range g.Roots() {
		name := g.String(r.Name)
		if name == anchor || name != "" && r.Kind.String()+" "+name == anchor {
			out = append(out, r.Object)
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// followStep returns the objects that the edges of ids named by accessor
// step lead to (".name", "[index]", "[*]" for any edge), in ID order.
func followStep(g *heap.Graph, ids []heap.ObjectID, step string) []heap.ObjectID {
	var out []heap.ObjectID
	var walk func(v heap.ObjectID, namespace bool)
	walk = func(v heap.ObjectID, namespace bool) {
		for _, e := range g.Edges(v) {
			name := g.EdgeName(e.Label)
			if edgeIs(name, step) {
				out = append(out, e.To)
			} else if namespace && name == "__dict__" && strings.HasPrefix(step, ".") {
				walk(e.To, false)
			}
		}
	}
	for _, v := range ids {
		walk(v, true)
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// edgeIs reports whether an edge named name is what accessor step names:
// ".x" a field or attribute x (named "x" or ".x"), "[x]" an index or key
// (named "[x]" or "x"), "[*]" any.
func edgeIs(name, step string) bool {
	switch {
	case step == "[*]":
		return true
	case strings.HasPrefix(step, "."):
		return name == step || name == step[1:]
	}
	return name == step || name == step[1:len(step)-1]
}

// heldThrough returns the objects of ids (in ID order) that holders
// keep: those whose shortest path from the roots goes through one of
// holders and, after it, through none of ids (the outermost, as leaks
// counts a holder's elements: a Map's values, not what they hold).
func heldThrough(g *heap.Graph, ids, holders []heap.ObjectID) []heap.ObjectID {
	r := ShortestPaths(g, PathOptions{})
	const (
		unknown = iota
		through // a holder is met before any of ids going up from here
		not
	)
	state := make([]uint8, g.NumObjects())
	for _, h := range holders {
		state[h] = through
	}
	isKind := newBitset(g.NumObjects())
	for _, id := range ids {
		isKind.set(uint32(id))
	}
	var chain []heap.ObjectID
	var out []heap.ObjectID
	for _, id := range ids {
		if state[id] == through {
			continue // a holder itself
		}
		p, _ := r.Parent(id)
		if p == SuperRoot || p == Unreachable {
			continue
		}
		chain = chain[:0]
		v, result := p, uint8(not)
		for {
			if s := state[v]; s != unknown {
				result = s
				break
			}
			chain = append(chain, v)
			if isKind.has(uint32(v)) {
				break // another of ids is met first
			}
			q, _ := r.Parent(v)
			if q == SuperRoot || q == Unreachable {
				break
			}
			v = q
		}
		for _, c := range chain {
			state[c] = result
		}
		if result == through {
			out = append(out, id)
		}
	}
	return out
}
