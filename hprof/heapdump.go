package hprof

import (
	"errors"
	"fmt"

	"github.com/heapscope/heapscope/heap"
)

// errOverrun marks damage where a sub-record claims more bytes than its
// HEAP_DUMP_SEGMENT has left.
var errOverrun = errors.New("overruns record")

// subRecords walks the sub-records of one heap-dump body. Pass 1 lists
// objects and classes and returns the offset where it had to stop (the
// body's end when nothing is wrong); pass 2 emits objects, edges and
// roots, up to the stop of pass 1, so both passes see the same objects.
// Pass 0 only counts the objects of a dump that is not read (a file of
// several dumps).
func (rd *reader) subRecords(s *segment, pass int) int64 {
	c := rd.c
	I := int64(rd.idSize)
	stop := s.end
	if pass == 2 {
		stop = s.stop
		rd.stop = stop
	}
	c.seek(s.start)
	for {
		off := c.off()
		if pass == 1 {
			rd.ckLeft--
			if rd.ckLeft < 0 || rd.addrs.n >= rd.ckObj || off >= rd.ckOff {
				rd.checkpoint(off)
			}
		}
		if off >= stop || c.err != nil {
			if c.err != nil && pass == 1 {
				// The window could not be filled although the segment
				// lies inside the input: a read error.
				rd.truncated = &FormatError{Offset: off, Record: recordName(s.tag), Err: c.err}
			}
			return off
		}
		tag := c.u1()
		left := func() int64 { return stop - c.off() }
		if info := &rootTable[tag]; info.record != "" {
			need := I*int64(1+info.ids) + int64(info.extra)
			if left() < need {
				return rd.damage(s, off, info.record, pass, errOverrun)
			}
			obj := c.id()
			if pass == 2 && (tag == subRootThreadObj || tag == subRootJavaFrame || tag == subRootJNILocal) {
				serial, n := c.u4(), c.u4()
				rd.threadRoot(tag, info, obj, serial, n)
				continue
			}
			c.skip(need - I)
			if pass == 2 {
				rd.root(info, obj)
			}
			continue
		}
		switch tag {
		case subClassDump:
			if err := rd.classDump(s, off, stop, pass); err != nil {
				return rd.damage(s, off, "CLASS_DUMP", pass, err)
			}
		case subInstanceDump:
			if left() < 2*I+8 {
				return rd.damage(s, off, "INSTANCE_DUMP", pass, errOverrun)
			}
			h := c.bytes(int(2*I + 8))
			if h == nil {
				continue // the loop reports c.err
			}
			addr := getID(h, int(I))
			cls := getID(h[I+4:], int(I))
			n := int64(getID(h[2*I+4:], 4))
			if n > left() {
				return rd.damage(s, off, "INSTANCE_DUMP", pass, fmt.Errorf("field data %w", errOverrun))
			}
			rd.instance(off, addr, cls, n, pass)
		case subObjArrayDump:
			if left() < 2*I+8 {
				return rd.damage(s, off, "OBJ_ARRAY_DUMP", pass, errOverrun)
			}
			h := c.bytes(int(2*I + 8))
			if h == nil {
				continue
			}
			addr := getID(h, int(I))
			n := int64(getID(h[I+4:], 4))
			cls := getID(h[I+8:], int(I))
			if n*I > left() {
				return rd.damage(s, off, "OBJ_ARRAY_DUMP", pass, fmt.Errorf("%d elements %w", n, errOverrun))
			}
			rd.objArray(addr, cls, n, pass)
		case subPrimArrayDump, subPrimArrayNoData:
			if left() < I+9 {
				return rd.damage(s, off, "PRIM_ARRAY_DUMP", pass, errOverrun)
			}
			h := c.bytes(int(I + 9))
			if h == nil {
				continue
			}
			addr := getID(h, int(I))
			n := int64(getID(h[I+4:], 4))
			et := h[I+8]
			es := int64(primSizes[et&15])
			if et > 15 || es == 0 {
				return rd.damage(s, off, "PRIM_ARRAY_DUMP", pass, fmt.Errorf("invalid element type %d", et))
			}
			data := n * es
			if tag == subPrimArrayNoData {
				data = 0
			}
			if data > left() {
				return rd.damage(s, off, "PRIM_ARRAY_DUMP", pass, fmt.Errorf("%d elements %w", n, errOverrun))
			}
			rd.primArray(addr, et, n, int(es), pass, tag == subPrimArrayNoData)
			c.skip(data)
		case subHeapDumpInfo:
			if left() < I+4 {
				return rd.damage(s, off, "HEAP_DUMP_INFO", pass, errOverrun)
			}
			c.skip(I + 4)
		default:
			return rd.damage(s, off, recordName(s.tag), pass, fmt.Errorf("unknown sub-record tag %#02x", tag))
		}
	}
}

