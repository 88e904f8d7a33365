package hprof

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/heapscope/heapscope/heap"
)

// maxHeaderLen bounds the version string, as Eclipse MAT does.
const maxHeaderLen = 32

// reader holds the state of one Read.
type reader struct {
	r       io.ReaderAt
	size    int64
	idSize  int
	version string
	android bool // Android's HPROF 1.0.3, whose layouts are ART's
	c       *cursor
	c2      *cursor // random reads: string values that are not near their string
	b       *heap.Builder

	utf8      map[uint64]span   // UTF8 records by id
	names     map[uint64]string // decoded UTF8 records
	loadNames map[uint64]uint64 // class object id -> UTF8 id of its name
	again     []repeated        // UTF8 and LOAD_CLASS records for ids seen before
	classes   map[uint64]*classInfo
	path      []*classInfo // scratch for resolve and fieldLayoutOf
	work      work
	segs      []segment // the bodies of the dump that is read
	dumps     []dumpRec // every heap dump in the file
	want      int       // the dump to read, from 1; 0 for the last
	skip      bool      // Options.SkipEdges
	keep      bool      // with skip: the edges emitted now are kept (a thread's fields, a class's "<super>")
	chosen    int       // index in dumps of the dump that is read
	curSeg    int       // index in segs of the body pass 1 walks
	counted   int       // objects pass 0 counted
	start     time.Time // the file header's time

	// Pass 1.
	addrs     addrList
	cks       []checkpoint // see reader.checkpoint
	ckLeft    int          // sub-records until the next checkpoint is due
	ckObj     int          // number of objects at which it is due
	ckOff     int64        // offset at which it is due
	firstAddr uint64
	nedges    int
	nstrings  int    // instances of java.lang.String
	gcd       uint64 // of address differences, for the alignment
	samples   sampler
	counts    [classCache]countCache

	// Between the passes.
	idx           *addrIndex
	model         model
	modelFrom     string // how the model was chosen
	layouts       map[*classInfo]*fieldLayout
	classSize     uint64 // shallow size of a java.lang.Class instance
	unknownTypes  map[uint64]heap.TypeID
	arrayTypes    map[uint64]heap.TypeID
	primTypes     [16]heap.TypeID // type + 1 of each primitive array type, 0 until used
	primClasses   [16]uint64      // the class object of each primitive array type, 0 if none
	lastArrayCls  uint64
	classLabel    heap.Label  // of an instance's or object array's edge to its class (see pass 2)
	lastArrayType heap.TypeID // + 1
	classType_    heap.TypeID

	// Pass 2.
	nobj          int
	plans         [classCache]planEntry
	stop          int64 // where the current segment's sub-records end
	ring          [ringSize]arrayLoc
	ringNext      int
	locCache      [locateCache]located
	digests       map[heap.ObjectID]digestMemo // of long values, by value array
	hashBudget    int64                        // bytes of values to hash at most
	undigested    int                          // strings past the hashing budget
	undigestedAt  uint64                       // the first of them
	strAddr       uint64                       // address of the string being labelled
	labels        strings.Builder              // the current block of label bytes
	scratch       []byte
	dangling      int
	firstDangling uint64
	danglingFrom  uint64
	lostRoots     int
	badFields     int
	badFieldsOff  int64
	noClass       int
	noClassOff    int64
	truncated     error
	versionAddr   uint64 // the string that names the JDK's version
	jdkVersion    string
	stacks        stacks
	threads       map[uint32]threadRec  // by thread serial (pass 2)
	locals        map[uint64][]localRef // by thread object address (pass 2)
	threadIDs     []heap.ObjectID       // thread objects, for their names
}

// work counts what the reader does that could grow faster than its
// input on a hostile dump; the tests check that it grows in proportion.
type work struct {
	resolved int   // classes whose chain was resolved
	located  int   // sub-records parsed to find string values
	hashed   int64 // bytes of string values hashed for digests
}

