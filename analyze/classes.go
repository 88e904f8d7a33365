package analyze

import (
	"maps"
	"slices"
	"strings"

	"github.com/heapscope/heapscope/heap"
)

// A class is an object like any other: a Python class is an object of
// type `type` (or of a metaclass), a Java class one of java.lang.Class.
// Libraries that make a class per call (a symbolic library's functions,
// an ORM's models, a test's mocks) can leak classes by the thousand, and
// a report that counts them as "type x 394" says neither which classes
// they are nor which factory made them. This file names class objects
// and groups the classes of one factory: classes whose names differ only
// in numbers ("app.Model_17", "app.Model_18") or not at all (a class
// statement run again and again in a function,
// "app.make.<locals>.Handler") are one family.

// classTypes reports, for each type of g, whether its objects are
// classes: Python's `type` and the metaclasses (types whose objects have
// an MRO), Java's java.lang.Class.
func classTypes(g *heap.Graph) []bool {
	out := make([]bool, g.NumTypes())
	rt := g.Meta().Runtime
	if rt == "v8" {
		return out
	}
	for t := range out {
		name := g.TypeName(heap.TypeID(t))
		out[t] = name == "type" || (rt == "java" && name == "java.lang.Class")
	}
	if rt == "java" {
		return out
	}
	// A metaclass is known by its objects' __mro__ edges. Its first
	// objects may be static types, which have no edges: look at a few.
	looked := make([]uint8, g.NumTypes())
	for id, t := range g.Types() {
		if out[t] || looked[t] >= 4 {
			continue
		}
		looked[t]++
		for _, e := range g.Edges(heap.ObjectID(id)) {
			if !e.Label.IsIndex() && e.Label.Kind() == heap.Internal && g.String(e.Label.Name()) == "__mro__" {
				out[t] = true
				break
			}
		}
	}
	return out
}

// ClassName returns the name of class object id, when the snapshot
// records it: a Java class's name as the graph names the object
// ("app.Cache" for "class app.Cache"); a Python class's name qualified by
// its module as the Python agent qualifies type names
// ("app.models.User", "app.make.<locals>.Handler"; no module for
// builtins or a class whose __module__ is not a string). A Python
// class's __qualname__ (or __name__) and the __module__ of its namespace
// are strings whose values a snapshot has unless it was taken with
// values=False; classes defined in C have neither. The name is cut where
// the snapshot cut those values (64 characters by default).
func ClassName(g *heap.Graph, id heap.ObjectID) (string, bool) {
	if n, ok := g.Name(id); ok {
		// A Java class, as the HPROF reader names it: "class app.Cache".
		return strings.TrimPrefix(n, "class "), true
	}
	var qual, name, mod string
	for _, e := range g.Edges(id) {
		if e.Label.IsIndex() {
			continue
		}
		switch g.String(e.Label.Name()) {
		case "__qualname__":
			qual, _ = g.Value(e.To)
		case "__name__":
			name, _ = g.Value(e.To)
		case "__dict__":
			mod = attrValue(g, e.To, ".__module__")
		}
	}
	if qual == "" {
		qual = name
	}
	if qual == "" {
		return "", false
	}
	if mod == "" || mod == "builtins" {
		return qual, true
	}
	return mod + "." + qual, true
}

// attrValue returns the value of the object that ns holds under the edge
// named name, or "".
func attrValue(g *heap.Graph, ns heap.ObjectID, name string) string {
	for _, e := range g.Edges(ns) {
		if !e.Label.IsIndex() && g.String(e.Label.Name()) == name {
			v, _ := g.Value(e.To)
			return v
		}
	}
	return ""
}

