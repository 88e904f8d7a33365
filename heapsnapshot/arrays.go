package heapsnapshot

import (
	"math"
	"slices"

	"github.com/heapscope/heapscope/heap"
	"github.com/heapscope/heapscope/internal/spill"
)

// prealloc returns the capacity to reserve for n declared records of
// width numbers each: trusted only as far as the input can hold them.
func (rd *reader) prealloc(n int64, width int) int {
	if n <= 0 {
		return 0
	}
	limit := int64(1 << 16) // unknown size: grow by appending beyond this
	if rd.size >= 0 {
		limit = rd.size/int64(2*width) + 1 // each number takes >= 2 bytes
	}
	return int(min(n, limit))
}

func (rd *reader) nodes() error {
	s := rd.s
	rd.nodesOff = s.offset()
	if err := s.expect('['); err != nil {
		return err
	}
	c := rd.prealloc(rd.nodeCount, rd.nf)
	b := heap.NewBuilder(heap.ByID)
	b.Grow(c, 0)
	rd.b = b
	// Past --max-memory these go to files (spill); appending beyond c,
	// when the size is unknown, copies them to the Go heap.
	rd.ntype = spill.MakeCap[uint8](0, c)
	rd.nname = spill.MakeCap[uint32](0, c)
	rd.nidLo = spill.MakeCap[uint32](0, c)
	rd.nedges = spill.MakeCap[uint32](0, c+1) // build appends one
	ntypes := uint64(len(rd.nodeTypes))
	fType, fName, fID, fSize, fEC, fDet, fTrace := rd.fType, rd.fName, rd.fID, rd.fSize, rd.fEdgeCount, rd.fDetached, rd.fTrace
	maxNodes := int64(math.MaxUint32 - 2)
	if rd.nodeCount >= 0 {
		maxNodes = min(maxNodes, rd.nodeCount)
	}
	nf := rd.nf
	keepSizes := !rd.opt.SkipValues
	err := s.records(nf, func(vals []uint64, offs []int64) error {
		for r, off := range offs {
			rec := vals[r*nf : r*nf+nf]
			if int64(len(rd.ntype)) >= maxNodes {
				return s.errorf(off, "more nodes than node_count %d", maxNodes)
			}
			t, name, ec, id := rec[fType], rec[fName], rec[fEC], rec[fID]
			if t >= ntypes {
				return s.errorf(off, "node type %d out of range [0,%d)", t, ntypes)
			}
			if name > math.MaxUint32 {
				return s.errorf(off, "node name %d out of range", name)
			}
			if ec > math.MaxUint32 {
				return s.errorf(off, "edge_count %d out of range", ec)
			}
			if int64(name) > rd.maxName {
				rd.maxName, rd.maxNameOff = int64(name), off
			}
			if id > math.MaxUint32 {
				if rd.nidHi == nil {
					rd.nidHi = map[uint32]uint32{}
				}
				rd.nidHi[uint32(len(rd.ntype))] = uint32(id >> 32)
			}
			if fDet >= 0 {
				if d := rec[fDet]; (d == domAttached || d == domDetached) || rd.dstate != nil {
					if d != domAttached && d != domDetached {
						d = 0
					}
					rd.dstate = padTo(rd.dstate, len(rd.ntype))
					rd.dstate = append(rd.dstate, uint8(d))
				}
			}
			if fTrace >= 0 && rec[fTrace] != 0 {
				if rec[fTrace] > math.MaxUint32 {
					return s.errorf(off, "trace_node_id %d out of range", rec[fTrace])
				}
				if rd.ntrace == nil {
					rd.ntrace = make([]uint32, 0, cap(rd.ntype))
				}
				for len(rd.ntrace) < len(rd.ntype) {
					rd.ntrace = append(rd.ntrace, 0)
				}
				rd.ntrace = append(rd.ntrace, uint32(rec[fTrace]))
			}
			rd.ntype = append(rd.ntype, uint8(t))
			rd.nname = append(rd.nname, uint32(name))
			rd.nidLo = append(rd.nidLo, uint32(id))
			rd.nedges = append(rd.nedges, uint32(ec))
			if keepSizes && rd.isString[t] {
				sz := rec[fSize]
				if sz >= math.MaxUint32 {
					if rd.bigSize == nil {
						rd.bigSize = map[uint32]uint64{}
					}
					rd.bigSize[uint32(len(rd.ntype)-1)] = sz
					sz = math.MaxUint32
				}
				rd.ssize = append(rd.ssize, uint32(sz))
			}
			b.Object(id, 0, rec[fSize]) // typed in build
		}
		return nil
	})
	if err != nil {
		return err
	}
	n := int64(len(rd.ntype))
	if rd.nodeCount >= 0 && n != rd.nodeCount {
		return s.errorf(rd.nodesOff, "node_count is %d but nodes holds %d nodes", rd.nodeCount, n)
	}
	if n == 0 {
		return s.errorf(rd.nodesOff, "%w: the nodes array is empty", heap.ErrNoObjects)
	}
	if rd.rootIndex/uint64(rd.nf) >= uint64(n) {
		return s.errorf(rd.nodesOff, "root_index %d out of range", rd.rootIndex)
	}
	return nil
}