// span is the place of a UTF8 record's text.
type span struct {
	off int64
	n   uint32
}

// segment is a HEAP_DUMP or HEAP_DUMP_SEGMENT body: sub-records from
// start up to stop (stop < end when the body is damaged).
type segment struct {
	tag         byte
	start, stop int64
	end         int64 // end of the body in the input
	declared    int64 // end of the body as its length says
}

// repeated is a UTF8 or LOAD_CLASS record for an id an earlier record
// had: in a file of several dumps of one JVM, an address the collector
// moved a class to, or a symbol's, may name another one in a later dump.
type repeated struct {
	off  int64
	load bool
	id   uint64 // the UTF8 id, or the class object id
	name uint64 // LOAD_CLASS: the UTF8 id of the name
	text span   // UTF8: its text
}

// dumpRec is one heap dump of the file: a HEAP_DUMP record, or the
// HEAP_DUMP_SEGMENT records up to HEAP_DUMP_END.
type dumpRec struct {
	segs    []segment
	time    time.Time
	ended   bool // segments: HEAP_DUMP_END closed them
	objects int
}

// Read reads an HPROF heap dump of size bytes from r and returns its
// object graph. Every instance, object array, primitive array and class
// (CLASS_DUMP) becomes one object whose address is its HPROF object id;
// the package documentation describes the mapping, the shallow sizes and
// what becomes a warning.
//
// Errors are *[FormatError]s. When the input ends before the last record
// does, the error wraps [io.ErrUnexpectedEOF] and Read also returns the
// graph of the complete sub-records before the cut, which is valid but
// incomplete; on any other error the graph is nil. Read reads r with
// ReaderAt calls at increasing offsets in two passes, through a 1 MiB
// window, and with a few reads elsewhere through a 64 KiB window for
// string values far from their strings; it never holds more of r.
func Read(r io.ReaderAt, size int64) (*heap.Graph, error) {
	return newReader(r, size).read()
}

// readDump reads dump number o.Dump (from 1; 0 for the last) of a file
// that may hold several, as [Read] reads the last, with its edges or
// without (o.SkipEdges).
func readDump(r io.ReaderAt, size int64, o Options) (*heap.Graph, error) {
	rd := newReader(r, size)
	rd.want = o.Dump
	rd.skip = o.SkipEdges
	return rd.read()
}

func newReader(r io.ReaderAt, size int64) *reader {
	return &reader{
		r: r, size: size,
		utf8:         map[uint64]span{},
		names:        map[uint64]string{},
		loadNames:    map[uint64]uint64{},
		classes:      map[uint64]*classInfo{},
		unknownTypes: map[uint64]heap.TypeID{},
		arrayTypes:   map[uint64]heap.TypeID{},
		b:            heap.NewBuilder(heap.ByID),
		hashBudget:   budgetFactor*size + budgetExtra,
	}
}

func (rd *reader) read() (*heap.Graph, error) {
	start, t, err := rd.header()
	if err != nil {
		return nil, err
	}
	rd.c = newCursor(rd.r, rd.size, rd.idSize, windowSize)
	rd.c2 = newCursor(rd.r, rd.size, rd.idSize, 64<<10)
	rd.start = t
	if err := rd.pass1(start); err != nil {
		return nil, err
	}
	if err := rd.choose(); err != nil {
		return nil, err
	}
	if rd.addrs.n == 0 {
		return nil, rd.empty()
	}
	rd.prepare()
	rd.pass2()
	rd.finish()
	rd.nameThreads()
	g, err := rd.b.Build()
	if err != nil {
		return nil, &FormatError{Offset: -1, Err: err}
	}
	if rd.truncated != nil {
		return g, rd.truncated
	}
	return g, nil
}

