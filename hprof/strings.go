package hprof

import (
	"slices"
	"strings"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/heapscope/heapscope/heap"
)

// labelChars is how many characters of a java.lang.String its value
// label keeps.
const labelChars = 64

// pendingString is a java.lang.String seen in pass 2 whose characters are
// read after pass 2, because its value array may come later in the dump.
type pendingString struct {
	obj, arr     heap.ObjectID
	coder        int8  // 0 Latin-1, 1 UTF-16, -1 the class has no coder field
	start, count int32 // char range of old (JDK 6) strings, -1 when absent
}

// arrayLoc is where a byte[] or char[] array's elements are in the input.
type arrayLoc struct {
	off uint64 // element data offset; the top bit is set for char[]
	id  heap.ObjectID
	n   uint32
}

func newArrayLoc(id heap.ObjectID, off int64, n uint32, char bool) arrayLoc {
	o := uint64(off)
	if char {
		o |= 1 << 63
	}
	return arrayLoc{o, id, n}
}

func (a arrayLoc) offset() int64 { return int64(a.off &^ (1 << 63)) }
func (a arrayLoc) char() bool    { return a.off>>63 != 0 }

// stringInstance records a java.lang.String whose field data is data.
func (rd *reader) stringInstance(id heap.ObjectID, data []byte, s *stringSlots) {
	v := getID(data[s.value:], rd.idSize)
	if v == 0 {
		return
	}
	arr, ok := rd.idx.lookup(v)
	if !ok {
		return
	}
	p := pendingString{obj: id, arr: heap.ObjectID(arr), coder: -1, start: -1, count: -1}
	if s.coder >= 0 {
		p.coder = int8(data[s.coder])
	}
	if s.offset >= 0 && s.count >= 0 {
		p.start = int32(getID(data[s.offset:], 4))
		p.count = int32(getID(data[s.count:], 4))
	}
	rd.pending = append(rd.pending, p)
}

// strings gives every java.lang.String whose value array is in the dump a
// value label (its first labelChars characters) and a digest of its whole
// content: FNV-1a (64 bit) over the coder byte followed by the array's
// bytes as they are in the dump (Latin-1 bytes, UTF-16 in the JVM's byte
// order for byte[] values, big-endian UTF-16 for char[] values). It reads
// the arrays in file order.
func (rd *reader) strings() {
	if len(rd.pending) == 0 {
		return
	}
	slices.SortFunc(rd.pending, func(a, b pendingString) int {
		if a.arr != b.arr {
			return int(a.arr) - int(b.arr)
		}
		return int(a.obj) - int(b.obj)
	})
	c := rd.c
	c.err = nil
	j := 0
	var last pendingString
	var lastLabel string
	var lastDigest uint64
	have := false
	for _, p := range rd.pending {
		for j < len(rd.arrays) && rd.arrays[j].id < p.arr {
			j++
		}
		if j == len(rd.arrays) {
			break
		}
		a := rd.arrays[j]
		if a.id != p.arr {
			continue // the value is not a byte[] or char[]
		}
		if !have || last.arr != p.arr || last.coder != p.coder || last.start != p.start || last.count != p.count {
			lastLabel, lastDigest = rd.stringContent(a, p)
			last, have = p, true
		}
		if c.err != nil {
			return
		}
		rd.b.SetValue(p.obj, lastLabel)
		rd.b.SetDigest(p.obj, lastDigest)
	}
	rd.pending, rd.arrays = nil, nil
}

// stringContent returns the label and digest of string p whose value
// array is a.
func (rd *reader) stringContent(a arrayLoc, p pendingString) (string, uint64) {
	c := rd.c
	coder := p.coder
	es := int64(1)
	first, n := int64(0), int64(a.n)
	if a.char() {
		coder, es = 1, 2
		if p.start >= 0 && p.count >= 0 && int64(p.start) <= n {
			first = int64(p.start)
			n = min(int64(p.count), n-first)
		}
	} else if coder != 1 {
		coder = 0
	}
	total := n * es
	c.seek(a.offset() + first*es)
	head := c.bytes(int(min(total, 2*labelChars+2)))
	label := decodeChars(head, coder == 1, a.char())
	// Digest: FNV-1a 64.
	const prime = 1099511628211
	h := uint64(14695981039346656037)
	h = (h ^ uint64(uint8(coder))) * prime
	c.seek(a.offset() + first*es)
	for left := total; left > 0; {
		b := c.chunk(left)
		if b == nil {
			break
		}
		left -= int64(len(b))
		for _, x := range b {
			h = (h ^ uint64(x)) * prime
		}
	}
	return label, h
}

// decodeChars decodes up to labelChars characters from b: Latin-1 when
// !wide, else UTF-16 (big-endian if be, else little-endian, the byte
// order of x86 and ARM JVMs for compact strings' byte[] values).
func decodeChars(b []byte, wide, be bool) string {
	var sb strings.Builder
	if !wide {
		b = b[:min(len(b), labelChars)]
		ascii := true
		for _, x := range b {
			if x >= 0x80 {
				ascii = false
				break
			}
		}
		if ascii {
			return string(b)
		}
		for i := 0; i < len(b); i++ {
			sb.WriteRune(rune(b[i]))
		}
		return sb.String()
	}
	u := make([]uint16, 0, len(b)/2)
	for i := 0; i+1 < len(b); i += 2 {
		if be {
			u = append(u, uint16(b[i])<<8|uint16(b[i+1]))
		} else {
			u = append(u, uint16(b[i+1])<<8|uint16(b[i]))
		}
	}
	n := 0
	for i := 0; i < len(u) && n < labelChars; i++ {
		r := rune(u[i])
		if utf16.IsSurrogate(r) {
			if i+1 < len(u) {
				if d := utf16.DecodeRune(r, rune(u[i+1])); d != utf8.RuneError {
					r = d
					i++
				} else {
					r = utf8.RuneError
				}
			} else {
				r = utf8.RuneError
			}
		}
		sb.WriteRune(r)
		n++
	}
	return sb.String()
}
