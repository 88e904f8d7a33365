package analyze

import (
	"cmp"
	"maps"
	"slices"

	"github.com/heapscope/heapscope/heap"
)

// ValueGroup is the copies of one type: objects of that type equal by
// value (see [IndexValues]) to another object of it, each built on its
// own. Copies that are part of another copy (the namespace and tuples of
// an instance that is a copy itself: objects a copy dominates) count
// with that copy, not here.
type ValueGroup struct {
	Type     string
	Count    int // copies
	Distinct int // distinct values among them
	// Wasted is what all copies of each value but one retain: the
	// memory that building each value once would save.
	Wasted uint64
	// Example is a copy of the value with the most copies, ExampleCopies
	// how many that value has here.
	Example       heap.ObjectID
	ExampleCopies int
	// Holders says where the copies are held: their shortest paths
	// merged by signature (see [MergePaths]), most copies first.
	Holders []ValueHolder
	// Misses says that one of the holders holds one copy of each value
	// and others more (see [ValueHolder].OneOfEach): the signature of a
	// cache whose lookups miss.
	Misses bool
}

// ValueHolder is the copies that one kind of path holds.
type ValueHolder struct {
	PathGroup
	// Distinct is how many distinct values the copies it holds have.
	Distinct int `json:"distinct"`
	// OneOfEach says that it holds one copy of each value of its group
	// while another holder holds several copies of one value, more
	// copies in all than it holds: what a cache holds when its lookups
	// miss and the program builds each value again.
	OneOfEach bool `json:"one_of_each,omitempty"`
}

// markCache sets OneOfEach on the holder of grp that looks like a cache
// whose lookups miss, if one does, and Misses on grp.
func markCache(grp *ValueGroup) {
	for i := range grp.Holders {
		h := &grp.Holders[i]
		if h.Count != grp.Distinct || h.Distinct != grp.Distinct || grp.Count-h.Count <= h.Count {
			continue
		}
		for _, o := range grp.Holders {
			if o.Count > o.Distinct {
				h.OneOfEach, grp.Misses = true, true
				return
			}
		}
	}
}

// maxValueHolders bounds ValueGroup.Holders.
const maxValueHolders = 8

// valueRec is one object compared by value, for sorting into classes.
type valueRec struct {
	typ  heap.TypeID
	hash uint64
	id   heap.ObjectID
}

func cmpValueRec(a, b valueRec) int {
	return cmp.Or(cmp.Compare(a.typ, b.typ), cmp.Compare(a.hash, b.hash), cmp.Compare(a.id, b.id))
}

// ValueDuplicates finds the objects equal by value to another object of
// their type, grouped by type, the groups with the signature of a cache
// that misses (Misses) first, then by wasted bytes, then copies
// (largest first), then type name. Strings, byte strings and numbers are
// left out (see [Duplicates] for strings); so are objects no root
// reaches. A type is listed when at least one of its values has two
// copies that are not part of other copies. t gives retained sizes and
// which copies are part of others; r the holders (nil: none).
func ValueDuplicates(x *Values, t *DomTree, r *Retainers) []ValueGroup {
	g := x.g
	cc := x.copyClasses(t)
	if cc == nil {
		return nil
	}
	recs, classOf, classSize, inside := cc.recs, cc.classOf, cc.size, cc.inside
	// Each type's top-level copies, in class order (recs is sorted by
	// type, then digest).
	var out []ValueGroup
	var copies []heap.ObjectID
	for i := 0; i < len(recs); {
		ty := recs[i].typ
		j := i
		copies = copies[:0]
		for ; j < len(recs) && recs[j].typ == ty; j++ {
			if id := recs[j].id; classOf[id] != 0 && !inside.has(uint32(id)) {
				copies = append(copies, id)
			}
		}
		i = j
		grp := ValueGroup{Type: g.TypeName(ty), Count: len(copies)}
		repeated := false
		for a := 0; a < len(copies); {
			c := classOf[copies[a]]
			b := a + 1
			for b < len(copies) && classOf[copies[b]] == c {
				b++
			}
			grp.Distinct++
			var sum, biggest uint64
			for _, id := range copies[a:b] {
				ret := t.Retained(id)
				sum += ret
				biggest = max(biggest, ret)
			}
			if b-a == classSize[c-1] {
				sum -= biggest // one copy of the value is needed
			}
			grp.Wasted += sum
			first := slices.Min(copies[a:b])
			if b-a > grp.ExampleCopies || (b-a == grp.ExampleCopies && first < grp.Example) {
				grp.Example, grp.ExampleCopies = first, b-a
			}
			repeated = repeated || b-a > 1
			a = b
		}
		if !repeated {
			continue // no value has two copies here
		}
		if r != nil {
			grp.Holders = valueHolders(r, t, copies, func(id heap.ObjectID) uint32 { return classOf[id] })
			markCache(&grp)
		}
		out = append(out, grp)
	}
	slices.SortFunc(out, func(a, b ValueGroup) int {
		if a.Misses != b.Misses {
			if a.Misses {
				return -1
			}
			return 1
		}
		return cmp.Or(cmp.Compare(b.Wasted, a.Wasted), cmp.Compare(b.Count, a.Count), cmp.Compare(a.Type, b.Type),
			cmp.Compare(a.Example, b.Example))
	})
	return out
}