// header parses the file header and returns the offset of the first
// record and the dump time.
func (rd *reader) header() (int64, time.Time, error) {
	n := int64(maxHeaderLen + 12)
	if n > rd.size {
		n = rd.size
	}
	buf := make([]byte, n)
	if _, err := rd.r.ReadAt(buf, 0); err != nil && err != io.EOF {
		return 0, time.Time{}, &FormatError{Offset: 0, Err: err}
	}
	nul := bytes.IndexByte(buf, 0)
	if nul < 0 || nul > maxHeaderLen {
		if nul < 0 && len(buf) > 0 && len(buf) < maxHeaderLen && bytes.HasPrefix([]byte("JAVA PROFILE 1.0."), buf[:min(len(buf), 17)]) {
			return 0, time.Time{}, &FormatError{Offset: 0, Err: fmt.Errorf("file header: %w", io.ErrUnexpectedEOF)}
		}
		return 0, time.Time{}, &FormatError{Offset: 0, Err: errors.New("not an HPROF file: no version string")}
	}
	rd.version = string(buf[:nul])
	switch rd.version {
	case "JAVA PROFILE 1.0.1", "JAVA PROFILE 1.0.2", "JAVA PROFILE 1.0.3":
	default:
		return 0, time.Time{}, &FormatError{Offset: 0, Err: fmt.Errorf("unsupported version %q", rd.version)}
	}
	p := int64(nul + 1)
	if p+12 > int64(len(buf)) {
		return 0, time.Time{}, &FormatError{Offset: p, Err: fmt.Errorf("file header: %w", io.ErrUnexpectedEOF)}
	}
	b := buf[p:]
	id := int(b[0])<<24 | int(b[1])<<16 | int(b[2])<<8 | int(b[3])
	if id != 4 && id != 8 {
		return 0, time.Time{}, &FormatError{Offset: p, Err: fmt.Errorf("unsupported identifier size %d", id)}
	}
	rd.idSize = id
	rd.android = rd.version == "JAVA PROFILE 1.0.3"
	ms := getID(b[4:], 8)
	return p + 12, time.UnixMilli(int64(ms)).UTC(), nil
}

// name returns the text of UTF8 record id ("" if there is none).
func (rd *reader) name(id uint64) string {
	if s, ok := rd.names[id]; ok {
		return s
	}
	sp, ok := rd.utf8[id]
	if !ok {
		return ""
	}
	n := min(sp.n, 1<<16) // names longer than this are damage; keep a prefix
	buf := make([]byte, n)
	m, _ := rd.r.ReadAt(buf, sp.off)
	s := decodeMUTF8(buf[:m])
	rd.names[id] = s
	return s
}

// empty returns the error for a dump without objects.
func (rd *reader) empty() error {
	what := "the dump has no HEAP_DUMP or HEAP_DUMP_SEGMENT record"
	if len(rd.segs) > 0 {
		what = fmt.Sprintf("its %d heap-dump records hold no object", len(rd.segs))
	}
	if fe, ok := rd.truncated.(*FormatError); ok {
		return &FormatError{Offset: fe.Offset, Record: fe.Record, Err: fmt.Errorf("%w (%s) before the input ends: %w", heap.ErrNoObjects, what, fe.Err)}
	}
	return &FormatError{Offset: rd.size, Err: fmt.Errorf("%w: %s", heap.ErrNoObjects, what)}
}

