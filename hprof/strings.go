package hprof

import (
	"sort"
	"strings"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/heapscope/heapscope/heap"
)

// labelChars is how many characters of a java.lang.String its value
// label keeps.
const labelChars = 64

// labelBytes bounds the bytes of a label: labelChars characters of at
// most 4 bytes of UTF-8 each.
const labelBytes = 4 * labelChars

// labelArena is the size of the blocks that hold the labels' bytes.
const labelArena = 1 << 20

// ringSize is how many of the last byte[] and char[] arrays of pass 2
// the reader remembers, for strings whose value array came just before
// them.
const ringSize = 16

// arrayLoc is where a byte[] or char[] array's elements are in the input.
type arrayLoc struct {
	off  int64 // element data offset
	id   heap.ObjectID
	n    uint32
	char bool
}

// stringRef is what a java.lang.String's fields say about its characters.
type stringRef struct {
	coder        int8  // 0 Latin-1, 1 UTF-16, -1 the class has no coder field
	start, count int32 // char range of old (JDK 6) strings, -1 when absent
}

// stringInstance gives java.lang.String id, whose field data is data, a
// value label and a digest, in pass 2, when its value array is a byte[]
// or char[] in the dump. HotSpot writes a string's value array mostly
// right after the string (a copying collector moves them together), else
// shortly before it: the cursor's window has the array then, and the
// label is emitted at once, in object order. Else the array is found from
// the pass-1 checkpoints (see [reader.locate]) and read on its own.
func (rd *reader) stringInstance(id heap.ObjectID, data []byte, s *stringSlots) {
	v := getID(data[s.value:], rd.idSize)
	if v == 0 {
		return
	}
	arr, ok := rd.idx.lookup(v)
	if !ok {
		return
	}
	p := stringRef{coder: -1, start: -1, count: -1}
	if s.coder >= 0 {
		p.coder = int8(data[s.coder])
	}
	if s.offset >= 0 && s.count >= 0 {
		p.start = int32(getID(data[s.offset:], 4))
		p.count = int32(getID(data[s.count:], 4))
	}
	// data is dead from here on: the cursor may move its window.
	a := heap.ObjectID(arr)
	if a == id+1 {
		if loc, b, ok := rd.peekArray(v); ok {
			loc.id = a
			rd.stringFrom(id, loc, p, b)
			return
		}
	} else if a < id {
		for i := range rd.ring {
			if loc := rd.ring[i]; loc.off != 0 && loc.id == a {
				if b := rd.c.window(loc.off, int64(loc.n)*loc.elem()); b != nil {
					rd.stringFrom(id, loc, p, b)
					return
				}
				break
			}
		}
	}
	loc, ok := rd.locate(uint32(a))
	if !ok {
		return
	}
	rd.stringFrom(id, loc, p, nil)
}

func (a arrayLoc) elem() int64 {
	if a.char {
		return 2
	}
	return 1
}

// remember notes a byte[] or char[] of pass 2 in the ring.
func (rd *reader) remember(loc arrayLoc) {
	rd.ring[rd.ringNext] = loc
	rd.ringNext = (rd.ringNext + 1) % ringSize
}

// peekArray returns the element data of the sub-record that follows in
// the current segment when it is the PRIM_ARRAY_DUMP of a byte[] or
// char[] at address addr that fits the cursor's window.
func (rd *reader) peekArray(addr uint64) (arrayLoc, []byte, bool) {
	c := rd.c
	I := rd.idSize
	hdr := int64(1 + I + 9)
	if rd.stop-c.off() < hdr {
		return arrayLoc{}, nil, false
	}
	h := c.peek(int(hdr))
	if h == nil || h[0] != subPrimArrayDump || getID(h[1:], I) != addr {
		return arrayLoc{}, nil, false
	}
	n := uint32(getID(h[1+I+4:], 4))
	et := h[1+I+8]
	if et != typeByte && et != typeChar {
		return arrayLoc{}, nil, false
	}
	loc := arrayLoc{off: c.off() + hdr, n: n, char: et == typeChar}
	total := int64(n) * loc.elem()
	if total > int64(c.win)-hdr || rd.stop-loc.off < total {
		return arrayLoc{}, nil, false
	}
	b := c.peek(int(hdr + total))
	if b == nil {
		return arrayLoc{}, nil, false
	}
	return loc, b[hdr:], true
}

// Digests of long values are remembered by value array, so that strings
// sharing one (string deduplication, substrings of JDK 6) do not hash it
// again; and all hashing stops at a budget in proportion to the input,
// past which strings get a label but no digest (with a warning), so that
// no dump makes the reader hash more than a few times its size.
const (
	memoFrom     = 1 << 10  // bytes of a value whose digest is remembered
	budgetFactor = 4        // hashing budget: budgetFactor times the input...
	budgetExtra  = 64 << 20 // ...and this many bytes
)

// digestMemo is the digest of a range of a value array.
type digestMemo struct {
	first, n int64
	coder    int8
	h        uint64
}

