package pysnap

import (
	"encoding/binary"

	"github.com/heapscope/heapscope/heap"
)

// objectsFixed is the size of the part of an OBJECTS section of n
// objects that does not depend on their edges: addresses, types, sizes,
// reference counts, flags and edge counts.
func objectsFixed(n uint64) uint64 { return n*8 + n*4 + n*8 + n*8 + pad8(n) + pad8(n*4) }

// objectsSection reads one chunk of objects and their edges.
func (rd *reader) objectsSection(count uint32, p []byte, off int64) error {
	n := uint64(count)
	fixed := objectsFixed(n)
	if fixed > uint64(len(p)) {
		return rd.errorf(off, "%d objects need at least %d bytes, the section has %d", n, fixed, len(p))
	}
	le := binary.LittleEndian
	addrs := p[0 : n*8]
	types := p[n*8 : n*12]
	sizes := p[n*12 : n*20]
	refs := p[n*20 : n*28]
	flags := p[n*28 : n*29]
	nedOff := n*28 + pad8(n)
	neds := p[nedOff : nedOff+n*4]
	var m uint64
	for i := uint64(0); i < n; i++ {
		m += uint64(le.Uint32(neds[i*4:]))
	}
	if want := fixed + m*8 + pad8(m*4); want != uint64(len(p)) {
		return rd.errorf(off, "%d objects with %d edges need %d bytes, the section has %d", n, m, want, len(p))
	}
	tgtOff := fixed
	labOff := tgtOff + m*8
	targets := p[tgtOff:labOff]
	labels := p[labOff : labOff+m*4]

	if rd.skip {
		rd.b.Grow(int(n), 0)
	} else {
		rd.b.Grow(int(n), int(m))
	}
	var e uint64
	for i := uint64(0); i < n; i++ {
		ti := le.Uint32(types[i*4:])
		if int(ti) >= len(rd.types) {
			return rd.errorf(off+int64(n*8+i*4), "object %d has type %d, only %d defined so far", i, ti, len(rd.types))
		}
		id := rd.b.Object(le.Uint64(addrs[i*8:]), rd.types[ti], le.Uint64(sizes[i*8:]))
		if i == 0 {
			rd.chunkFirst = id
		}
		rc := le.Uint64(refs[i*8:])
		if rc > 1<<32-1 {
			rc = 1<<32 - 1
		}
		if rc != 0 {
			// A census writes no reference counts (all 0): the graph
			// then has none rather than a column of zeros.
			rd.b.SetRefcount(id, uint32(rc))
		}
		if f := objectFlags[flags[i]]; f != 0 {
			rd.b.SetFlags(id, f)
		}
		ne := uint64(le.Uint32(neds[i*4:]))
		edge := rd.b.Edge
		all := rd.named[ti] // with skip: every edge kept
		if flags[i]&fileSynthetic != 0 {
			// A synthetic object's edges are words of a runtime
			// structure: those that are no object's address go quietly.
			edge = rd.b.EdgeIfObject
		}
		for k := e; k < e+ne; k++ {
			l := heap.Label(le.Uint32(labels[k*4:]))
			if l.Kind() > heap.Internal {
				rd.badKinds++
				l = l.WithKind(heap.Strong)
			}
			if !l.IsIndex() && l.Name() != 0 {
				si := uint32(l.Name())
				if int(si) >= len(rd.strs) {
					return rd.errorf(off+int64(labOff+k*4), "edge %d is named by string %d, only %d defined so far", k, si, len(rd.strs))
				}
				if rd.skip && !rd.naming[si] && !all {
					continue
				}
				l = heap.NamedLabel(l.Kind(), rd.intern(si))
			} else if rd.skip && !all {
				continue
			}
			edge(id, le.Uint64(targets[k*8:]), l)
		}
		e += ne
	}
	rd.chunkAddrs = append(rd.chunkAddrs[:0], addrs...)
	rd.objects += n
	rd.edges += m
	return nil
}

// chunkMatcher finds the objects of the latest OBJECTS section by address
// for the VALUES and DIGESTS sections that follow it. The agent lists
// values in the order of the objects, so one forward walk finds them all
// without the global address index; the first address out of that order
// ends the walk, and the rest go through the builder's index. The walk
// steps over at most matchSteps objects per record of the section (and
// matchSlack more): many sections after one big OBJECTS section, each
// with an address the walk does not find, cost no more than their size.
type chunkMatcher struct {
	rd    *reader
	addrs []byte
	first heap.ObjectID
	next  int
	left  int // steps the walk may still take
	off   bool
}

const (
	matchSteps = 64
	matchSlack = 1024
)