// damage handles a sub-record that cannot be read: pass 1 warns (unless
// the input was cut inside this segment, which Read reports as an error)
// and both passes stop the segment there.
func (rd *reader) damage(s *segment, off int64, record string, pass int, err error) int64 {
	if pass == 1 && !(s.cut() && errors.Is(err, errOverrun)) {
		fe := &FormatError{Offset: off, Record: record, Err: err}
		rd.b.Warn(off, "%v; skipped the rest of the %s (%d bytes)", fe, recordName(s.tag), s.end-off)
	}
	return off
}

// cut reports whether the input ends inside the segment.
func (s *segment) cut() bool { return s.end < s.declared }

// classCache is the number of entries of the reader's per-class caches,
// indexed by classSlot: a map lookup per instance would cost more.
const classCache = 256

// classSlot returns the cache slot of class id: ids are addresses,
// aligned to 8 bytes at least.
func classSlot(id uint64) int { return int((id>>3)^(id>>11)) & (classCache - 1) }

// planEntry caches the plan of a class for pass 2.
type planEntry struct {
	cls  uint64
	plan *plan
	ok   bool
}

// countCache remembers what countRefs said about a class.
type countCache struct {
	cls    uint64
	info   *classInfo
	nbytes int
	ok     bool
	known  bool
	str    bool // the class is java.lang.String, as far as pass 1 knows
}

// addObj records an object's address in pass 1, with the evidence for
// alignment and reference size.
func (rd *reader) addObj(addr uint64) {
	if rd.addrs.n == 0 {
		rd.firstAddr = addr
	} else if rd.gcd == 0 || rd.gcd > 8 {
		d := addr - rd.firstAddr
		if addr < rd.firstAddr {
			d = rd.firstAddr - addr
		}
		rd.gcd = gcd(rd.gcd, d)
	}
	rd.samples.next(addr)
	rd.addrs.add(addr)
}

func gcd(a, b uint64) uint64 {
	for b != 0 {
		a, b = b, a%b
	}
	return a
}

// root emits a GC root in pass 2.
func (rd *reader) root(info *rootInfo, obj uint64) {
	if obj == 0 {
		return // a thread without a java.lang.Thread object
	}
	t, ok := rd.idx.lookup(obj)
	if !ok {
		rd.lostRoots++
		return
	}
	rd.b.Root(info.kind, uint64(t), rd.b.String(info.name))
}

// edge emits a reference from object from (at address fromAddr) to the
// object at address to, or counts it as dangling.
func (rd *reader) edge(from heap.ObjectID, fromAddr, to uint64, l heap.Label) {
	t, ok := rd.idx.lookup(to)
	if !ok {
		if rd.dangling == 0 {
			rd.firstDangling, rd.danglingFrom = to, fromAddr
		}

		rd.dangling++
		return
	}
	if rd.skip && !rd.keep {
		return
	}
	rd.b.Edge(from, uint64(t), l)
}