// copyClasses is the classes of objects equal by value that have two
// copies or more, among the objects t reaches.
type copyClasses struct {
	recs    []valueRec // the reachable objects compared by value, sorted (see records)
	classOf []uint32   // each copy's class plus one; 0: no copy
	size    []int      // each class's copies
	inside  bitset     // copies that another copy dominates
}

// copyClasses sorts the reachable objects compared by value into classes
// of equal values; nil when no value has two copies.
func (x *Values) copyClasses(t *DomTree) *copyClasses {
	g := x.g
	recs := x.records(func(id heap.ObjectID) bool { return t.Reachable(id) })
	classOf := make([]uint32, g.NumObjects())
	var classSize []int
	for i := 0; i < len(recs); {
		j := i + 1
		for j < len(recs) && recs[j].typ == recs[i].typ && recs[j].hash == recs[i].hash {
			j++
		}
		if j-i > 1 {
			classSize = append(classSize, j-i)
			for _, rc := range recs[i:j] {
				classOf[rc.id] = uint32(len(classSize))
			}
		}
		i = j
	}
	if len(classSize) == 0 {
		return nil
	}
	// Copies inside other copies: a copy dominates them.
	inside := newBitset(g.NumObjects())
	under := 0
	t.walk(func(v uint32) {
		if classOf[v] != 0 {
			if under > 0 {
				inside.set(v)
			}
			under++
		}
	}, func(v uint32) {
		if classOf[v] != 0 {
			under--
		}
	})
	return &copyClasses{recs, classOf, classSize, inside}
}

// records lists the objects compared by value that keep (strings, byte
// strings and numbers left out: objects with a digest, or with a value
// and no edges; and empty objects, see empty), sorted by type, digest
// and ID.
func (x *Values) records(keep func(heap.ObjectID) bool) []valueRec {
	g := x.g
	var recs []valueRec
	for v, ty := range g.Types() {
		id := heap.ObjectID(v)
		if !x.byVal.has(uint32(v)) || !keep(id) {
			continue
		}
		if _, ok := g.Digest(id); ok {
			continue
		}
		if _, ok := g.Value(id); ok && len(g.Edges(id)) == 0 {
			continue
		}
		if empty(g, id) {
			continue
		}
		recs = append(recs, valueRec{ty, x.hash[v], id})
	}
	slices.SortFunc(recs, cmpValueRec)
	return recs
}