// stringFrom computes the label and digest of string obj whose value
// array is at loc, from b (the array's element data) or, when b is nil,
// from the input, and emits them.
func (rd *reader) stringFrom(obj heap.ObjectID, loc arrayLoc, p stringRef, b []byte) {
	coder := p.coder
	es := int64(1)
	first, n := int64(0), int64(loc.n)
	if loc.char {
		coder, es = 1, 2
		if p.start >= 0 && p.count >= 0 && int64(p.start) <= n {
			first = int64(p.start)
			n = min(int64(p.count), n-first)
		}
	} else if coder != 1 {
		coder = 0
	}
	total := n * es
	// Digest: FNV-1a 64.
	const prime = 1099511628211
	h := uint64(14695981039346656037)
	h = (h ^ uint64(uint8(coder))) * prime
	hashing, digest := true, true
	key := digestMemo{first: first, n: n, coder: coder}
	if total >= memoFrom || rd.work.hashed+total > rd.hashBudget {
		h, hashing, digest = rd.knownDigest(loc.id, key, total, h)
	}
	if b != nil {
		b = b[first*es : first*es+total]
		if hashing {
			for _, x := range b {
				h = (h ^ uint64(x)) * prime
			}
		}
		rd.scratch = appendChars(rd.scratch[:0], b[:min(total, 2*labelChars+2)], coder == 1, loc.char)
	} else {
		c := rd.c2
		c.err = nil
		c.seek(loc.off + first*es)
		left := total
		if !hashing {
			left = min(total, 2*labelChars+2)
		}
		rd.scratch = rd.scratch[:0]
		for head := true; left > 0; head = false {
			b := c.chunk(left)
			if b == nil {
				return
			}
			if head {
				rd.scratch = appendChars(rd.scratch, b[:min(int64(len(b)), 2*labelChars+2)], coder == 1, loc.char)
			}
			left -= int64(len(b))
			if hashing {
				for _, x := range b {
					h = (h ^ uint64(x)) * prime
				}
			}
		}
	}
	if hashing {
		rd.work.hashed += total
		if total >= memoFrom {
			rd.rememberDigest(loc.id, key, h)
		}
	}
	rd.emitString(obj, rd.scratch, h, digest)
}

// knownDigest is the rare path of stringFrom, for a long value or past
// the budget: it returns the remembered digest of value array arr's
// range key, or h and whether to hash, and whether the string gets a
// digest at all.
func (rd *reader) knownDigest(arr heap.ObjectID, key digestMemo, total int64, h uint64) (uint64, bool, bool) {
	if m, ok := rd.digests[arr]; ok && m.first == key.first && m.n == key.n && m.coder == key.coder {
		return m.h, false, true
	}
	if rd.work.hashed+total > rd.hashBudget {
		if rd.undigested == 0 {
			rd.undigestedAt = rd.strAddr
		}
		rd.undigested++
		return h, false, false
	}
	return h, true, true
}

// rememberDigest remembers the digest h of value array arr's range key.
func (rd *reader) rememberDigest(arr heap.ObjectID, key digestMemo, h uint64) {
	if rd.digests == nil {
		rd.digests = map[heap.ObjectID]digestMemo{}
	}
	key.h = h
	rd.digests[arr] = key
}

// emitString gives obj its label and digest. Labels are cut from big
// shared blocks, not allocated one by one.
func (rd *reader) emitString(obj heap.ObjectID, label []byte, digest uint64, hasDigest bool) {
	if rd.labels.Cap()-rd.labels.Len() < len(label) {
		rd.labels = strings.Builder{}
		rd.labels.Grow(labelArena)
	}
	start := rd.labels.Len()
	rd.labels.Write(label)
	rd.b.SetValue(obj, rd.labels.String()[start:])
	if rd.strAddr == rd.versionAddr && rd.versionAddr != 0 {
		rd.jdkVersion = string(label)
	}
	if hasDigest {
		rd.b.SetDigest(obj, digest)
	}
}

// appendChars appends to dst up to labelChars characters decoded from b,
// as UTF-8: Latin-1 when !wide, else UTF-16 (big-endian if be, else
// little-endian, the byte order of x86 and ARM JVMs for compact strings'
// byte[] values).
func appendChars(dst, b []byte, wide, be bool) []byte {
	if !wide {
		b = b[:min(len(b), labelChars)]
		for _, x := range b {
			if x < utf8.RuneSelf {
				dst = append(dst, x)
			} else {
				dst = utf8.AppendRune(dst, rune(x))
			}
		}
		return dst
	}
	n := 0
	u := func(i int) rune {
		if be {
			return rune(uint16(b[i])<<8 | uint16(b[i+1]))
		}
		return rune(uint16(b[i+1])<<8 | uint16(b[i]))
	}
	for i := 0; i+1 < len(b) && n < labelChars; i += 2 {
		r := u(i)
		if utf16.IsSurrogate(r) {
			if i+3 < len(b) {
				if d := utf16.DecodeRune(r, u(i+2)); d != utf8.RuneError {
					r = d
					i += 2
				} else {
					r = utf8.RuneError
				}
			} else {
				r = utf8.RuneError
			}
		}
		dst = utf8.AppendRune(dst, r)
		n++
	}
	return dst
}

