// Package pysnap reads and writes the Python snapshot format that
// heapscope's Python agent writes. docs/pysnap-format.md in the repository
// is the specification; this package follows it byte for byte.
//
// The reader trusts nothing: every count and length is checked against
// the bytes that remain before anything is allocated, and every problem is
// reported as a [*FormatError] that names the byte offset. A file without
// a valid END trailer, or whose checksum disagrees, is rejected: the
// trailer counts the objects, edges and sections before it and carries a
// CRC-32 of every byte, so a file cut at a section boundary is caught
// too. A whole file without objects is an error that wraps
// [heap.ErrNoObjects].
package pysnap

import (
	"bufio"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"hash"
	"hash/crc32"
	"io"
	"slices"
	"sort"
	"strconv"

	"github.com/heapscope/heapscope/heap"
	"github.com/heapscope/heapscope/internal/input"
)

// Magic is the first 8 bytes of every snapshot.
const Magic = "HSPYSNAP"

// Version is the format version this package writes and reads.
const (
	VersionMajor = 1
	VersionMinor = 3
)

// Section kinds.
const (
	secMeta     = 1
	secStrings  = 2
	secTypes    = 3
	secObjects  = 4
	secRoots    = 5
	secValues   = 6
	secWarnings = 7
	secDigests  = 8
	secSites    = 9
	secObjSites = 10
	secOmitted  = 11
	secLimits   = 12 // 1.3
	secEnd      = 0x7FFFFFFF
)

// Object flags as the file writes them (docs/pysnap-format.md);
// objectFlags maps them onto heap.Flags.
const (
	fileTracked   = 1
	fileImmortal  = 2
	fileOpaque    = 4
	fileSynthetic = 8
	fileInterned  = 16
	fileWhole     = 32 // 1.2
)

// fileFlags pairs each flag bit of the format with its heap flag.
var fileFlags = [...]struct {
	bit  int
	flag heap.Flags
}{{fileTracked, heap.FlagGCTracked}, {fileImmortal, heap.FlagImmortal}, {fileOpaque, heap.FlagOpaque},
	{fileSynthetic, heap.FlagSynthetic}, {fileInterned, heap.FlagInterned}, {fileWhole, heap.FlagWhole}}

// objectFlags maps an object's flags byte to its heap flags; bits the
// format does not define are ignored.
var objectFlags = func() (t [256]heap.Flags) {
	for b := range t {
		for _, m := range fileFlags {
			if b&m.bit != 0 {
				t[b] |= m.flag
			}
		}
	}
	return t
}()

// flagsByte is the flags byte that stands for heap flags f; heap flags
// the format has no bit for are left out.
func flagsByte(f heap.Flags) byte {
	var b byte
	for _, m := range fileFlags {
		if f&m.flag != 0 {
			b |= byte(m.bit)
		}
	}
	return b
}

const (
	headerSize  = 16
	sectionHead = 16
	endSize     = 32
	endMagic    = "HEND"
)

var sectionNames = map[uint32]string{
	secMeta: "META", secStrings: "STRINGS", secTypes: "TYPES", secObjects: "OBJECTS",
	secRoots: "ROOTS", secValues: "VALUES", secWarnings: "WARNINGS", secDigests: "DIGESTS",
	secSites: "SITES", secObjSites: "OBJECT_SITES", secOmitted: "OMITTED", secLimits: "LIMITS", secEnd: "END",
}

func sectionName(k uint32) string {
	if n, ok := sectionNames[k]; ok {
		return n
	}
	return "section " + strconv.FormatUint(uint64(k), 10)
}

// FormatError reports malformed input: where it is and what was expected.
type FormatError struct {
	Offset  int64  // byte offset of the problem
	Section string // the section being read ("header" before any)
	Err     error
}

func (e *FormatError) Error() string {
	return fmt.Sprintf("pysnap: %s at offset %d: %v", e.Section, e.Offset, e.Err)
}

func (e *FormatError) Unwrap() error { return e.Err }

// ErrFormat means the input is not a Python snapshot at all.
var ErrFormat = errors.New("pysnap: not a heapscope Python snapshot")

// Match reports whether prefix starts like a Python snapshot.
func Match(prefix []byte) bool {
	return len(prefix) >= len(Magic) && string(prefix[:len(Magic)]) == Magic
}

// Open reads the snapshot in the named file, which must be a regular
// file: Open refuses a named pipe (without waiting for a writer), which
// heapfile.Open reads.
func Open(name string) (*heap.Graph, error) {
	f, st, err := input.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if !st.Mode().IsRegular() {
		return nil, input.NotRegular(name, st)
	}
	return Read(f, st.Size())
}