func (rd *reader) chunkMatcher(records uint32) chunkMatcher {
	return chunkMatcher{rd: rd, addrs: rd.chunkAddrs, first: rd.chunkFirst, left: int(min(uint64(records)*matchSteps+matchSlack, 1<<40))}
}

func (c *chunkMatcher) find(a uint64) (heap.ObjectID, bool) {
	if c.off {
		return 0, false
	}
	le := binary.LittleEndian
	end := min(len(c.addrs)/8, c.next+c.left)
	for j := c.next; j < end; j++ {
		if le.Uint64(c.addrs[j*8:]) == a {
			c.step(j + 1 - c.next)
			c.next = j + 1
			return c.first + heap.ObjectID(j), true
		}
	}
	c.step(end - c.next)
	c.off = true
	return 0, false
}

func (c *chunkMatcher) step(n int) {
	c.left -= n
	c.rd.matched += n
}

func (rd *reader) rootsSection(count uint32, p []byte, off int64) error {
	n := uint64(count)
	if want := n*8 + pad8(n) + pad8(n*4); want != uint64(len(p)) {
		return rd.errorf(off, "%d roots need %d bytes, the section has %d", n, want, len(p))
	}
	le := binary.LittleEndian
	kinds := p[n*8:]
	names := p[n*8+pad8(n):]
	for i := uint64(0); i < n; i++ {
		kind := heap.RootKind(kinds[i])
		if kind > heap.RootVM {
			return rd.errorf(off+int64(n*8+i), "root %d has unknown kind %d", i, kind)
		}
		name, err := rd.str(le.Uint32(names[i*4:]), off+int64(n*8+pad8(n)+i*4), "root")
		if err != nil {
			return err
		}
		rd.b.Root(kind, le.Uint64(p[i*8:]), name)
	}
	return nil
}

func (rd *reader) valuesSection(count uint32, p []byte, off int64) error {
	n := uint64(count)
	if n*8 > uint64(len(p)) {
		return rd.errorf(off, "%d values cannot fit in %d bytes", n, len(p))
	}
	addrs := p[:n*8]
	cm := rd.chunkMatcher(count)
	return rd.lengthPrefixed(count, p[n*8:], off+int64(n*8), func(i int, s []byte) {
		a := binary.LittleEndian.Uint64(addrs[i*8:])
		if id, ok := cm.find(a); ok {
			rd.b.SetValueBytes(id, s)
			return
		}
		rd.b.ValueBytesAt(a, s)
	})
}

// omittedSection reads the addresses of objects the writer left out on
// purpose: references to them are dropped without a warning.
func (rd *reader) omittedSection(count uint32, p []byte, off int64) error {
	n := uint64(count)
	if n*8 != uint64(len(p)) {
		return rd.errorf(off, "%d omitted addresses need %d bytes, the section has %d", n, n*8, len(p))
	}
	for i := uint64(0); i < n; i++ {
		rd.b.Omit(binary.LittleEndian.Uint64(p[i*8:]))
	}
	return nil
}

func (rd *reader) digestsSection(count uint32, p []byte, off int64) error {
	return rd.addrWords(count, p, off, "digests", rd.b.SetDigest, rd.b.DigestAt)
}

// limitsSection reads the most entries objects can hold (a deque's
// maxlen, 1.3).
func (rd *reader) limitsSection(count uint32, p []byte, off int64) error {
	return rd.addrWords(count, p, off, "limits", rd.b.SetLimit, rd.b.LimitAt)
}

// addrWords reads a section of count addresses followed by a u64 for
// each (DIGESTS, LIMITS): set records the word of an object of the
// latest OBJECTS section, at that of an object found by address when
// the graph is built (an address of no object is dropped).
func (rd *reader) addrWords(count uint32, p []byte, off int64, what string, set func(heap.ObjectID, uint64), at func(uint64, uint64)) error {
	n := uint64(count)
	if n*16 != uint64(len(p)) {
		return rd.errorf(off, "%d %s need %d bytes, the section has %d", n, what, n*16, len(p))
	}
	le := binary.LittleEndian
	cm := rd.chunkMatcher(count)
	for i := uint64(0); i < n; i++ {
		a, w := le.Uint64(p[i*8:]), le.Uint64(p[n*8+i*8:])
		if id, ok := cm.find(a); ok {
			set(id, w)
			continue
		}
		at(a, w)
	}
	return nil
}

func (rd *reader) warningsSection(count uint32, p []byte, off int64) error {
	return rd.lengthPrefixed(count, p, off, func(_ int, s []byte) {
		rd.b.Warn(-1, "agent: %s", s)
	})
}
