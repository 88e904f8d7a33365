package hprof

import (
	"bytes"
	"encoding/binary"
)

// dumpWriter writes small HPROF dumps for tests: a header, UTF8 and
// LOAD_CLASS records, and heap-dump sub-records collected into segments.
type dumpWriter struct {
	out    bytes.Buffer
	seg    bytes.Buffer // sub-records of the segment being written
	idSize int
	names  map[string]uint64
	nextID uint64
}

func newDumpWriter(version string, idSize int) *dumpWriter {
	w := &dumpWriter{idSize: idSize, names: map[string]uint64{}, nextID: 0x10}
	w.out.WriteString(version)
	w.out.WriteByte(0)
	binary.Write(&w.out, binary.BigEndian, uint32(idSize))
	binary.Write(&w.out, binary.BigEndian, uint64(1700000000000))
	return w
}

// fieldData builds the field values of an instance or the data of an
// array, big-endian.
type fieldData struct {
	b      bytes.Buffer
	idSize int
}

func (f *fieldData) ref(v uint64) *fieldData { putID(&f.b, v, f.idSize); return f }
func (f *fieldData) u1(v byte) *fieldData    { f.b.WriteByte(v); return f }
func (f *fieldData) u2(v uint16) *fieldData {
	binary.Write(&f.b, binary.BigEndian, v)
	return f
}
func (f *fieldData) u4(v uint32) *fieldData {
	binary.Write(&f.b, binary.BigEndian, v)
	return f
}
func (f *fieldData) u8(v uint64) *fieldData {
	binary.Write(&f.b, binary.BigEndian, v)
	return f
}
func (f *fieldData) bytes() []byte { return f.b.Bytes() }

func putID(b *bytes.Buffer, v uint64, idSize int) {
	if idSize == 4 {
		binary.Write(b, binary.BigEndian, uint32(v))
	} else {
		binary.Write(b, binary.BigEndian, v)
	}
}

func (w *dumpWriter) data() *fieldData { return &fieldData{idSize: w.idSize} }

// record appends a top-level record.
func (w *dumpWriter) record(tag byte, body []byte) {
	w.out.WriteByte(tag)
	binary.Write(&w.out, binary.BigEndian, uint32(0))
	binary.Write(&w.out, binary.BigEndian, uint32(len(body)))
	w.out.Write(body)
}

// str returns the id of a UTF8 record holding s, writing it once.
func (w *dumpWriter) str(s string) uint64 {
	if id, ok := w.names[s]; ok {
		return id
	}
	w.nextID++
	id := w.nextID
	w.names[s] = id
	w.record(tagUTF8, append(w.data().ref(id).bytes(), s...))
	return id
}

// loadClass writes a LOAD_CLASS record naming class object id.
func (w *dumpWriter) loadClass(id uint64, name string) {
	n := w.str(name)
	w.record(tagLoadClass, w.data().u4(1).ref(id).u4(1).ref(n).bytes())
}

// testField describes a field of a CLASS_DUMP; val is for statics.
type testField struct {
	name string
	typ  byte
	val  uint64
}

// class writes a LOAD_CLASS record now and a CLASS_DUMP sub-record into
// the current segment.
func (w *dumpWriter) class(id, super uint64, name string, statics, fields []testField) {
	w.loadClass(id, name)
	for _, f := range append(statics, fields...) {
		w.str(f.name)
	}
	d := w.data()
	d.u1(subClassDump).ref(id).u4(1).ref(super).ref(0).ref(0).ref(0).ref(0).ref(0).u4(0)
	d.u2(0)
	d.u2(uint16(len(statics)))
	for _, f := range statics {
		d.ref(w.names[f.name]).u1(f.typ)
		switch sz := valueSize(f.typ, w.idSize); sz {
		case 1:
			d.u1(byte(f.val))
		case 2:
			d.u2(uint16(f.val))
		case 4:
			d.u4(uint32(f.val))
		case 8:
			d.u8(f.val)
		}
	}
	d.u2(uint16(len(fields)))
	for _, f := range fields {
		d.ref(w.names[f.name]).u1(f.typ)
	}
	w.seg.Write(d.bytes())
}

func (w *dumpWriter) instance(id, cls uint64, fields []byte) {
	d := w.data().u1(subInstanceDump).ref(id).u4(1).ref(cls).u4(uint32(len(fields)))
	w.seg.Write(d.bytes())
	w.seg.Write(fields)
}

func (w *dumpWriter) objArray(id, cls uint64, elems ...uint64) {
	d := w.data().u1(subObjArrayDump).ref(id).u4(1).u4(uint32(len(elems))).ref(cls)
	for _, e := range elems {
		d.ref(e)
	}
	w.seg.Write(d.bytes())
}

func (w *dumpWriter) primArray(id uint64, et byte, n int, data []byte) {
	d := w.data().u1(subPrimArrayDump).ref(id).u4(1).u4(uint32(n)).u1(et)
	w.seg.Write(d.bytes())
	w.seg.Write(data)
}

// root writes a root sub-record of the given tag, with zeros for its
// thread serial, frame number or JNI reference id.
func (w *dumpWriter) root(tag byte, id uint64) {
	info := roots[tag]
	d := w.data().u1(tag).ref(id)
	for i := 0; i < info.ids; i++ {
		d.ref(0)
	}
	for i := 0; i < info.extra; i++ {
		d.u1(0)
	}
	w.seg.Write(d.bytes())
}