// instance handles an INSTANCE_DUMP whose n bytes of field data follow.
func (rd *reader) instance(off int64, addr, cls uint64, n int64, pass int) {
	c := rd.c
	I := rd.idSize
	if pass == 0 {
		rd.counted++
		c.skip(n)
		return
	}
	if pass == 1 {
		rd.addObj(addr)
		rd.samples.note(sample{addr: addr, cls: cls})
		e := &rd.counts[classSlot(cls)]
		if cls != e.cls || !e.known {
			info, nb, ok := rd.countRefs(cls)
			*e = countCache{cls, info, nb, ok, ok, rd.className(cls) == "java/lang/String"}
		}
		if e.str {
			rd.nstrings++
		}
		rd.nedges++ // to its class
		if !e.ok || int64(e.nbytes) != n || n > int64(c.win) || rd.skip {
			rd.nedges += int(n) / I
			c.skip(n)
			return
		}
		data := c.bytes(int(n))
		if data == nil {
			return
		}
		if flat := e.info.flat; flat != nil {
			for _, o := range flat {
				if getID(data[o:], I) != 0 {
					rd.nedges++
				}
			}
			return
		}
		for k, base := e.info.refs, e.info.refsAt; k != nil; base, k = base+k.upAt, k.up {
			for _, o := range k.ownRefs {
				if getID(data[base+int64(o):], I) != 0 {
					rd.nedges++
				}
			}
		}
		return
	}
	e := &rd.plans[classSlot(cls)]
	if e.cls != cls || !e.ok {
		*e = planEntry{cls, rd.instancePlan(cls), true}
	}
	p := e.plan
	if p == nil {
		rd.b.Object(addr, rd.classType(cls), alignUp(uint64(rd.model.header)+uint64(n), uint64(rd.model.align)))
		if rd.noClass == 0 {
			rd.noClassOff = off
		}
		rd.noClass++
		c.skip(n)
		return
	}
	id := rd.b.Object(addr, p.typ, p.size)
	if !rd.skip {
		// Without edges, this one needs no look-up: the class has a
		// plan, so the dump has it.
		rd.edge(id, addr, cls, rd.classLabel)
	}
	if p.thread && rd.locals != nil {
		rd.threadLocals(id, addr)
	}
	if (p.complete && int(n) != p.nbytes) || int(n) < p.nbytes || n > int64(c.win) {
		if rd.badFields == 0 {
			rd.badFieldsOff = off
		}
		rd.badFields++
		c.skip(n)
		return
	}
	data := c.bytes(int(n))
	if data == nil {
		return
	}
	// Without edges, a thread's fields are kept: its name is its name
	// field's.
	rd.keep = p.thread
	if p.refs != nil {
		for _, s := range p.refs {
			if v := getID(data[s.off:], I); v != 0 {
				rd.edge(id, addr, v, s.label)
			}
		}
	} else {
		for k, base := p.info.refs, p.info.refsAt; k != nil; base, k = base+k.upAt, k.up {
			for j, o := range k.ownRefs {
				if v := getID(data[base+int64(o):], I); v != 0 {
					rd.edge(id, addr, v, k.labels[j])
				}
			}
		}
	}
	rd.keep = false
	if p.str != nil {
		rd.strAddr = addr
		rd.stringInstance(id, data, p.str)
	}
	if p.whole && !p.thread {
		rd.b.SetFlags(id, heap.FlagWhole)
	}
}