// Options tunes reading. The zero value reads everything.
type Options struct {
	// SkipEdges leaves the references out (see
	// [heap.Graph.EdgesSkipped]) but for those that name classes,
	// functions and modules: enough for a summary or a diff, in a
	// fraction of the time and memory.
	SkipEdges bool
}

// reader walks the file section by section and checksums what it reads.
type reader struct {
	r     *bufio.Reader
	off   int64 // offset of the next unread byte
	size  int64
	crc   hash.Hash32
	sec   string
	b     *heap.Builder
	strs  []heap.StringID // file string index -> graph string
	text  []string        // file string index -> text
	types []heap.TypeID   // file type index -> graph type
	named []bool          // file type index -> every edge names its objects (lruWrapper); with skip
	buf   []byte

	objects, edges uint64
	badKinds       int

	skip   bool   // Options.SkipEdges
	naming []bool // file string index -> an edge of that name names objects (see namer); with skip

	chunkAddrs []byte        // addresses of the latest OBJECTS section
	chunkFirst heap.ObjectID // the ID of its first object
	matched    int           // objects the chunk matchers stepped over, for tests
}

func (rd *reader) errorf(off int64, format string, args ...any) error {
	return &FormatError{Offset: off, Section: rd.sec, Err: fmt.Errorf(format, args...)}
}

// read reads exactly n bytes into a reused buffer and checksums them.
// The caller has checked that n fits in what remains.
func (rd *reader) read(n int64) ([]byte, error) {
	if n > rd.size-rd.off {
		return nil, rd.errorf(rd.off, "need %d bytes, %d remain: %w", n, rd.size-rd.off, io.ErrUnexpectedEOF)
	}
	if int64(cap(rd.buf)) < n {
		rd.buf = make([]byte, n)
	}
	p := rd.buf[:n]
	if _, err := io.ReadFull(rd.r, p); err != nil {
		if err == io.EOF {
			err = io.ErrUnexpectedEOF
		}
		return nil, rd.errorf(rd.off, "read: %w", err)
	}
	rd.crc.Write(p)
	rd.off += n
	return p, nil
}

// Read reads a snapshot of the given size from r.
func Read(r io.ReaderAt, size int64) (*heap.Graph, error) {
	return Options{}.Read(r, size)
}

// Read reads a snapshot of the given size from r with options o.
func (o Options) Read(r io.ReaderAt, size int64) (*heap.Graph, error) {
	rd := newReader(r, size)
	rd.skip = o.SkipEdges
	return rd.readAll(r)
}

func newReader(r io.ReaderAt, size int64) *reader {
	return &reader{
		r:      bufio.NewReaderSize(io.NewSectionReader(r, 0, size), int(min(max(size, 16), 1<<20))),
		size:   size,
		crc:    crc32.NewIEEE(),
		sec:    "header",
		b:      heap.NewBuilder(heap.ByAddress),
		strs:   []heap.StringID{0},
		text:   []string{""},
		naming: []bool{false},
	}
}

func (rd *reader) readAll(r io.ReaderAt) (*heap.Graph, error) {
	size := rd.size
	if size < headerSize {
		if size >= int64(len(Magic)) {
			var p [8]byte
			if _, err := r.ReadAt(p[:], 0); err == nil && !Match(p[:]) {
				return nil, ErrFormat
			}
		}
		return nil, rd.errorf(0, "file has %d bytes, shorter than the %d-byte header: %w", size, headerSize, io.ErrUnexpectedEOF)
	}
	h, err := rd.read(headerSize)
	if err != nil {
		return nil, err
	}
	if !Match(h) {
		return nil, ErrFormat
	}
	major, minor := binary.LittleEndian.Uint16(h[8:]), binary.LittleEndian.Uint16(h[10:])
	if major != VersionMajor {
		return nil, rd.errorf(8, "format version %d.%d, this reader knows %d.x", major, minor, VersionMajor)
	}
	rd.presize(r)
	nsections := uint64(0)
	for {
		start := rd.off
		rd.sec = "section header"
		if rd.size-rd.off < sectionHead {
			return nil, rd.errorf(rd.off, "no END trailer: the file is truncated: %w", io.ErrUnexpectedEOF)
		}
		crcBefore := rd.crc.Sum32()
		sh, err := rd.read(sectionHead)
		if err != nil {
			return nil, err
		}
		kind := binary.LittleEndian.Uint32(sh)
		count := binary.LittleEndian.Uint32(sh[4:])
		length := binary.LittleEndian.Uint64(sh[8:])
		rd.sec = sectionName(kind)
		if length > uint64(rd.size-rd.off) {
			return nil, rd.errorf(start, "payload of %d bytes, only %d remain: %w", length, rd.size-rd.off, io.ErrUnexpectedEOF)
		}
		if kind == secEnd {
			return rd.finish(start, count, int64(length), nsections, crcBefore)
		}
		nsections++
		payloadOff := rd.off
		p, err := rd.read(int64(length))
		if err != nil {
			return nil, err
		}
		if err := rd.section(kind, count, p, payloadOff); err != nil {
			return nil, err
		}
	}
}