func (rd *reader) edges() error {
	s := rd.s
	rd.edgesOff = s.offset()
	if err := s.expect('['); err != nil {
		return err
	}
	var want int64
	for _, c := range rd.nedges {
		want += int64(c)
	}
	if rd.edgeCount >= 0 && want != rd.edgeCount {
		return s.errorf(rd.edgesOff, "edge_count is %d but the nodes' edge counts add up to %d", rd.edgeCount, want)
	}
	if want > math.MaxUint32-1 {
		return s.errorf(rd.edgesOff, "%d edges: more than 2^32-1", want)
	}
	rd.skipping = rd.opt.SkipEdges
	native := uint64(slices.Index(rd.nodeTypes, "native"))
	c := rd.prealloc(want, rd.ef)
	if rd.skipping {
		c = 0
	}
	b := rd.b
	b.Grow(0, c)
	if len(rd.edgeTypes) > 1<<(32-packShift) {
		rd.etype = make([]uint8, 0, c)
	}
	nf := uint64(rd.nf)
	limit := uint64(len(rd.ntype)) * nf
	ntypes := uint64(len(rd.edgeTypes))
	isIndex := rd.edgeIsIndex
	eType, eName, eTo := rd.eType, rd.eName, rd.eTo
	ef := rd.ef
	maxName, maxNameOff := rd.maxName, rd.maxNameOff
	// V8 numbers strings in the order it first writes them, nodes then
	// edges, so an edge names a string below the number of nodes and
	// edges read so far; use grows with that bound, never with the edge
	// counts the nodes declare. Names beyond it are corrupt, or from a
	// writer that numbers strings otherwise: markUses checks them once
	// every edge is read (see markUses), and marks them then.
	nnodes := uint64(len(rd.ntype))
	use := rd.use
	nedges := rd.nedges
	src, left := -1, uint32(0) // the current source and its edges not yet read
	err := s.records(ef, func(vals []uint64, offs []int64) error {
		if int64(rd.nedge+len(offs)) > want {
			return s.errorf(offs[want-int64(rd.nedge)], "more edges than the nodes' edge counts add up to (%d)", want)
		}
		maxUse := 2*(nnodes+uint64(rd.nedge)) + 1<<16 // as of this batch
		for r := range offs {
			rec := vals[r*ef : r*ef+ef]
			t, name, to := rec[eType], rec[eName], rec[eTo]
			if t >= ntypes || to%nf != 0 || to >= limit {
				off := offs[r]
				if t >= ntypes {
					return s.errorf(off, "edge type %d out of range [0,%d)", t, ntypes)
				}
				if to%nf != 0 {
					return s.errorf(off, "to_node %d is not a multiple of %d", to, nf)
				}
				return s.errorf(off, "to_node %d out of range: %d nodes", to, limit/nf)
			}
			if rd.skipping {
				if !isIndex[t] && name > math.MaxUint32 {
					return s.errorf(offs[r], "edge name %d out of range", name)
				}
				for left == 0 {
					src++
					left = nedges[src]
				}
				left--
				rd.nedge++
				if rd.dstate != nil && uint64(rd.ntype[src]) == native {
					// The DOM state spreads from native nodes along their
					// edges (see detached): they are kept for that.
					rd.natSrc = append(rd.natSrc, uint32(src))
					rd.natEdge = append(rd.natEdge, heap.Edge{To: heap.ObjectID(to / nf), Label: heap.Label(t)})
				}
				continue
			}
			if isIndex[t] {
				if name >= heap.MaxIndex {
					// Kept aside: the label's index field is too narrow.
					if rd.bigIndex == nil {
						rd.bigIndex = map[uint32]uint64{}
					}
					rd.bigIndex[uint32(rd.nedge)] = name
					name = heap.MaxIndex
				}
			} else {
				if name > math.MaxUint32 {
					return s.errorf(offs[r], "edge name %d out of range", name)
				}
				if int64(name) > maxName {
					maxName, maxNameOff = int64(name), offs[r]
				}
				if name > packMask && rd.etype == nil {
					rd.widen()
				}
				if name <= maxUse {
					if name >= uint64(len(use)) {
						nu := make([]uint8, max(int(name)+1, 2*len(use), 1024))
						copy(nu, use)
						use = nu
					}
					if use[name] == 0 {
						use[name] = useName
						rd.enames = append(rd.enames, uint32(name))
					}
				} else {
					rd.lateNames = append(rd.lateNames, uint32(name))
				}
			}
			for left == 0 {
				src++
				left = nedges[src]
			}
			left--
			rd.nedge++
			if rd.etype != nil {
				rd.etype = append(rd.etype, uint8(t))
				b.Edge(heap.ObjectID(src), to/nf, heap.Label(name))
				continue
			}
			b.Edge(heap.ObjectID(src), to/nf, heap.Label(uint32(t)<<packShift|uint32(name)))
		}
		return nil
	})
	rd.maxName, rd.maxNameOff = maxName, maxNameOff
	rd.use = use
	if err != nil {
		return err
	}
	if got := int64(rd.nedge); got != want {
		return s.errorf(rd.edgesOff, "edges holds %d edges but the nodes' edge counts add up to %d", got, want)
	}
	rd.ed = b.PendingEdges()
	return nil
}

