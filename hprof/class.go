package hprof

import (
	"fmt"

	"github.com/heapscope/heapscope/heap"
)

// classInfo is one CLASS_DUMP.
type classInfo struct {
	id, super, loader, signers, domain uint64
	instSize                           uint32
	off                                int64   // offset of the CLASS_DUMP
	fields                             []field // instance fields of this class only, in dump order
	statics                            []field // static fields with their values

	name   string // internal form ("java/util/HashMap"), "" until resolved
	plan   *plan
	mirror uint64 // shallow size of the class object

	// The superclass chain, resolved once per pass by [reader.resolve]
	// and shared by all subclasses, so that memory and work stay in
	// proportion to the fields the dump declares, however many classes
	// share a long chain.
	resolved bool
	onPath   bool       // on the path resolve is walking
	sup      *classInfo // the superclass, nil when it has no CLASS_DUMP (or closes a cycle)
	complete bool       // the chain ends at a class without a superclass
	own      int64      // field bytes of this class's own fields
	nbytes   int64      // field bytes of the whole chain as far as the dump has it
	ownRefs  []int32    // offsets of own reference fields in own field data
	labels   []heap.Label
	refs     *classInfo // the nearest class of the chain, c included, with reference fields
	refsAt   int64      // where refs's own fields start in c's field data
	up       *classInfo // for a class with reference fields: the next one up the chain
	upAt     int64      // where up's own fields start relative to this class's own fields
	nrefs    int        // reference fields of the whole chain
	flat     []int32    // pass 1: their offsets, when there are at most flatRefs
}

// flatRefs bounds the reference fields of a chain that a class also keeps
// in one flat list, the fast way to decode its instances: a real class
// has a few dozen at most. Instances of classes with more are decoded by
// walking the chain class by class, so that memory stays in proportion
// to the fields the dump declares.
const flatRefs = 64

// field is a field descriptor; val is set for static fields only.
type field struct {
	name uint64 // UTF8 id
	typ  byte
	val  uint64
}

// plan says how to decode the field data of an instance of a class.
type plan struct {
	info     *classInfo // reference fields: the chain from info.refs up
	refs     []refSlot  // the same, flat, when there are at most flatRefs; else nil
	typ      heap.TypeID
	size     uint64 // shallow size of an instance
	nbytes   int    // field bytes the dump should carry
	complete bool   // the whole superclass chain is in the dump
	str      *stringSlots
	thread   bool // java.lang.Thread or a subclass: its frames' locals are its edges
	// whole: every field of the chain is a reference, so an instance's
	// edges are its whole state (heap.FlagWhole): a field without an
	// edge is null.
	whole bool
}

// refSlot is a reference field at byte offset off of the field data.
type refSlot struct {
	off   int32
	label heap.Label
}

// stringSlots are the offsets in a java.lang.String's field data of the
// fields that hold its characters, -1 when the class has no such field.
type stringSlots struct {
	value, coder, offset, count int
}

// resolve resolves the superclass chain of c and of every class above it
// that is not resolved yet, each once: it walks up to a resolved class,
// a class without a superclass, a superclass the dump lacks, or a cycle
// (a damaged dump; the class that closes it is taken to have no
// superclass), then fills in the classes on the way down.
func (r *reader) resolve(c *classInfo) {
	if c.resolved {
		return
	}
	path := r.path[:0]
	var top *classInfo // the resolved class the path ends on, if any
	for k := c; ; {
		k.onPath = true
		path = append(path, k)
		if k.super == 0 {
			break
		}
		s := r.classes[k.super]
		if s == nil || s.onPath {
			break
		}
		if s.resolved {
			top = s
			break
		}
		k = s
	}
	for i := len(path) - 1; i >= 0; i-- {
		k := path[i]
		k.onPath = false
		k.sup = top
		k.complete = k.super == 0 || (top != nil && top.complete)
		k.own, k.ownRefs = 0, k.ownRefs[:0]
		for _, f := range k.fields {
			if isRef(f.typ) {
				k.ownRefs = append(k.ownRefs, int32(k.own))
			}
			k.own += int64(valueSize(f.typ, r.idSize))
		}
		k.nbytes, k.refs, k.refsAt, k.up, k.upAt = k.own, nil, 0, nil, 0
		k.nrefs = len(k.ownRefs)
		if top != nil {
			k.nbytes += top.nbytes
			k.up, k.upAt = top.refs, k.own+top.refsAt
			k.nrefs = min(k.nrefs+top.nrefs, 1<<30)
		}
		if len(k.ownRefs) > 0 {
			k.refs = k
		} else {
			k.refs, k.refsAt = k.up, k.upAt
		}
		k.resolved = true
		top = k
	}
	r.path = path[:0]
	r.work.resolved += len(path)
}