// objArray handles an OBJ_ARRAY_DUMP whose n elements follow.
func (rd *reader) objArray(addr, cls uint64, n int64, pass int) {
	c := rd.c
	I := rd.idSize
	if pass == 0 {
		rd.counted++
		c.skip(n * int64(I))
		return
	}
	if pass == 1 {
		rd.addObj(addr)
		if cls != 0 {
			rd.nedges++ // to its class
		}
		if rd.skip {
			c.skip(n * int64(I))
			rd.samples.note(sample{addr: addr, n: uint32(n), es: -1})
			return
		}
		for left := n * int64(I); left > 0; {
			b := c.chunk(left)
			if b == nil {
				return
			}
			left -= int64(len(b))
			for i := 0; i+I <= len(b); i += I {
				if getID(b[i:], I) != 0 {
					rd.nedges++
				}
			}
		}
		rd.samples.note(sample{addr: addr, n: uint32(n), es: -1})
		return
	}
	id := rd.b.Object(addr, rd.arrayType(cls), rd.model.arraySize(uint64(n), rd.model.ref))
	rd.b.SetLength(id, uint32(n))
	if cls != 0 {
		rd.edge(id, addr, cls, rd.classLabel)
	}
	var i uint64
	for left := n * int64(I); left > 0; {
		b := c.chunk(left)
		if b == nil {
			return
		}
		left -= int64(len(b))
		for k := 0; k+I <= len(b); k += I {
			if v := getID(b[k:], I); v != 0 {
				rd.edge(id, addr, v, heap.IndexLabel(heap.Strong, i))
			}
			i++
		}
	}
}

// primArray handles the header of a PRIM_ARRAY_DUMP; the caller skips
// the element data.
func (rd *reader) primArray(addr uint64, et byte, n int64, es int, pass int, noData bool) {
	if pass == 0 {
		rd.counted++
		return
	}
	if pass == 1 {
		rd.addObj(addr)
		rd.nedges++ // to its class, when the dump has it
		if !noData {
			rd.samples.note(sample{addr: addr, n: uint32(n), es: int8(es)})
		}
		return
	}
	t := rd.primTypes[et&15]
	if t == 0 {
		t = rd.b.Type(primNames[et]+"[]") + 1
		rd.primTypes[et&15] = t
	}
	t--
	id := rd.b.Object(addr, t, rd.model.arraySize(uint64(n), es))
	if cls := rd.primClasses[et&15]; cls != 0 && !rd.skip {
		// HPROF names no class for a primitive array; the dump has the
		// class ("[I") as it has every other: the same "<class>" edge
		// (which needs no look-up without edges: the class is there).
		rd.edge(id, addr, cls, rd.classLabel)
	}
	if (et == typeByte || et == typeChar) && !noData {
		rd.remember(arrayLoc{off: rd.c.off(), id: id, n: uint32(n), char: et == typeChar})
	}
}

// arrayType returns the type of object arrays of array class cls.
func (rd *reader) arrayType(cls uint64) heap.TypeID {
	if cls == rd.lastArrayCls && rd.lastArrayType != 0 {
		return rd.lastArrayType - 1
	}
	t := rd.arrayType1(cls)
	rd.lastArrayCls, rd.lastArrayType = cls, t+1
	return t
}

func (rd *reader) arrayType1(cls uint64) heap.TypeID {
	if t, ok := rd.arrayTypes[cls]; ok {
		return t
	}
	var t heap.TypeID
	if name := rd.className(cls); len(name) > 0 && name[0] == '[' {
		t = rd.b.Type(javaName(name))
	} else {
		t = rd.b.Type("java.lang.Object[]")
	}
	rd.arrayTypes[cls] = t
	return t
}