// pass1 walks the top-level records: it indexes UTF8 records, reads
// LOAD_CLASS records and lists the heap dumps; [reader.choose] then reads
// the CLASS_DUMP records and lists the addresses of the objects of the
// dump that is read. A dump in segments (HEAP_DUMP_SEGMENT) must end them
// with HEAP_DUMP_END, as every HotSpot and Android dump does: without it
// the dump was cut at a record boundary, and Read reports it as cut.
func (rd *reader) pass1(off int64) error {
	c := rd.c
	unknown := map[byte]int{}
	open := false // the last dump is in segments and not closed yet
	for off < rd.size {
		if rd.size-off < recordHeaderBytes {
			rd.truncated = &FormatError{Offset: off, Record: "record", Err: fmt.Errorf("record header: %w", io.ErrUnexpectedEOF)}
			break
		}
		c.seek(off)
		tag := c.u1()
		micros := c.u4()
		length := int64(c.u4())
		if c.err != nil {
			return &FormatError{Offset: off, Record: recordName(tag), Err: c.err}
		}
		body := off + recordHeaderBytes
		end := body + length
		cut := end > rd.size
		if cut {
			rd.truncated = &FormatError{Offset: off, Record: recordName(tag),
				Err: fmt.Errorf("record of %d bytes ends past the end of the input at %#x: %w", length, rd.size, io.ErrUnexpectedEOF)}
			end = rd.size
		}
		switch tag {
		case tagUTF8:
			if length < int64(rd.idSize) {
				rd.b.Warn(off, "UTF8: record of %d bytes is too short; skipped", length)
				break
			}
			if !cut {
				id := c.id()
				sp := span{body + int64(rd.idSize), uint32(length - int64(rd.idSize))}
				if _, dup := rd.utf8[id]; !dup {
					rd.utf8[id] = sp
				} else {
					rd.again = append(rd.again, repeated{off: off, id: id, text: sp})
				}
			}
		case tagLoadClass:
			if length < int64(2*rd.idSize+8) {
				rd.b.Warn(off, "LOAD_CLASS: record of %d bytes is too short; skipped", length)
				break
			}
			if !cut {
				serial := c.u4()
				obj := c.id()
				c.u4()
				name := c.id()
				rd.stacks.classAt(serial, name)
				if _, dup := rd.loadNames[obj]; !dup {
					rd.loadNames[obj] = name
				} else {
					rd.again = append(rd.again, repeated{off: off, load: true, id: obj, name: name})
				}
			}
		case tagHeapDump, tagHeapDumpSeg:
			s := segment{tag: tag, start: body, stop: end, end: end, declared: body + length}
			if tag == tagHeapDump || !open {
				rd.dumps = append(rd.dumps, dumpRec{time: rd.start.Add(time.Duration(micros) * time.Microsecond)})
			}
			d := &rd.dumps[len(rd.dumps)-1]
			d.segs = append(d.segs, s)
			open = tag == tagHeapDumpSeg
		case tagHeapDumpEnd:
			if open {
				rd.dumps[len(rd.dumps)-1].ended = true
			}
			open = false
		case tagFrame, tagTrace:
			if !cut {
				rd.stackRecord(tag, off, length)
			}
		case tagUnloadClass, tagAllocSites, tagHeapSummary,
			tagStartThread, tagEndThread, tagCPUSamples, tagControl:
		default:
			if unknown[tag] == 0 {
				rd.b.Warn(off, "unknown record tag %#02x (%d bytes); skipped", tag, length)
			}
			unknown[tag]++
		}
		if cut {
			break
		}
		off = end
	}
	for tag, n := range unknown {
		if n > 1 {
			rd.b.Warn(-1, "%d records with unknown tag %#02x skipped in all", n, tag)
		}
	}
	if open && rd.truncated == nil {
		d := rd.dumps[len(rd.dumps)-1]
		rd.truncated = &FormatError{Offset: rd.size,
			Err: fmt.Errorf("no HEAP_DUMP_END after the HEAP_DUMP_SEGMENT at %#x: the dump is cut short: %w", d.segs[len(d.segs)-1].start-recordHeaderBytes, io.ErrUnexpectedEOF)}
	}
	return nil
}

// ErrNoSuchDump is wrapped by the error for a dump number the file does
// not have.
var ErrNoSuchDump = errors.New("no such heap dump")