// unresolve forgets every resolved chain, for pass 2 to resolve them
// again with every CLASS_DUMP known.
func (r *reader) unresolve() {
	for _, c := range r.classes {
		c.resolved = false
	}
}

// countRefs returns class id for counting the reference fields of its
// instances in pass 1, before names are known, and the field bytes its
// instances carry; ok is false if the class or part of its chain is not
// (yet) known.
func (r *reader) countRefs(id uint64) (c *classInfo, nbytes int, ok bool) {
	c = r.classes[id]
	if c == nil {
		return nil, 0, false
	}
	r.resolve(c)
	if !c.complete || c.nbytes > int64(r.c.win) {
		return nil, 0, false
	}
	if c.nrefs <= flatRefs && c.flat == nil {
		c.flat = make([]int32, 0, c.nrefs)
		for k, base := c.refs, c.refsAt; k != nil; base, k = base+k.upAt, k.up {
			for _, o := range k.ownRefs {
				c.flat = append(c.flat, int32(base)+o)
			}
		}
	}
	return c, int(c.nbytes), true
}

// instancePlan returns the decoding plan for instances of class id, or
// nil if the dump has no CLASS_DUMP for it. Call only after pass 1.
func (r *reader) instancePlan(id uint64) *plan {
	c := r.classes[id]
	if c == nil {
		return nil
	}
	if c.plan != nil {
		return c.plan
	}
	r.resolve(c)
	p := &plan{info: c, typ: r.b.Type(javaName(c.name)), complete: c.complete, nbytes: int(min(c.nbytes, 1<<31-1))}
	if c.name == "java/lang/String" {
		p.str = &stringSlots{-1, -1, -1, -1}
		off := 0
		for _, f := range c.fields {
			name := r.name(f.name)
			switch {
			case name == "value" && isRefType(f.typ):
				p.str.value = off
			case name == "coder" && f.typ == typeByte:
				p.str.coder = off
			case name == "offset" && f.typ == typeInt:
				p.str.offset = off
			case name == "count" && f.typ == typeInt:
				p.str.count = off
			}
			off += valueSize(f.typ, r.idSize)
		}
		if p.str.value < 0 {
			p.str = nil
		}
	}
	for k := c.refs; k != nil && k.labels == nil; k = k.up {
		r.labelFields(k)
	}
	if c.nrefs <= flatRefs {
		p.refs = make([]refSlot, 0, c.nrefs)
		for k, base := c.refs, c.refsAt; k != nil; base, k = base+k.upAt, k.up {
			for j, o := range k.ownRefs {
				p.refs = append(p.refs, refSlot{int32(base) + o, k.labels[j]})
			}
		}
	}
	p.size = r.instanceSize(c)
	p.whole = c.complete && c.nbytes == int64(c.nrefs)*int64(r.idSize) && p.str == nil
	for k := c; k != nil; k = k.sup {
		p.thread = p.thread || k.name == "java/lang/Thread"
	}
	c.plan = p
	return p
}

// labelFields gives the reference fields of class k their edge labels:
// named after the field, weak for java.lang.ref.Reference.referent.
func (r *reader) labelFields(k *classInfo) {
	isReference := k.name == "java/lang/ref/Reference"
	k.labels = make([]heap.Label, 0, len(k.ownRefs))
	for _, f := range k.fields {
		if !isRef(f.typ) {
			continue
		}
		name := r.name(f.name)
		kind := heap.Strong
		if isReference && name == "referent" {
			kind = heap.Weak
		}
		k.labels = append(k.labels, heap.NamedLabel(kind, r.b.String(name)))
	}
}

func isRefType(t byte) bool { return isRef(t) }

// fieldLayoutOf returns the HotSpot field layout of class c under the
// reader's model (memoized).
func (r *reader) fieldLayoutOf(c *classInfo) fieldLayout {
	return r.layoutIn(&r.model, r.layouts, c)
}

// layoutIn returns the field layout of class c under model m, memoized
// in memo. It lays out the classes of the chain that have no layout yet
// from the top down, without recursion: a chain may be as long as the
// dump.
func (r *reader) layoutIn(m *model, memo map[*classInfo]*fieldLayout, c *classInfo) fieldLayout {
	if l := memo[c]; l != nil {
		return *l
	}
	r.resolve(c)
	path := r.path[:0]
	for k := c; k != nil && memo[k] == nil; k = k.sup {
		path = append(path, k)
	}
	for i := len(path) - 1; i >= 0; i-- {
		k := path[i]
		base := fieldLayout{end: m.header}
		if k.sup != nil {
			base = *memo[k.sup]
		}
		l := r.extendBy(m, k, base)
		memo[k] = &l
	}
	r.path = path[:0]
	return *memo[c]
}