// valueHolders merges the shortest paths of objs by signature, as
// [MergePaths] does, and counts the distinct values (classOf) each kind
// of path holds; at most maxValueHolders, most objects first. objs must
// list the objects of each value one after another.
func valueHolders(r *Retainers, t *DomTree, objs []heap.ObjectID, classOf func(heap.ObjectID) uint32) []ValueHolder {
	var samples []heap.ObjectID
	var distinct []int
	var last []uint32 // the class each kind of path met last
	r.mu.Lock()
	groups, _ := countPathsLocked(r, r.sigs(), objs, func(i int, id heap.ObjectID, grp *PathGroup) {
		if i == len(samples) {
			samples = append(samples, id)
			distinct = append(distinct, 0)
			last = append(last, 0)
		}
		if c := classOf(id); c != last[i] || distinct[i] == 0 {
			distinct[i]++
			last[i] = c
		}
		grp.Retained += t.Retained(id)
		if cmpRetained(t.retained, uint32(id), uint32(samples[i])) < 0 {
			samples[i] = id
		}
	})
	r.mu.Unlock()
	keys := make([]string, len(groups))
	order := make([]int, len(groups))
	for i := range groups {
		keys[i], order[i] = sortKey(&groups[i]), i
	}
	slices.SortFunc(order, func(a, b int) int {
		return cmp.Or(cmp.Compare(groups[b].Count, groups[a].Count), cmp.Compare(groups[b].Retained, groups[a].Retained),
			cmp.Compare(keys[a], keys[b]))
	})
	out := make([]ValueHolder, min(len(groups), maxValueHolders))
	for i := range out {
		o := order[i]
		out[i] = ValueHolder{PathGroup: groups[o], Distinct: distinct[o]}
		out[i].Sample, _ = r.Path(samples[o])
	}
	return out
}

// ValueMatch says how a set of objects (a leak finding's) stands by
// value against the rest of the heap.
type ValueMatch struct {
	// Objects is how many of the set are compared by value, Distinct
	// how many distinct values they have.
	Objects  int `json:"objects"`
	Distinct int `json:"distinct"`
	// Equal is how many objects outside the set, reachable, are equal by
	// value to one in it; Holders says where they are held (nil when
	// Equal is 0), most first.
	Equal   int           `json:"equal"`
	Holders []ValueHolder `json:"holders,omitempty"`
	// Misses says that one holder holds one object of each of the set's
	// values and no more, while the set has as many or more, and no
	// other holder does: the set is what a program builds when its
	// lookups in that cache miss (the holder's OneOfEach is set). When
	// several hold one of each (many classes, each with its own equal
	// __bases__ tuple), none is a cache.
	Misses bool `json:"misses,omitempty"`
}

// Match compares objs by value with the rest of the heap: how many
// distinct values they have, and which objects outside them are equal to
// one of them and where those are held, one marked when it looks like a
// cache that misses (see [ValueMatch].Misses): "573 LiteralStructType,
// 15 distinct values, equal by value to 15 objects in Context._cache". t
// gives retained sizes and r the paths (r nil: no Holders). The first
// call sorts the graph's objects by value (4 bytes per object compared
// by value); each call then costs a binary search per distinct value.
func (x *Values) Match(r *Retainers, t *DomTree, objs []heap.ObjectID) ValueMatch {
	g := x.g
	if x.sorted == nil {
		recs := x.records(func(heap.ObjectID) bool { return true })
		x.sorted = make([]heap.ObjectID, len(recs))
		for i, rc := range recs {
			x.sorted[i] = rc.id
		}
	}
	var m ValueMatch
	in := map[heap.ObjectID]bool{}
	keys := map[valueRec]uint32{} // (type, digest) -> its class
	for _, id := range objs {
		if int(id) >= g.NumObjects() || !x.byVal.has(uint32(id)) || in[id] {
			continue
		}
		in[id] = true
		m.Objects++
		k := valueRec{typ: g.Type(id), hash: x.hash[id]}
		if _, ok := keys[k]; !ok {
			keys[k] = uint32(len(keys)) + 1
		}
	}
	m.Distinct = len(keys)
	var equal []heap.ObjectID // the objects of each value one after another
	classOf := map[heap.ObjectID]uint32{}
	order := slices.SortedFunc(maps.Keys(keys), func(a, b valueRec) int { return cmpValueRec(a, b) })
	for _, k := range order {
		c := keys[k]
		i, _ := slices.BinarySearchFunc(x.sorted, k, func(id heap.ObjectID, k valueRec) int {
			return cmp.Or(cmp.Compare(g.Type(id), k.typ), cmp.Compare(x.hash[id], k.hash))
		})
		for ; i < len(x.sorted) && g.Type(x.sorted[i]) == k.typ && x.hash[x.sorted[i]] == k.hash; i++ {
			id := x.sorted[i]
			if in[id] || (t != nil && !t.Reachable(id)) {
				continue
			}
			equal = append(equal, id)
			classOf[id] = c
		}
	}
	m.Equal = len(equal)
	if r != nil && t != nil && len(equal) > 0 {
		m.Holders = valueHolders(r, t, equal, func(id heap.ObjectID) uint32 { return classOf[id] })
		// The one holder that holds one of each value; when several do
		// (each of many classes its own equal tuple), none is a cache.
		one := -1
		for i, h := range m.Holders {
			if h.Count == m.Distinct && h.Distinct == m.Distinct && m.Objects >= h.Count && m.Objects > 1 {
				if one >= 0 {
					one = -1
					break
				}
				one = i
			}
		}
		if one >= 0 {
			m.Holders[one].OneOfEach, m.Misses = true, true
		}
	}
	return m
}