// choose chooses the dump to read, the last unless told otherwise: of
// the dumps a program asked for one after another, the last shows the
// latest state. Pass 1 walks its bodies; the other dumps' objects are
// only counted.
func (rd *reader) choose() error {
	if len(rd.dumps) == 0 {
		return nil
	}
	rd.chosen = len(rd.dumps) - 1
	if rd.want > 0 {
		if rd.want > len(rd.dumps) {
			return fmt.Errorf("%w: the file holds %d, and there is no dump %d", ErrNoSuchDump, len(rd.dumps), rd.want)
		}
		rd.chosen = rd.want - 1
	}
	// Names as they were when the dump was written: the last record for
	// an id before the dump's end.
	end := rd.dumps[rd.chosen].segs[len(rd.dumps[rd.chosen].segs)-1].end
	for _, a := range rd.again {
		switch {
		case a.off > end:
		case a.load:
			rd.loadNames[a.id] = a.name
		default:
			rd.utf8[a.id] = a.text
		}
	}
	rd.again = nil
	if rd.chosen != len(rd.dumps)-1 && rd.truncated != nil {
		// The input ends after the dump that is read: that one is whole.
		rd.b.WarnSummary(-1, "the file is cut short after heap dump %d (%v); dump %d, which is read, is whole", rd.chosen+1, rd.truncated, rd.chosen+1)
		rd.truncated = nil
	}
	for i := range rd.dumps {
		d := &rd.dumps[i]
		if i != rd.chosen {
			if len(rd.dumps) > 1 {
				rd.counted = 0
				for j := range d.segs {
					rd.subRecords(&d.segs[j], 0)
				}
				d.objects = rd.counted
			}
			continue
		}
		rd.segs = d.segs
		for j := range rd.segs {
			rd.curSeg = j
			rd.segs[j].stop = rd.subRecords(&rd.segs[j], 1)
		}
		d.objects = rd.addrs.n
	}
	return nil
}

// prepare runs between the passes: it chooses the size model, indexes the
// addresses and resolves class names.
func (rd *reader) prepare() {
	rd.nobj = rd.addrs.n
	rd.idx = newAddrIndex(&rd.addrs)
	rd.addrs = addrList{}
	if rd.idx.dups > 0 {
		rd.b.WarnSummary(-1, "%d objects share an id with an earlier object; references go to the first", rd.idx.dups)
	}
	if rd.skip {
		rd.nedges = 0 // pass 1 did not count them: few are kept
		rd.b.SkipEdges()
	}
	rd.b.Grow(rd.nobj, rd.nedges)
	// Every instance and object array has an internal edge "<class>" to
	// its class, the reference every object's header holds (Eclipse MAT
	// has it too): an object alive keeps its class, its loader and the
	// loader's classes with their statics alive. Primitive arrays name no
	// class in HPROF, and get none.
	rd.classLabel = heap.NamedLabel(heap.Internal, rd.b.String("<class>"))
	// Room for a label and a digest per string: appending 3.5M of them to
	// empty columns costs 0.3 s and 400 MB of garbage on a 1 GB dump.
	rd.b.GrowValues(rd.nstrings)
	for _, c := range rd.classes {
		c.name = rd.className(c.id)
		if c.name == "" {
			c.name = fmt.Sprintf("<unknown class %#x>", c.id)
		}
	}
	rd.unresolve()
	rd.model, rd.modelFrom = rd.chooseModel()
	rd.layouts = map[*classInfo]*fieldLayout{}
	rd.samples = sampler{}
	rd.classType_ = rd.b.Type("java.lang.Class")
	for _, c := range rd.classes {
		if len(c.name) == 2 && c.name[0] == '[' {
			for et, n := range primNames {
				if n != "" && primDescriptor(c.name[1]) == n {
					rd.primClasses[et] = c.id
				}
			}
		}
	}
	rd.classSize = alignUp(uint64(rd.model.header), uint64(rd.model.align))
	for _, c := range rd.classes {
		if c.name == "java/lang/Class" {
			rd.classSize = rd.instanceSize(c)
			break
		}
	}
}