// decodeChars decodes up to labelChars characters from b, as appendChars
// does.
func decodeChars(b []byte, wide, be bool) string {
	return string(appendChars(nil, b, wide, be))
}

// Pass 1 notes a checkpoint, where a sub-record starts, every
// checkpointEvery objects, and also after checkpointEvery other
// sub-records or checkpointBytes bytes without one, so that
// [reader.locate] never parses more than that to find an object, however
// many roots or class dumps lie between objects.
const (
	checkpointEvery = 128
	checkpointBytes = 64 << 10
)

// checkpoint is where a sub-record starts: its offset, the index of its
// segment, and the number of objects before it.
type checkpoint struct {
	off int64
	seg uint32
	obj uint32
}

// checkpoint notes a checkpoint at off, the start of the next
// sub-record, and when the next one is due: pass 1 calls it when the
// sub-records, objects or bytes since the last one reach their bound.
func (rd *reader) checkpoint(off int64) {
	rd.cks = append(rd.cks, checkpoint{off: off, seg: uint32(rd.curSeg), obj: uint32(rd.addrs.n)})
	rd.ckLeft = checkpointEvery
	rd.ckObj = rd.addrs.n + checkpointEvery
	rd.ckOff = off + checkpointBytes
}

// locateCache is the size of the cache of what locate found.
const locateCache = 64

// located is an entry of that cache.
type located struct {
	id  uint32
	loc arrayLoc
	ok  bool
	set bool
}

// locate finds the sub-record of object id from the nearest checkpoint
// before it and returns where its elements are if it is a byte[] or
// char[] with data. It parses at most the sub-records between two
// checkpoints, and remembers the last arrays it found: strings that
// share a value array (string deduplication) find it at once.
func (rd *reader) locate(id uint32) (arrayLoc, bool) {
	e := &rd.locCache[id%locateCache]
	if e.set && e.id == id {
		return e.loc, e.ok
	}
	loc, ok := rd.locate1(id)
	*e = located{id: id, loc: loc, ok: ok, set: true}
	return loc, ok
}

func (rd *reader) locate1(id uint32) (arrayLoc, bool) {
	k := sort.Search(len(rd.cks), func(i int) bool { return rd.cks[i].obj > id }) - 1
	if k < 0 {
		return arrayLoc{}, false
	}
	c := rd.c2
	c.err = nil
	I := int64(rd.idSize)
	seg := int(rd.cks[k].seg)
	c.seek(rd.cks[k].off)
	count := rd.cks[k].obj
	for c.err == nil {
		if seg >= len(rd.segs) {
			return arrayLoc{}, false
		}
		if c.off() >= rd.segs[seg].stop {
			seg++
			if seg < len(rd.segs) {
				c.seek(rd.segs[seg].start)
			}
			continue
		}
		rd.work.located++
		tag := c.u1()
		if info := &rootTable[tag]; info.record != "" {
			c.skip(I*int64(1+info.ids) + int64(info.extra))
			continue
		}
		switch tag {
		case subInstanceDump:
			c.skip(I + 4 + I)
			c.skip(int64(c.u4()))
		case subObjArrayDump:
			c.skip(I + 4)
			n := int64(c.u4())
			c.skip(I + n*I)
		case subPrimArrayDump, subPrimArrayNoData:
			c.skip(I + 4)
			n := c.u4()
			et := c.u1()
			if count == id {
				ok := tag == subPrimArrayDump && (et == typeByte || et == typeChar) && c.err == nil
				return arrayLoc{off: c.off(), id: heap.ObjectID(id), n: n, char: et == typeChar}, ok
			}
			if tag == subPrimArrayDump {
				c.skip(int64(n) * int64(primSizes[et&15]))
			}
		case subClassDump:
			if !skipClassDump(c) {
				return arrayLoc{}, false
			}
		case subHeapDumpInfo:
			c.skip(I + 4)
			continue
		default:
			return arrayLoc{}, false
		}
		if count == id {
			return arrayLoc{}, false
		}
		count++
	}
	return arrayLoc{}, false
}

// skipClassDump moves c past the body of a CLASS_DUMP.
func skipClassDump(c *cursor) bool {
	I := int64(c.idSize)
	c.skip(7*I + 8)
	for i, n := 0, int(c.u2()); i < n && c.err == nil; i++ {
		c.u2()
		vs := valueSize(c.u1(), c.idSize)
		if vs == 0 {
			return false
		}
		c.skip(int64(vs))
	}
	for i, n := 0, int(c.u2()); i < n && c.err == nil; i++ {
		c.skip(I)
		vs := valueSize(c.u1(), c.idSize)
		if vs == 0 {
			return false
		}
		c.skip(int64(vs))
	}
	n := int64(c.u2())
	c.skip(n * (I + 1))
	return c.err == nil
}
