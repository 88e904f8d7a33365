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

	name     string // internal form ("java/util/HashMap"), "" until resolved
	layout   *fieldLayout
	plan     *plan
	counting []int32 // pass 1: offsets of reference fields, see reader.countRefs
	nbytes   int     // pass 1: field bytes the chain declares, -1 when unknown
	mirror   uint64  // shallow size of the class object
}

// field is a field descriptor; val is set for static fields only.
type field struct {
	name uint64 // UTF8 id
	typ  byte
	val  uint64
}

// plan says how to decode the field data of an instance of a class.
type plan struct {
	typ      heap.TypeID
	size     uint64    // shallow size of an instance
	nbytes   int       // field bytes the dump should carry
	complete bool      // the whole superclass chain is in the dump
	refs     []refSlot // reference fields
	str      *stringSlots
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

// maxDepth bounds superclass chains (real ones are a few dozen deep).
const maxDepth = 256

// chain returns c followed by its superclasses, as far as the dump has
// them, and whether the chain reached a class without a superclass.
func (r *reader) chain(c *classInfo) ([]*classInfo, bool) {
	var out []*classInfo
	seen := map[*classInfo]bool{}
	for c != nil && len(out) < maxDepth && !seen[c] {
		seen[c] = true
		out = append(out, c)
		if c.super == 0 {
			return out, true
		}
		c = r.classes[c.super]
	}
	return out, false
}

// countRefs returns the offsets of the reference fields of instances of
// class id and the field bytes they carry, for counting edges in pass 1
// before names are known; ok is false if the class is not (yet) known.
func (r *reader) countRefs(id uint64) (offs []int32, nbytes int, ok bool) {
	c := r.classes[id]
	if c == nil {
		return nil, 0, false
	}
	if c.counting != nil || c.nbytes != 0 {
		return c.counting, c.nbytes, c.nbytes >= 0
	}
	chain, complete := r.chain(c)
	off := 0
	for _, k := range chain {
		for _, f := range k.fields {
			if isRef(f.typ) {
				c.counting = append(c.counting, int32(off))
			}
			off += valueSize(f.typ, r.idSize)
		}
	}
	if !complete {
		c.counting, c.nbytes = nil, -1
		return nil, 0, false
	}
	if c.counting == nil {
		c.counting = []int32{}
	}
	c.nbytes = off
	return c.counting, off, true
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
	p := &plan{typ: r.b.Type(javaName(c.name))}
	chain, complete := r.chain(c)
	p.complete = complete
	off := 0
	for _, k := range chain {
		isRef := k.name == "java/lang/ref/Reference"
		isString := k.name == "java/lang/String"
		if isString && k == c {
			p.str = &stringSlots{-1, -1, -1, -1}
		}
		for _, f := range k.fields {
			name := r.name(f.name)
			if f.typ == typeObject || f.typ == typeArrayObject {
				kind := heap.Strong
				if isRef && name == "referent" {
					kind = heap.Weak
				}
				p.refs = append(p.refs, refSlot{int32(off), heap.NamedLabel(kind, r.b.String(name))})
			}
			if p.str != nil && k == c {
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
			}
			off += valueSize(f.typ, r.idSize)
		}
	}
	p.nbytes = off
	if p.str != nil && p.str.value < 0 {
		p.str = nil
	}
	p.size = r.instanceSize(c)
	c.plan = p
	return p
}

func isRefType(t byte) bool { return isRef(t) }

// fieldLayoutOf returns the HotSpot field layout of class c (memoized).
func (r *reader) fieldLayoutOf(c *classInfo, depth int) fieldLayout {
	if c.layout != nil {
		return *c.layout
	}
	base := fieldLayout{end: r.model.header}
	c.layout = &base // a superclass cycle in a damaged dump ends here
	if c.super != 0 && depth < maxDepth {
		if s := r.classes[c.super]; s != nil && s != c {
			base = r.fieldLayoutOf(s, depth+1)
		}
	}
	var prims, cprims []int
	refs, crefs := 0, 0
	group := map[string]bool{}
	if r.hotspot {
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
	if r.hotspot {
		for _, z := range injected[c.name] {
			if z == 0 {
				refs++
			} else {
				prims = append(prims, z)
			}
		}
	}
	var l fieldLayout
	if group["*"] {
		l = base.extendContended(cprims, crefs, r.model.ref)
	} else {
		l = base.extend(prims, refs, r.model.ref)
		if len(cprims)+crefs > 0 {
			l = l.extendContended(cprims, crefs, r.model.ref)
		}
	}
	c.layout = &l
	return l
}

// instanceSize returns the shallow size of an instance of c.
func (r *reader) instanceSize(c *classInfo) uint64 {
	l := r.fieldLayoutOf(c, 0)
	return alignUp(uint64(l.end), uint64(r.model.align))
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