// pass2 walks the heap-dump records again and emits objects, edges and
// roots; ObjectIDs follow the order of pass 1.
func (rd *reader) pass2() {
	for i := range rd.segs {
		rd.subRecords(&rd.segs[i], 2)
	}
	if rd.b.NumObjects() != rd.nobj {
		// Cannot happen: both passes stop at the same offsets.
		rd.b.Warn(-1, "internal error: pass 2 found %d objects, pass 1 %d", rd.b.NumObjects(), rd.nobj)
	}
	rd.idx = nil
}

// missingCause says why a dump of this JDK refers to objects it does not
// hold, when its JDK leaves some out on purpose: JDK 12+ dumps leave out
// the objects of the class data sharing archive that no loaded class
// uses yet (on by default since JDK 12), JDK 6 and 7 dumps the objects of
// the permanent generation (class metadata, interned strings of JDK 6).
// Other JDKs dump every object they refer to: "" (damage).
func (rd *reader) missingCause() string {
	major := 0
	if v := rd.jdkVersion; v != "" {
		if strings.HasPrefix(v, "1.") { // 1.6.0_45, 1.8.0_392
			v = v[2:]
		}
		for _, c := range v {
			if c < '0' || c > '9' {
				break
			}
			major = major*10 + int(c-'0')
		}
	}
	switch {
	case major >= 12:
		return fmt.Sprintf(": JDK %d leaves the objects of its class data sharing archive that no loaded class uses out of dumps (-Xshare:off avoids them)", major)
	case (major > 0 && major <= 7) || (major == 0 && rd.model.era == era7):
		return ": JDK 6 and 7 leave the objects of the permanent generation (class metadata, interned strings) out of dumps"
	}
	return ""
}

// finish records warnings that summarize damage and the metadata.
func (rd *reader) finish() {
	t := rd.start
	var dumps []heap.Dump
	if len(rd.dumps) > 0 {
		t = rd.dumps[rd.chosen].time
	}
	if len(rd.dumps) > 1 {
		for i, d := range rd.dumps {
			dumps = append(dumps, heap.Dump{Number: i + 1, Objects: d.objects, Time: d.time, Read: i == rd.chosen})
		}
	}
	cause := rd.missingCause()
	if rd.dangling > 0 {
		rd.b.WarnSummary(-1, "%d references point to no object in the dump (first: %#x, from object %#x); they were dropped%s",
			rd.dangling, rd.firstDangling, rd.danglingFrom, cause)
	}
	if rd.lostRoots > 0 {
		rd.b.WarnSummary(-1, "%d roots point to no object in the dump; they were dropped%s", rd.lostRoots, cause)
	}
	if rd.noClass > 0 {
		rd.b.WarnSummary(rd.noClassOff, "%d instances of classes without a CLASS_DUMP; their fields were not decoded", rd.noClass)
	}
	if rd.badFields > 0 {
		rd.b.WarnSummary(rd.badFieldsOff, "%d instances whose field data disagrees with their class's fields; their fields were not decoded", rd.badFields)
	}
	if rd.undigested > 0 {
		rd.b.WarnSummary(-1, "%d strings (first: %#x) have no digest: their values hold more characters than the reader hashes for a dump of this size; duplicate detection misses them",
			rd.undigested, rd.undigestedAt)
	}
	align := strconv.Itoa(rd.model.align)
	rd.b.SetMeta(heap.Meta{
		Runtime: "java",
		Version: rd.jdkVersion,
		Dumps:   dumps,
		Attrs: map[string]string{
			"format":           rd.version,
			"identifier size":  strconv.Itoa(rd.idSize),
			"dump time":        t.Format(time.RFC3339),
			"reference size":   strconv.Itoa(rd.model.ref),
			"object header":    strconv.Itoa(rd.model.header),
			"object alignment": align,
			"layout":           rd.model.describe(rd.modelFrom),
		},
	})
}
