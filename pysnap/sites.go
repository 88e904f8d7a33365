package pysnap

import (
	"encoding/binary"

	"github.com/heapscope/heapscope/heap"
)

// sitesSection appends allocation sites to the site table: columns
// parent, file, function and line, u32 each (docs/pysnap-format.md).
func (rd *reader) sitesSection(count uint32, p []byte, off int64) error {
	n := uint64(count)
	if n*16 != uint64(len(p)) {
		return rd.errorf(off, "%d sites need %d bytes, the section has %d", n, n*16, len(p))
	}
	if uint64(rd.b.NumSites())+n > 1<<32-2 {
		return rd.errorf(off, "more than 2^32-2 sites")
	}
	le := binary.LittleEndian
	for i := uint64(0); i < n; i++ {
		first := uint64(rd.b.NumSites()) // the ID this site gets
		parent := le.Uint32(p[i*4:])
		if uint64(parent) >= first {
			return rd.errorf(off+int64(i*4), "site %d has caller %d, not a site defined before it", first, parent)
		}
		file, err := rd.str(le.Uint32(p[n*4+i*4:]), off+int64(n*4+i*4), "site")
		if err != nil {
			return err
		}
		fn, err := rd.str(le.Uint32(p[n*8+i*4:]), off+int64(n*8+i*4), "site")
		if err != nil {
			return err
		}
		rd.b.AddSite(heap.SiteID(parent), heap.Frame{Function: fn, File: file, Line: le.Uint32(p[n*12+i*4:])})
	}
	return nil
}

// objectSitesSection gives objects their allocation sites: addr u64[n],
// then site u32[n] padded to 8 bytes.
func (rd *reader) objectSitesSection(count uint32, p []byte, off int64) error {
	n := uint64(count)
	if n*8+pad8(n*4) != uint64(len(p)) {
		return rd.errorf(off, "%d object sites need %d bytes, the section has %d", n, n*8+pad8(n*4), len(p))
	}
	le := binary.LittleEndian
	nsites := uint32(rd.b.NumSites())
	cm := rd.chunkMatcher(count)
	for i := uint64(0); i < n; i++ {
		s := le.Uint32(p[n*8+i*4:])
		if s >= nsites {
			return rd.errorf(off+int64(n*8+i*4), "object site %d: site %d, only %d defined so far", i, s, nsites)
		}
		if s == 0 {
			continue
		}
		a := le.Uint64(p[i*8:])
		if id, ok := cm.find(a); ok {
			rd.b.SetSite(id, heap.SiteID(s))
			continue
		}
		rd.b.SiteAt(a, heap.SiteID(s))
	}
	return nil
}