// markUses records which strings the graph needs, and how.
func (rd *reader) markUses() error {
	if rd.maxName < 0 {
		return nil
	}
	// Every string in a V8 snapshot is named at least once, so a name far
	// beyond the number of references is corrupt; checking before the
	// allocation keeps a hostile index from costing gigabytes.
	refs := int64(len(rd.ntype)) + int64(len(rd.ed))
	if rd.maxName > 2*refs+1<<16 {
		return rd.s.errorf(rd.maxNameOff, "string index %d out of range for %d nodes and edges", rd.maxName, refs)
	}
	// The edges marked their names as they were read.
	use := rd.use
	if int64(len(use)) > rd.maxName+1 {
		use = use[:rd.maxName+1]
	} else if int64(len(use)) < rd.maxName+1 {
		use = append(use, make([]uint8, rd.maxName+1-int64(len(use)))...)
	}
	for _, name := range rd.lateNames {
		if use[name] == 0 {
			use[name] = useName
			rd.enames = append(rd.enames, name)
		}
	}
	rd.lateNames = nil
	nodeUse := make([]uint8, len(rd.nodeTypes))
	for i, t := range rd.nodeTypes {
		switch t {
		case "object", "native", "closure", "synthetic":
			// Named by their name; "(Document DOM trees)" is a synthetic
			// node the page-owned objects start from.
			nodeUse[i] = useName
		case "string", "concatenated string", "sliced string", "regexp":
			if !rd.opt.SkipValues {
				nodeUse[i] = useValue
			}
		}
	}
	for i, t := range rd.ntype {
		use[rd.nname[i]] |= nodeUse[t]
	}
	rd.traceNames(use)
	rd.use = use
	return nil
}

func (rd *reader) strings() error {
	s := rd.s
	if err := rd.markUses(); err != nil {
		return err
	}
	if err := s.expect('['); err != nil {
		return err
	}
	rd.soff = make([]uint64, len(rd.use)+1)
	if !rd.opt.SkipValues {
		rd.digest = make([]uint64, len(rd.use))
	}
	c, err := s.peek()
	if err != nil {
		return err
	}
	if c == ']' {
		s.pos++
		return nil
	}
	for i := 0; ; i++ {
		if _, err := s.peek(); err != nil {
			return err
		}
		raw, off, err := s.rawString()
		if err != nil {
			return err
		}
		if i < len(rd.use) && rd.use[i] != 0 {
			u := rd.use[i]
			max := -1
			if u&useName == 0 {
				max = maxValue
			}
			rd.sdata, err = appendDecoded(rd.sdata, raw, max)
			if err != nil {
				return s.errorf(off, "string %d: %v", i, err)
			}
			if u&useValue != 0 {
				rd.digest[i] = fnv1a(raw)
				if len(raw) >= v8StringLimit && rawLen(raw, v8StringLimit) >= v8StringLimit {
					rd.use[i] |= useLong
				}
			}
		}
		if i < len(rd.use) {
			rd.soff[i+1] = uint64(len(rd.sdata))
		}
		rd.nstrings = i + 1
		c, err := s.peek()
		if err != nil {
			return err
		}
		s.pos++
		if c == ']' {
			break
		}
		if c != ',' {
			return s.errorf(s.offset()-1, "found %s after a string, want ',' or ']'", quoteByte(c))
		}
	}
	if rd.maxName >= int64(rd.nstrings) {
		return s.errorf(rd.maxNameOff, "string index %d out of range: %d strings", rd.maxName, rd.nstrings)
	}
	return nil
}