// ClassNameGroup is classes that share one qualified name: what a class
// factory makes, a class statement run in a function or type(name,
// bases, ns) called again and again, each call a new class.
type ClassNameGroup struct {
	Name      string // the name they share (see [ClassName])
	Metaclass string // their type: "type", or a metaclass
	Count     int
	// Retained is what the classes retain, each object once.
	Retained uint64
	Example  heap.ObjectID // the class that retains the most
	// Holders says where the classes are held, merged by path signature
	// (see [MergePaths]), at most maxValueHolders.
	Holders []PathGroup
}

// SharedClassNames finds the class objects (see classTypes) that share
// their qualified name with another class of the same metaclass, grouped
// by name, most classes first, then by retained size, then name. Classes
// with no name in the snapshot (defined in C, or values=False) are left
// out. r may be nil (no Holders).
func SharedClassNames(t *DomTree, r *Retainers) []ClassNameGroup {
	g := t.g
	isClass := classTypes(g)
	type key struct {
		typ  heap.TypeID
		name string
	}
	byName := map[key][]heap.ObjectID{}
	for v, ty := range g.Types() {
		if !isClass[ty] || !t.Reachable(heap.ObjectID(v)) {
			continue
		}
		if name, ok := ClassName(g, heap.ObjectID(v)); ok {
			k := key{ty, name}
			byName[k] = append(byName[k], heap.ObjectID(v))
		}
	}
	var out []ClassNameGroup
	var members [][]heap.ObjectID
	groupOf := map[heap.ObjectID]int{}
	for k, ids := range byName {
		if len(ids) < 2 {
			continue
		}
		grp := ClassNameGroup{Name: k.name, Metaclass: g.TypeName(k.typ), Count: len(ids), Example: ids[0]}
		for _, id := range ids {
			groupOf[id] = len(out)
			if cmpRetained(t.retained, uint32(id), uint32(grp.Example)) < 0 {
				grp.Example = id
			}
		}
		out = append(out, grp)
		members = append(members, ids)
	}
	if len(out) == 0 {
		return nil
	}
	// What each group retains, each object once: one walk for all.
	depth := make([]int, len(out))
	t.walk(func(v uint32) {
		if i, ok := groupOf[heap.ObjectID(v)]; ok {
			if depth[i] == 0 {
				out[i].Retained += t.retained[v]
			}
			depth[i]++
		}
	}, func(v uint32) {
		if i, ok := groupOf[heap.ObjectID(v)]; ok {
			depth[i]--
		}
	})
	if r != nil {
		for i := range out {
			out[i].Holders, _ = MergePaths(r, nil, members[i])
			if len(out[i].Holders) > maxValueHolders {
				out[i].Holders = out[i].Holders[:maxValueHolders]
			}
		}
	}
	slices.SortFunc(out, func(a, b ClassNameGroup) int {
		return cmp.Or(cmp.Compare(b.Count, a.Count), cmp.Compare(b.Retained, a.Retained), cmp.Compare(a.Name, b.Name),
			cmp.Compare(a.Metaclass, b.Metaclass))
	})
	return out
}

// empty reports whether id holds nothing but the runtime's bookkeeping
// (internal edges: its class, its shape): an empty list or dict, an
// instance with no attributes, a sentinel. Such objects are equal by
// value and hold no data: they are not copies of anything.
func empty(g *heap.Graph, id heap.ObjectID) bool {
	for _, e := range g.Edges(id) {
		if e.Label.Kind() != heap.Internal {
			return false
		}
	}
	return true
}