// classDump handles a CLASS_DUMP: pass 1 records the class and its
// object, pass 2 emits the class object with its static and internal
// edges.
func (rd *reader) classDump(s *segment, off, stop int64, pass int) error {
	c := rd.c
	I := int64(rd.idSize)
	left := func() int64 { return stop - c.off() }
	if left() < 7*I+8+2 {
		return errOverrun
	}
	ci := &classInfo{off: off}
	ci.id = c.id()
	c.u4()
	ci.super = c.id()
	ci.loader = c.id()
	ci.signers = c.id()
	ci.domain = c.id()
	c.id()
	c.id()
	ci.instSize = c.u4()
	ncp := int64(c.u2())
	for i := int64(0); i < ncp; i++ {
		if left() < 3 {
			return fmt.Errorf("constant pool %w", errOverrun)
		}
		c.u2()
		t := c.u1()
		vs := int64(valueSize(t, rd.idSize))
		if vs == 0 {
			return fmt.Errorf("constant pool entry %d has invalid type %d", i, t)
		}
		if left() < vs {
			return fmt.Errorf("constant pool %w", errOverrun)
		}
		c.skip(vs)
	}
	if left() < 2 {
		return errOverrun
	}
	ns := int64(c.u2())
	if ns*(I+2) > left() {
		return fmt.Errorf("%d static fields %w", ns, errOverrun)
	}
	ci.statics = make([]field, 0, ns)
	for i := int64(0); i < ns; i++ {
		if left() < I+1 {
			return fmt.Errorf("static fields %w", errOverrun)
		}
		f := field{name: c.id(), typ: c.u1()}
		vs := int64(valueSize(f.typ, rd.idSize))
		if vs == 0 {
			return fmt.Errorf("static field %d has invalid type %d", i, f.typ)
		}
		if left() < vs {
			return fmt.Errorf("static fields %w", errOverrun)
		}
		if isRef(f.typ) {
			f.val = c.id()
		} else {
			c.skip(vs)
		}
		ci.statics = append(ci.statics, f)
	}
	if left() < 2 {
		return errOverrun
	}
	nf := int64(c.u2())
	if nf*(I+1) > left() {
		return fmt.Errorf("%d instance fields %w", nf, errOverrun)
	}
	ci.fields = make([]field, 0, nf)
	for i := int64(0); i < nf; i++ {
		f := field{name: c.id(), typ: c.u1()}
		if valueSize(f.typ, rd.idSize) == 0 {
			return fmt.Errorf("instance field %d has invalid type %d", i, f.typ)
		}
		ci.fields = append(ci.fields, f)
	}
	if c.err != nil {
		return c.err
	}
	if pass == 0 {
		rd.counted++
		return nil
	}
	if pass == 1 {
		// Room for the edges pass 2 emits, so the builder never grows.
		for _, f := range ci.statics {
			if isRef(f.typ) && f.val != 0 {
				rd.nedges++
			}
		}
		for _, to := range [...]uint64{ci.super, ci.loader, ci.signers, ci.domain} {
			if to != 0 {
				rd.nedges++
			}
		}
		if _, dup := rd.classes[ci.id]; dup {
			rd.b.Warn(off, "CLASS_DUMP: class %#x dumped twice; the first dump describes its instances", ci.id)
		} else {
			rd.classes[ci.id] = ci
		}
		rd.addObj(ci.id)
		return nil
	}
	var size uint64
	if reg := rd.classes[ci.id]; reg != nil && reg.off == off {
		if reg.mirror == 0 {
			reg.mirror = rd.mirrorSize(reg)
		}
		size = reg.mirror
	} else {
		size = rd.mirrorSize(ci)
	}
	id := rd.b.Object(ci.id, rd.classType_, size)
	rd.b.SetName(id, rd.classObjectName(ci))
	if reg := rd.classes[ci.id]; reg != nil && (reg.name == "java/lang/VersionProps" || reg.name == "sun/misc/Version") {
		// The JDK's version, a constant the class keeps: the reader
		// labels that string when it meets it.
		for _, f := range ci.statics {
			if isRef(f.typ) && rd.name(f.name) == "java_version" {
				rd.versionAddr = f.val
			}
		}
	}
	for _, f := range ci.statics {
		if isRef(f.typ) && f.val != 0 {
			rd.edge(id, ci.id, f.val, heap.NamedLabel(heap.Strong, rd.b.String(rd.name(f.name))))
		}
	}
	for _, e := range [...]struct {
		to   uint64
		name string
	}{{ci.super, "<super>"}, {ci.loader, "<classloader>"}, {ci.signers, "<signers>"}, {ci.domain, "<protection domain>"}} {
		if e.to != 0 {
			// Without edges, "<super>" is kept: instanceof: and the
			// collections' kinds go up the class hierarchy.
			rd.keep = e.to == ci.super
			rd.edge(id, ci.id, e.to, heap.NamedLabel(heap.Internal, rd.b.String(e.name)))
		}
	}
	rd.keep = false
	return nil
}