// extendBy returns the layout of class c whose superclass has layout
// base, under model m.
func (r *reader) extendBy(m *model, c *classInfo, base fieldLayout) fieldLayout {
	var prims, cprims []int
	refs, crefs := 0, 0
	group := map[string]bool{}
	if !r.android && m.rules != rulesLegacy {
		for _, n := range contended[c.name] {
			group[n] = true
		}
	}
	for _, f := range c.fields {
		inGroup := len(group) > 0 && (group["*"] || group[r.name(f.name)])
		switch {
		case isRef(f.typ) && inGroup:
			crefs++
		case isRef(f.typ):
			refs++
		case inGroup:
			cprims = append(cprims, primSizes[f.typ&15])
		default:
			prims = append(prims, primSizes[f.typ&15])
		}
	}
	if !r.android {
		table := injected[m.era]
		if table == nil {
			table = injected[era9]
		}
		for _, z := range table[c.name] {
			switch z {
			case 0:
				refs++
			case word:
				prims = append(prims, m.word)
			default:
				prims = append(prims, z)
			}
		}
	}
	switch m.rules {
	case rulesLegacy:
		return base.extendLegacy(prims, refs, m.ref, m.era != era9 && oopsFirst[c.name])
	case rulesSealed:
		if base.end > m.header {
			// The superclasses have fields: this class's fields are
			// appended after them, from a reference-size boundary,
			// largest first, and fill no gap.
			base = fieldLayout{end: int(alignUp(uint64(base.end), uint64(m.ref)))}
			return base.appendAll(append(prims, cprims...), refs+crefs, m.ref)
		}
	}
	if group["*"] {
		return base.extendContended(cprims, crefs, m.ref)
	}
	l := base.extend(prims, refs, m.ref)
	if len(cprims)+crefs > 0 {
		l = l.extendContended(cprims, crefs, m.ref)
	}
	return l
}

// instanceSize returns the shallow size of an instance of c.
func (r *reader) instanceSize(c *classInfo) uint64 {
	return r.instanceSizeIn(&r.model, r.layouts, c)
}

// instanceSizeIn returns the shallow size of an instance of c under
// model m.
func (r *reader) instanceSizeIn(m *model, memo map[*classInfo]*fieldLayout, c *classInfo) uint64 {
	l := r.layoutIn(m, memo, c)
	return alignUp(uint64(l.end), uint64(m.align))
}

// mirrorSize returns the shallow size of the java.lang.Class object of c:
// a java.lang.Class instance followed by c's static fields, laid out as
// HotSpot lays out statics (after the instance fields of java.lang.Class;
// primitives largest first, then references). The synthetic statics
// HotSpot adds to the dump ("<resolved_references>") take no room.
func (r *reader) mirrorSize(c *classInfo) uint64 {
	var prims []int
	refs := 0
	for _, f := range c.statics {
		if isRef(f.typ) {
			if n := r.name(f.name); len(n) > 0 && n[0] == '<' {
				continue
			}
			refs++
		} else {
			prims = append(prims, primSizes[f.typ&15])
		}
	}
	l := fieldLayout{end: int(r.classSize)}.extend(prims, refs, r.model.ref)
	return alignUp(uint64(l.end), uint64(r.model.align))
}

// classType returns the type of instances of class id, also when the dump
// lacks its CLASS_DUMP.
func (r *reader) classType(id uint64) heap.TypeID {
	if c := r.classes[id]; c != nil {
		return r.b.Type(javaName(c.name))
	}
	if t, ok := r.unknownTypes[id]; ok {
		return t
	}
	var t heap.TypeID
	if n, ok := r.loadNames[id]; ok {
		t = r.b.Type(javaName(r.name(n)))
	} else {
		t = r.b.Type(fmt.Sprintf("<unknown class %#x>", id))
	}
	r.unknownTypes[id] = t
	return t
}

// classObjectName returns the name of the class object (CLASS_DUMP) of
// class c, interned: "class " and the class's Java name, as Eclipse MAT
// names class objects ("class java.util.HashMap", "class int[]").
func (r *reader) classObjectName(c *classInfo) heap.StringID {
	name := c.name
	if reg := r.classes[c.id]; name == "" && reg != nil {
		name = reg.name
	}
	if name == "" {
		name = r.className(c.id)
	}
	if name == "" {
		return r.b.String(fmt.Sprintf("class <unknown class %#x>", c.id))
	}
	return r.b.String("class " + javaName(name))
}

// className returns the internal name of class id as LOAD_CLASS gives it.
func (r *reader) className(id uint64) string {
	if n, ok := r.loadNames[id]; ok {
		return r.name(n)
	}
	return ""
}