// flush writes the collected sub-records as one record of the given tag
// (tagHeapDump or tagHeapDumpSeg).
func (w *dumpWriter) flush(tag byte) {
	if w.seg.Len() == 0 {
		return
	}
	w.record(tag, w.seg.Bytes())
	w.seg.Reset()
}

// bytes flushes the segment, ends the dump and returns it.
func (w *dumpWriter) bytes() []byte {
	w.flush(tagHeapDumpSeg)
	w.record(tagHeapDumpEnd, nil)
	return w.out.Bytes()
}

// Addresses of the classes writeJavaBase writes.
const (
	clsObject   = 0x1000
	clsString   = 0x1010
	clsRef      = 0x1020
	clsWeakRef  = 0x1030
	clsByteArr  = 0x1040
	clsObjArr   = 0x1050
	clsStrArr   = 0x1060
	clsNode     = 0x1070
	clsClass    = 0x1080
	clsHolder   = 0x1090
	clsCharSeqs = 0x10a0
)

// writeJavaBase writes the CLASS_DUMPs of a few core classes with the
// fields they have in JDK 17.
func writeJavaBase(w *dumpWriter) {
	w.class(clsObject, 0, "java/lang/Object", nil, nil)
	w.class(clsClass, clsObject, "java/lang/Class", nil, []testField{{"name", typeObject, 0}})
	w.class(clsString, clsObject, "java/lang/String",
		[]testField{{"serialVersionUID", typeLong, 42}, {"COMPACT_STRINGS", typeBoolean, 1}},
		[]testField{{"value", typeObject, 0}, {"coder", typeByte, 0}, {"hash", typeInt, 0}, {"hashIsZero", typeBoolean, 0}})
	w.class(clsRef, clsObject, "java/lang/ref/Reference", nil,
		[]testField{{"referent", typeObject, 0}, {"queue", typeObject, 0}, {"next", typeObject, 0}, {"discovered", typeObject, 0}})
	w.class(clsWeakRef, clsRef, "java/lang/ref/WeakReference", nil, nil)
	w.class(clsByteArr, clsObject, "[B", nil, nil)
	w.class(clsObjArr, clsObject, "[Ljava/lang/Object;", nil, nil)
	w.class(clsStrArr, clsObject, "[[Ljava/lang/String;", nil, nil)
}

// stringFields returns the field data of a JDK 17 java.lang.String.
func (w *dumpWriter) stringFields(value uint64, coder byte) []byte {
	return w.data().ref(value).u1(coder).u4(0).u1(0).bytes()
}

// tinyDump writes a small heap: a Node class with a static field, a
// chain of nodes, strings in Latin-1 and UTF-16 whose value arrays come
// before and after them, a weak reference and an array of arrays.
func tinyDump(idSize int) []byte {
	w := newDumpWriter("JAVA PROFILE 1.0.2", idSize)
	w.str("unused symbol")
	writeJavaBase(w)
	w.class(clsNode, clsObject, "com/example/Node",
		[]testField{{"HEAD", typeObject, 0x2000}, {"COUNT", typeInt, 3}},
		[]testField{{"next", typeObject, 0}, {"name", typeObject, 0}, {"id", typeLong, 0}, {"flag", typeBoolean, 0}})
	w.root(subRootStickyClass, clsObject)
	w.root(subRootStickyClass, clsNode)
	w.root(subRootJavaFrame, 0x2000)
	w.root(subRootJNIGlobal, 0x2000)
	w.root(subRootThreadObj, 0) // a thread without an object
	w.flush(tagHeapDumpSeg)
	// Latin-1 value array before its string.
	w.primArray(0x3000, typeByte, 5, []byte("hello"))
	w.instance(0x3100, clsString, w.stringFields(0x3000, 0))
	// UTF-16 string before its value array (little-endian "héllo→€").
	w.instance(0x3200, clsString, w.stringFields(0x3300, 1))
	utf := []byte{}
	for _, r := range "héllo→€" {
		utf = append(utf, byte(r), byte(r>>8))
	}
	w.primArray(0x3300, typeByte, len(utf), utf)
	// A second string sharing the first one's value.
	w.instance(0x3400, clsString, w.stringFields(0x3000, 0))
	for i, a := range []uint64{0x2000, 0x2100, 0x2200} {
		next := a + 0x100
		if i == 2 {
			next = 0
		}
		w.instance(a, clsNode, w.data().ref(next).ref(0x3100).u8(uint64(i)).u1(1).bytes())
	}
	w.flush(tagHeapDumpSeg)
	w.instance(0x4000, clsWeakRef, w.data().ref(0x2200).ref(0).ref(0).ref(0).bytes())
	w.objArray(0x5000, clsObjArr, 0x2000, 0, 0x4000)
	w.objArray(0x5100, clsStrArr, 0x5000)
	w.primArray(0x6000, typeInt, 3, w.data().u4(1).u4(2).u4(3).bytes())
	w.primArray(0x6100, typeLong, 1, w.data().u8(7).bytes())
	return w.bytes()
}