// FoldName returns a class name with what tells one class of a factory
// from the next replaced by "*": runs of digits ("Model_17" ->
// "Model_*"), hexadecimal ids ("Lambda$14/0x0800c0b238" ->
// "Lambda$*/*"), and runs of eight or more hexadecimal characters with a
// digit among them ("Model_3fa2b1c9" -> "Model_*"). Several stars in a
// row become one.
func FoldName(name string) string {
	var b strings.Builder
	b.Grow(len(name))
	star := func() {
		s := b.String()
		if !strings.HasSuffix(s, "*") {
			b.WriteByte('*')
		}
	}
	for i := 0; i < len(name); {
		c := name[i]
		if !isHex(c) {
			b.WriteByte(c)
			i++
			continue
		}
		j, digits := i, 0
		for j < len(name) && isHex(name[j]) {
			if name[j] <= '9' {
				digits++
			}
			j++
		}
		run := name[i:j]
		switch {
		case digits == 0:
			b.WriteString(run)
		case len(run) >= 8, strings.HasPrefix(run, "0x") && len(run) > 2:
			star()
		default:
			for k := 0; k < len(run); k++ {
				if run[k] <= '9' {
					star()
				} else {
					b.WriteByte(run[k])
				}
			}
		}
		i = j
	}
	return b.String()
}

func isHex(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F' || c == 'x'
}

// classIndex names the class objects of one graph and puts each in its
// family: its type (the metaclass) and its folded name.
type classIndex struct {
	g      *heap.Graph
	family map[heap.ObjectID]string // family key of each named class object
	first  map[string]string        // family key -> the first name met
	varied map[string]bool          // family key -> its classes have several names
	// fold maps the name of each class of a family of at least
	// minFoldNames names to the family's pattern: the instances of
	// those classes (a type per class) are summed as one.
	fold map[string]string
}

// minFoldNames is how many names the classes of a family must have for
// their instances to be summed as one: a factory's classes (sympy's
// f_0 ... f_599, Java's proxy classes), not a few numbered classes a
// program defines (Point2D, Point3D).
const minFoldNames = 8

func newClassIndex(g *heap.Graph) *classIndex {
	c := &classIndex{g: g, family: map[heap.ObjectID]string{}, first: map[string]string{}, varied: map[string]bool{}, fold: map[string]string{}}
	isClass := classTypes(g)
	some := false
	for _, b := range isClass {
		some = some || b
	}
	if !some {
		return c
	}
	names := map[string]map[string]bool{} // family key -> its names, when several
	for id, t := range g.Types() {
		if !isClass[t] {
			continue
		}
		name, ok := ClassName(g, heap.ObjectID(id))
		if !ok {
			continue
		}
		k := g.TypeName(t) + "\x00" + FoldName(name)
		c.family[heap.ObjectID(id)] = k
		if f, ok := c.first[k]; !ok {
			c.first[k] = name
		} else if f != name {
			c.varied[k] = true
		}
		if c.varied[k] {
			if names[k] == nil {
				names[k] = map[string]bool{c.first[k]: true}
			}
			names[k][name] = true
		}
	}
	for k, ns := range names {
		if len(ns) >= minFoldNames {
			_, folded, _ := strings.Cut(k, "\x00")
			for n := range ns {
				c.fold[n] = folded
			}
		}
	}
	return c
}

// label names family k: the one name its classes share, or the pattern
// of their names.
func (c *classIndex) label(k string) string {
	if c.varied[k] {
		_, folded, _ := strings.Cut(k, "\x00")
		return folded
	}
	return c.first[k]
}

// familyLabel is label for a family known in one or both of two graphs.
func familyLabel(k string, cs ...*classIndex) string {
	name := ""
	for _, c := range cs {
		f, ok := c.first[k]
		if !ok {
			continue
		}
		if c.varied[k] || (name != "" && name != f) {
			_, folded, _ := strings.Cut(k, "\x00")
			return folded
		}
		name = f
	}
	return name
}

// MatchClass reports whether a class named name answers to want: its
// qualified name ("app.models.Model_17"), the part after any dot of it
// ("Model_17", "models.Model_17"), or a pattern in which "*" stands for
// any text ("app.models.Model_*", as diff and leaks name a family).
func MatchClass(name, want string) bool {
	if strings.Contains(want, "*") {
		return starMatch(want, name) || starMatch("*."+want, name)
	}
	return name == want || strings.HasSuffix(name, "."+want)
}

// starMatch matches name against pattern, in which "*" stands for any
// text, "." included.
func starMatch(pattern, name string) bool {
	parts := strings.Split(pattern, "*")
	if !strings.HasPrefix(name, parts[0]) {
		return false
	}
	name = name[len(parts[0]):]
	last := parts[len(parts)-1]
	for _, p := range parts[1 : len(parts)-1] {
		i := strings.Index(name, p)
		if i < 0 {
			return false
		}
		name = name[i+len(p):]
	}
	return len(parts) == 1 && name == "" || len(parts) > 1 && strings.HasSuffix(name, last)
}

