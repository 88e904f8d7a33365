package hprof

import (
	"errors"
	"io"
)

// windowSize is the cursor's buffer: reads are served from it, and it is
// refilled with one ReadAt when a read needs bytes beyond it.
const windowSize = 1 << 20

// A cursor reads big-endian values from an io.ReaderAt through a window.
// Its error is sticky: after the first failure every read returns zero
// and touches nothing, so callers check [cursor.err] only at record
// boundaries. A cursor never reads at or beyond size.
type cursor struct {
	r      io.ReaderAt
	size   int64
	buf    []byte
	base   int64 // offset of buf[0] in the input
	i, n   int   // read position and end of valid bytes in buf
	win    int   // the largest read the cursor serves: len(buf)
	idSize int
	err    error
}

func newCursor(r io.ReaderAt, size int64, idSize int, window int) *cursor {
	n := int64(window)
	if size < n {
		n = max(size, 16)
	}
	return &cursor{r: r, size: size, buf: make([]byte, n), win: int(n), idSize: idSize}
}

// off returns the offset of the next byte to read.
func (c *cursor) off() int64 { return c.base + int64(c.i) }

// seek moves to offset o, keeping the window when o is inside it.
func (c *cursor) seek(o int64) {
	if o >= c.base && o <= c.base+int64(c.n) {
		c.i = int(o - c.base)
		return
	}
	c.base, c.i, c.n = o, 0, 0
}

// fill makes k bytes (k <= c.win) readable at buf[i:], and reports
// whether it could; if not, it records io.ErrUnexpectedEOF.
func (c *cursor) fill(k int) bool {
	if c.n-c.i >= k {
		return true
	}
	if c.err != nil {
		return false
	}
	if k > c.win {
		c.err = errors.New("hprof: internal error: read larger than window")
		return false
	}
	copy(c.buf, c.buf[c.i:c.n])
	c.base += int64(c.i)
	c.n -= c.i
	c.i = 0
	want := len(c.buf)
	if rest := c.size - c.base; rest < int64(want) {
		if rest < 0 {
			rest = 0
		}
		want = int(rest)
	}
	for c.n < want {
		m, err := c.r.ReadAt(c.buf[c.n:want], c.base+int64(c.n))
		c.n += m
		if err != nil {
			if c.n-c.i >= k {
				break // the caller has its bytes; a later fill reports the error
			}
			if err == io.EOF {
				err = io.ErrUnexpectedEOF
			}
			c.err = err
			return false
		}
	}
	if c.n-c.i < k {
		c.err = io.ErrUnexpectedEOF
		return false
	}
	return true
}

func (c *cursor) u1() byte {
	if !c.fill(1) {
		return 0
	}
	v := c.buf[c.i]
	c.i++
	return v
}

func (c *cursor) u2() uint16 {
	if !c.fill(2) {
		return 0
	}
	b := c.buf[c.i:]
	c.i += 2
	return uint16(b[0])<<8 | uint16(b[1])
}

func (c *cursor) u4() uint32 {
	if !c.fill(4) {
		return 0
	}
	b := c.buf[c.i : c.i+4]
	c.i += 4
	return uint32(b[0])<<24 | uint32(b[1])<<16 | uint32(b[2])<<8 | uint32(b[3])
}

func (c *cursor) u8() uint64 {
	hi := c.u4()
	return uint64(hi)<<32 | uint64(c.u4())
}

// id reads one identifier of the dump's identifier size.
func (c *cursor) id() uint64 {
	if c.idSize == 4 {
		return uint64(c.u4())
	}
	return c.u8()
}

// bytes returns a view of the next k bytes (k <= c.win) and moves
// past them. The view is valid until the next read.
func (c *cursor) bytes(k int) []byte {
	if !c.fill(k) {
		return nil
	}
	b := c.buf[c.i : c.i+k]
	c.i += k
	return b
}

// peek returns a view of the next k bytes (k <= c.win) without
// moving past them, or nil if there are not k bytes. The view is valid
// until the next read.
func (c *cursor) peek(k int) []byte {
	if !c.fill(k) {
		return nil
	}
	return c.buf[c.i : c.i+k]
}

// window returns a view of the k bytes at offset o if the window holds
// them, else nil. It reads nothing.
func (c *cursor) window(o, k int64) []byte {
	if o < c.base || o+k > c.base+int64(c.n) {
		return nil
	}
	s := o - c.base
	return c.buf[s : s+k : s+k]
}

// chunk returns a view of the next min(k, c.win) bytes, at least one
// when k > 0, and moves past them.
func (c *cursor) chunk(k int64) []byte {
	if k > int64(c.win) {
		k = int64(c.win)
	}
	return c.bytes(int(k))
}

// skip moves k bytes forward without reading them.
func (c *cursor) skip(k int64) { c.seek(c.off() + k) }

// getID decodes an identifier of size n from the start of b.
func getID(b []byte, n int) uint64 {
	if n == 4 {
		return uint64(b[0])<<24 | uint64(b[1])<<16 | uint64(b[2])<<8 | uint64(b[3])
	}
	_ = b[7]
	return uint64(b[0])<<56 | uint64(b[1])<<48 | uint64(b[2])<<40 | uint64(b[3])<<32 |
		uint64(b[4])<<24 | uint64(b[5])<<16 | uint64(b[6])<<8 | uint64(b[7])
}