// presize walks the section headers (16 bytes each) to count the objects
// and edges the file announces, so the builder allocates once. It trusts
// nothing it reads: counts are capped by what the payload lengths allow,
// and any inconsistency just ends the walk; the real pass reports it.
func (rd *reader) presize(r io.ReaderAt) {
	var n, m, nv, vbytes, nd int64
	off := int64(headerSize)
	var sh [sectionHead]byte
	for off+sectionHead <= rd.size {
		if _, err := r.ReadAt(sh[:], off); err != nil {
			break
		}
		kind := binary.LittleEndian.Uint32(sh[:])
		count := int64(binary.LittleEndian.Uint32(sh[4:]))
		length := binary.LittleEndian.Uint64(sh[8:])
		if kind == secEnd || length > uint64(rd.size-off-sectionHead) {
			break
		}
		switch {
		case kind == secObjects && objectsFixed(uint64(count)) <= length:
			n += count
			m += int64(length-objectsFixed(uint64(count))) / 12
		case kind == secValues && count*12 <= int64(length):
			nv += count
			vbytes += int64(length) - count*12
		case kind == secDigests && count*16 == int64(length):
			nd += count
		}
		off += sectionHead + int64(length)
	}
	if rd.skip {
		m = 0
	}
	rd.b.Grow(int(n), int(m))
	rd.b.GrowValues(int(max(nv, nd)))
	rd.b.GrowValuesAt(int(max(nv, nd))/16, int(vbytes)/16)
}

func (rd *reader) section(kind, count uint32, p []byte, off int64) error {
	switch kind {
	case secMeta:
		return rd.meta(p, off)
	case secStrings:
		return rd.stringsSection(count, p, off)
	case secTypes:
		return rd.typesSection(count, p, off)
	case secObjects:
		return rd.objectsSection(count, p, off)
	case secRoots:
		return rd.rootsSection(count, p, off)
	case secOmitted:
		return rd.omittedSection(count, p, off)
	case secValues:
		return rd.valuesSection(count, p, off)
	case secWarnings:
		return rd.warningsSection(count, p, off)
	case secDigests:
		return rd.digestsSection(count, p, off)
	case secSites:
		return rd.sitesSection(count, p, off)
	case secObjSites:
		return rd.objectSitesSection(count, p, off)
	case secLimits:
		return rd.limitsSection(count, p, off)
	}
	rd.b.Warn(off-sectionHead, "skipped %s of %d bytes: unknown kind", rd.sec, len(p))
	return nil
}

func (rd *reader) finish(start int64, count uint32, length int64, nsections uint64, crc uint32) (*heap.Graph, error) {
	if length != endSize || count != 0 {
		return nil, rd.errorf(start, "END has count %d and %d bytes, want 0 and %d", count, length, endSize)
	}
	p, err := rd.read(endSize)
	if err != nil {
		return nil, err
	}
	if string(p[28:32]) != endMagic {
		return nil, rd.errorf(start+sectionHead+28, "END magic %q, want %q", p[28:32], endMagic)
	}
	if got := binary.LittleEndian.Uint32(p[24:]); got != crc {
		return nil, rd.errorf(start+sectionHead+24, "checksum %#08x, the file's bytes give %#08x: the file is corrupt", got, crc)
	}
	if n := binary.LittleEndian.Uint64(p[0:]); n != rd.objects {
		return nil, rd.errorf(start+sectionHead, "END counts %d objects, the sections hold %d", n, rd.objects)
	}
	if m := binary.LittleEndian.Uint64(p[8:]); m != rd.edges {
		return nil, rd.errorf(start+sectionHead+8, "END counts %d edges, the sections hold %d", m, rd.edges)
	}
	if s := binary.LittleEndian.Uint64(p[16:]); s != nsections {
		return nil, rd.errorf(start+sectionHead+16, "END counts %d sections, the file holds %d", s, nsections)
	}
	if rd.objects == 0 {
		return nil, rd.errorf(start, "%w: the snapshot has no OBJECTS section with an object", heap.ErrNoObjects)
	}
	if rd.off != rd.size {
		rd.b.Warn(rd.off, "%d bytes after the END trailer ignored", rd.size-rd.off)
	}
	if rd.badKinds > 0 {
		rd.b.Warn(-1, "%d edges had an unknown kind and were read as strong", rd.badKinds)
	}
	if rd.skip && rd.edges > 0 {
		rd.b.SkipEdges()
	}
	if rd.edges > 0 {
		// Every name comes from an object's references: a census,
		// which has none, has no names either.
		rd.b.SetNamer(newNamer().name)
	}
	return rd.b.Build()
}

