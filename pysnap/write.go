package pysnap

import (
	"encoding/binary"
	"encoding/json"
	"hash"
	"hash/crc32"
	"io"
	"iter"

	"github.com/heapscope/heapscope/heap"
)

// Write encodes g in the Python snapshot format. The Python agent is the
// real writer; this one exists so that tests and fuzz targets can make
// snapshots from any graph and check that Read gives the same graph back.
// Objects go out in chunks of chunk objects (all in one chunk when chunk
// is not positive).
func Write(w io.Writer, g *heap.Graph, chunk int) error {
	cw := &crcWriter{w: w, crc: crc32.NewIEEE()}
	le := binary.LittleEndian
	h := make([]byte, headerSize)
	copy(h, Magic)
	le.PutUint16(h[8:], VersionMajor)
	le.PutUint16(h[10:], VersionMinor)
	cw.write(h)

	nsec := uint64(0)
	section := func(kind, count uint32, payload []byte) {
		var sh [sectionHead]byte
		le.PutUint32(sh[0:], kind)
		le.PutUint32(sh[4:], count)
		le.PutUint64(sh[8:], uint64(len(payload)))
		cw.write(sh[:])
		cw.write(payload)
		nsec++
	}

	m := g.Meta()
	meta := map[string]any{"runtime": m.Runtime, "python_version": m.Version}
	for k, v := range m.Attrs {
		if _, ok := meta[k]; !ok {
			meta[k] = v
		}
	}
	js, err := json.Marshal(meta)
	if err != nil {
		return err
	}
	section(secMeta, 0, js)

	// Strings: every graph string but the implicit empty one, in ID order,
	// so that graph StringIDs equal file string indices.
	var strs []byte
	var nstr uint32
	for s := heap.StringID(1); int(s) < g.NumStrings(); s++ {
		t := g.String(s)
		strs = le.AppendUint32(strs, uint32(len(t)))
		strs = append(strs, t...)
		nstr++
	}
	section(secStrings, nstr, strs)

	var types []byte
	for t := 0; t < g.NumTypes(); t++ {
		types = le.AppendUint64(types, uint64(0x10000+t))
		types = le.AppendUint32(types, uint32(g.TypeNameID(heap.TypeID(t))))
	}
	section(secTypes, uint32(g.NumTypes()), types)

	n := g.NumObjects()
	if chunk <= 0 {
		chunk = n
	}
	for lo := 0; lo < n; lo += chunk {
		hi := min(lo+chunk, n)
		section(secObjects, uint32(hi-lo), objectsPayload(g, lo, hi))
	}

	var roots, kinds, names []byte
	for _, r := range g.Roots() {
		roots = le.AppendUint64(roots, g.Addr(r.Object))
		kinds = append(kinds, byte(r.Kind))
		names = le.AppendUint32(names, uint32(r.Name))
	}
	roots = append(roots, padTo8(kinds)...)
	roots = append(roots, padTo8(names)...)
	section(secRoots, uint32(len(g.Roots())), roots)

	if g.NumValues() > 0 {
		var addrs, vals []byte
		for id, v := range g.Values() {
			addrs = le.AppendUint64(addrs, g.Addr(id))
			vals = le.AppendUint32(vals, uint32(len(v)))
			vals = append(vals, v...)
		}
		section(secValues, uint32(g.NumValues()), append(addrs, vals...))
	}
	if n, p := addrWords(g, g.Digests()); n > 0 {
		section(secDigests, n, p)
	}
	if n, p := addrWords(g, g.Limits()); n > 0 {
		section(secLimits, n, p)
	}

	if g.NumSites() > 1 {
		ns := g.NumSites() - 1
		cols := make([][]byte, 4)
		for s := heap.SiteID(1); int(s) < g.NumSites(); s++ {
			f := g.SiteFrame(s)
			cols[0] = le.AppendUint32(cols[0], uint32(g.SiteParent(s)))
			cols[1] = le.AppendUint32(cols[1], uint32(f.File))
			cols[2] = le.AppendUint32(cols[2], uint32(f.Function))
			cols[3] = le.AppendUint32(cols[3], f.Line)
		}
		section(secSites, uint32(ns), append(append(append(cols[0], cols[1]...), cols[2]...), cols[3]...))
	}
	if g.HasSites() {
		var addrs, sites []byte
		var n uint32
		for id := range g.Objects() {
			if s := g.Site(id); s != heap.NoSite {
				addrs = le.AppendUint64(addrs, g.Addr(id))
				sites = le.AppendUint32(sites, uint32(s))
				n++
			}
		}
		section(secObjSites, n, append(addrs, padTo8(sites)...))
	}

	var sh [sectionHead]byte
	le.PutUint32(sh[0:], secEnd)
	le.PutUint64(sh[8:], endSize)
	crc := cw.crc.Sum32()
	cw.write(sh[:])
	var end [endSize]byte
	le.PutUint64(end[0:], uint64(n))
	le.PutUint64(end[8:], uint64(g.NumEdges()))
	le.PutUint64(end[16:], nsec)
	le.PutUint32(end[24:], crc)
	copy(end[28:], endMagic)
	cw.write(end[:])
	return cw.err
}

func objectsPayload(g *heap.Graph, lo, hi int) []byte {
	le := binary.LittleEndian
	var addr, typ, size, ref, flags, ned, tgt, lab []byte
	for i := lo; i < hi; i++ {
		id := heap.ObjectID(i)
		addr = le.AppendUint64(addr, g.Addr(id))
		typ = le.AppendUint32(typ, uint32(g.Type(id)))
		size = le.AppendUint64(size, g.Size(id))
		rc, _ := g.Refcount(id)
		ref = le.AppendUint64(ref, uint64(rc))
		flags = append(flags, flagsByte(g.Flags(id)))
		es := g.Edges(id)
		ned = le.AppendUint32(ned, uint32(len(es)))
		for _, e := range es {
			tgt = le.AppendUint64(tgt, g.Addr(e.To))
			lab = le.AppendUint32(lab, uint32(e.Label))
		}
	}
	out := append(addr, typ...)
	out = append(out, size...)
	out = append(out, ref...)
	out = append(out, padTo8(flags)...)
	out = append(out, padTo8(ned)...)
	out = append(out, tgt...)
	return append(out, padTo8(lab)...)
}

func padTo8(b []byte) []byte {
	for len(b)%8 != 0 {
		b = append(b, 0)
	}
	return b
}

type crcWriter struct {
	w   io.Writer
	crc hash.Hash32
	err error
}

func (c *crcWriter) write(p []byte) {
	if c.err != nil {
		return
	}
	c.crc.Write(p)
	_, c.err = c.w.Write(p)
}

// addrWords returns the payload of a section of addresses each with a
// u64 (DIGESTS, LIMITS) for the pairs of seq, and their count.
func addrWords(g *heap.Graph, seq iter.Seq2[heap.ObjectID, uint64]) (uint32, []byte) {
	le := binary.LittleEndian
	var addrs, words []byte
	var n uint32
	for id, w := range seq {
		addrs = le.AppendUint64(addrs, g.Addr(id))
		words = le.AppendUint64(words, w)
		n++
	}
	return n, append(addrs, words...)
}