// selectClasses is [Select] for a selector with a Class: the class
// objects whose name matches, that the other fields pick too.
func selectClasses(g *heap.Graph, s Selector) []heap.ObjectID {
	isClass := classTypes(g)
	var out []heap.ObjectID
	for id, t := range g.Types() {
		if !isClass[t] {
			continue
		}
		v := heap.ObjectID(id)
		if s.HasAddr && g.Addr(v) != s.Addr {
			continue
		}
		if name, ok := ClassName(g, v); ok && MatchClass(name, s.Class) && s.matchRest(g, v) {
			out = append(out, v)
		}
	}
	return out
}

// familyStat counts the classes of one family in two snapshots.
type familyStat struct {
	typ, label string
	count      [2]int
	bytes      [2]uint64
}

// families is the class families of two snapshots that have rows of
// their own in a diff: those of more than one class in either.
type families struct {
	stats  []*familyStat
	before *classIndex
	after  *classIndex
	byKey  map[string]*familyStat
	// fold is the classIndex fold of either snapshot: the instances of
	// the classes of a large family are one row too.
	fold map[string]string
}

// splitFamilies finds the families of before and after that have rows of
// their own, in the order of their keys.
func splitFamilies(before, after *heap.Graph) families {
	cs := [2]*classIndex{newClassIndex(before), newClassIndex(after)}
	f := families{before: cs[0], after: cs[1], byKey: map[string]*familyStat{}, fold: map[string]string{}}
	for i, c := range cs {
		maps.Copy(f.fold, c.fold)
		for id, k := range c.family {
			st := f.byKey[k]
			if st == nil {
				t, _, _ := strings.Cut(k, "\x00")
				st = &familyStat{typ: t}
				f.byKey[k] = st
			}
			st.count[i]++
			st.bytes[i] += c.g.Size(id)
		}
	}
	keys := make([]string, 0, len(f.byKey))
	for k, st := range f.byKey {
		if st.count[0] < 2 && st.count[1] < 2 {
			delete(f.byKey, k)
			continue
		}
		st.label = familyLabel(k, cs[0], cs[1])
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		f.stats = append(f.stats, f.byKey[k])
	}
	return f
}

// of returns the family row of object id of the after snapshot, or nil.
func (f families) of(id heap.ObjectID) *familyStat { return f.in(f.after, id) }

// ofBefore is of for an object of the before snapshot.
func (f families) ofBefore(id heap.ObjectID) *familyStat { return f.in(f.before, id) }

func (f families) in(c *classIndex, id heap.ObjectID) *familyStat {
	k, ok := c.family[id]
	if !ok {
		return nil
	}
	return f.byKey[k]
}

// classGroup is a family of classes with rows of its own.
type classGroup struct {
	typ   heap.TypeID
	label string
}

// classGroups returns the group of every object of g: its type, or for
// a class of a family of more than one class in g, NumTypes() plus the
// family's index in fams.
func classGroups(g *heap.Graph) (group func(uint32) uint32, fams []classGroup) {
	typ := g.Types()
	c := newClassIndex(g)
	size := map[string]int{}
	for _, k := range c.family {
		size[k]++
	}
	var keys []string
	for k, n := range size {
		if n > 1 {
			keys = append(keys, k)
		}
	}
	if len(keys) == 0 {
		return func(v uint32) uint32 { return uint32(typ[v]) }, nil
	}
	slices.Sort(keys)
	index := map[string]uint32{}
	for i, k := range keys {
		index[k] = uint32(g.NumTypes() + i)
		fams = append(fams, classGroup{label: c.label(k)})
	}
	own := make(map[uint32]uint32, len(c.family))
	hasOwn := make([]bool, g.NumTypes())
	for id, k := range c.family {
		if i, ok := index[k]; ok {
			own[uint32(id)] = i
			hasOwn[typ[id]] = true
			fams[i-uint32(g.NumTypes())].typ = typ[id]
		}
	}
	return func(v uint32) uint32 {
		t := typ[v]
		if hasOwn[t] {
			if i, ok := own[v]; ok {
				return i
			}
		}
		return uint32(t)
	}, fams
}