// pad8 rounds n up to a multiple of 8.
func pad8(n uint64) uint64 { return (n + 7) &^ 7 }

// lengthPrefixed splits p into count (u32 length, bytes) records.
func (rd *reader) lengthPrefixed(count uint32, p []byte, off int64, fn func(i int, s []byte)) error {
	if uint64(count)*4 > uint64(len(p)) {
		return rd.errorf(off, "%d records cannot fit in %d bytes", count, len(p))
	}
	pos := 0
	for i := 0; i < int(count); i++ {
		if len(p)-pos < 4 {
			return rd.errorf(off+int64(pos), "record %d: length overruns the section", i)
		}
		n := binary.LittleEndian.Uint32(p[pos:])
		pos += 4
		if uint64(n) > uint64(len(p)-pos) {
			return rd.errorf(off+int64(pos-4), "record %d: %d bytes, %d remain in the section", i, n, len(p)-pos)
		}
		fn(i, p[pos:pos+int(n)])
		pos += int(n)
	}
	if pos != len(p) {
		return rd.errorf(off+int64(pos), "%d bytes left over after %d records", len(p)-pos, count)
	}
	return nil
}

func (rd *reader) meta(p []byte, off int64) error {
	var m map[string]any
	if err := json.Unmarshal(p, &m); err != nil {
		return rd.errorf(off, "bad JSON: %v", err)
	}
	meta := heap.Meta{Runtime: "python", Attrs: map[string]string{}}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		var s string
		switch v := m[k].(type) {
		case string:
			s = v
		default:
			b, _ := json.Marshal(v)
			s = string(b)
		}
		switch k {
		case "runtime":
			meta.Runtime = s
		case "python_version":
			meta.Version = s
		}
		meta.Attrs[k] = s
	}
	rd.b.SetMeta(meta)
	return nil
}

func (rd *reader) stringsSection(count uint32, p []byte, off int64) error {
	if uint64(len(rd.strs))+uint64(count) > heap.MaxNames {
		return rd.errorf(off, "more than %d strings", heap.MaxNames)
	}
	if uint64(count)*4 > uint64(len(p)) {
		// Before the tables grow by count.
		return rd.errorf(off, "%d strings cannot fit in %d bytes", count, len(p))
	}
	rd.strs = slices.Grow(rd.strs, int(count))
	rd.text = slices.Grow(rd.text, int(count))
	return rd.lengthPrefixed(count, p, off, func(_ int, s []byte) {
		t := string(s)
		rd.text = append(rd.text, t)
		if rd.skip {
			// Most names label the edges left out: each is interned
			// when first used (see intern).
			rd.strs = append(rd.strs, notInterned)
			rd.naming = append(rd.naming, nameKinds[t] != nkOther)
			return
		}
		rd.strs = append(rd.strs, rd.b.String(t))
	})
}

// notInterned marks a file string the builder has not interned yet.
const notInterned = ^heap.StringID(0)

// intern returns the graph's ID of file string i, which exists.
func (rd *reader) intern(i uint32) heap.StringID {
	if rd.strs[i] == notInterned {
		rd.strs[i] = rd.b.String(rd.text[i])
	}
	return rd.strs[i]
}

func (rd *reader) str(i uint32, off int64, what string) (heap.StringID, error) {
	if int(i) >= len(rd.strs) {
		return 0, rd.errorf(off, "%s names string %d, only %d defined so far", what, i, len(rd.strs))
	}
	return rd.intern(i), nil
}

func (rd *reader) typesSection(count uint32, p []byte, off int64) error {
	if uint64(len(p)) != uint64(count)*12 {
		return rd.errorf(off, "%d types need %d bytes, the section has %d", count, uint64(count)*12, len(p))
	}
	for i := 0; i < int(count); i++ {
		si := binary.LittleEndian.Uint32(p[i*12+8:])
		if _, err := rd.str(si, off+int64(i*12+8), "type "+strconv.Itoa(len(rd.types))); err != nil {
			return err
		}
		name := rd.text[si]
		if name == "" {
			name = "?"
		}
		rd.types = append(rd.types, rd.b.Type(name))
		rd.named = append(rd.named, name == lruWrapper)
	}
	return nil
}
