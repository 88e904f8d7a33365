package heapsnapshot

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"maps"
	"math"
	"os"
	"runtime"
	"slices"
	"strings"
	"sync"

	"github.com/heapscope/heapscope/heap"
	"github.com/heapscope/heapscope/internal/input"
	"github.com/heapscope/heapscope/internal/spill"
)

// Options tunes reading. The zero value is the default.
type Options struct {
	// SkipValues drops value labels and digests: string contents,
	// function names, regexp sources and synthetic root names. Reading is
	// faster and the graph smaller; duplicate-string detection is lost.
	SkipValues bool
	// MaxInflated bounds the decompressed size of a gzip-compressed
	// snapshot, in bytes; a stream that expands beyond it is an error. 0
	// means the default: 64 times the compressed size (V8 snapshots
	// compress about 7 times) and at least 1 GiB, or 64 GiB when the
	// compressed size is unknown.
	MaxInflated int64
	// AllEdges keeps every edge with the kind its V8 type implies. By
	// default the edges that DevTools deems non-essential for dominators
	// (the WeakMap table-to-value edge, and edges from objects outside the
	// page into it) are demoted to [heap.Weak]; see the package doc.
	AllEdges bool
	// SkipEdges leaves the edges out (heap.Graph.EdgesSkipped): they are
	// still checked, but neither kept nor named, which is enough for a
	// summary or a diff. A snapshot of a page whose DOM nodes' state
	// must be found through the edges is read whole.
	SkipEdges bool
}

// Read reads a snapshot with the default options.
func Read(r io.Reader) (*heap.Graph, error) { return Options{}.Read(r) }

// Open reads the snapshot in the named file with the default options.
func Open(path string) (*heap.Graph, error) { return Options{}.Open(path) }

// Open reads the snapshot in the named file, or named pipe, plain or
// gzip-compressed: it streams, and a pipe that no process writes to
// reads as empty, at once.
func (o Options) Open(path string) (*heap.Graph, error) {
	f, fi, err := input.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if !fi.Mode().IsRegular() {
		return o.Read(f) // a pipe: Read looks for gzip's magic as it streams
	}
	size := fi.Size()
	var magic [2]byte
	if n, _ := f.ReadAt(magic[:], 0); n == 2 && isGzip(magic[:]) {
		return o.readGzip(f, size)
	}
	return o.read(f, size, size)
}

// Read reads a snapshot from r, plain or gzip-compressed. It streams:
// the JSON text is never held whole, only the numbers of the nodes and
// edges and the strings that name things.
func (o Options) Read(r io.Reader) (*heap.Graph, error) {
	size := int64(-1)
	if l, ok := r.(interface{ Len() int }); ok { // bytes.Reader, strings.Reader, bytes.Buffer
		size = int64(l.Len())
	} else if f, ok := r.(*os.File); ok {
		if fi, err := f.Stat(); err == nil && fi.Mode().IsRegular() {
			if pos, err := f.Seek(0, io.SeekCurrent); err == nil {
				size = fi.Size() - pos
			}
		}
	}
	br := bufio.NewReader(r)
	if magic, _ := br.Peek(2); isGzip(magic) {
		return o.readGzip(br, size)
	}
	return o.read(br, size, size)
}

// Match reports whether prefix, the first bytes of a file, looks like a
// V8 heap snapshot: a JSON object whose first key is "snapshot", or a
// gzip stream whose decompressed text starts so.
func Match(prefix []byte) bool {
	if isGzip(prefix) {
		return matchGzip(prefix)
	}
	return matchPlain(prefix)
}

func matchPlain(prefix []byte) bool {
	p := bytes.TrimPrefix(prefix, []byte("\xef\xbb\xbf"))
	p = bytes.TrimLeft(p, " \t\r\n")
	if len(p) == 0 || p[0] != '{' {
		return false
	}
	p = bytes.TrimLeft(p[1:], " \t\r\n")
	return bytes.HasPrefix(p, []byte(`"snapshot"`))
}

// Usage bits of a string index: what the reader needs of that string.
const (
	useName  = 1 << iota // the whole text: an edge name or a class name
	useValue             // a value label (prefix) and, for strings, a digest
	useLong              // set while reading: the text may be cut by V8
)

// v8StringLimit is V8's --heap-snapshot-string-limit default: longer
// strings are cut to this many characters in the snapshot.
const v8StringLimit = 1024

// maxValue is the length of a value label, in characters.
const maxValue = 64

type reader struct {
	opt  Options
	s    *scanner
	size int64 // input size in bytes, or -1

	// Layout, from snapshot.meta.
	nf                                   int // node fields
	fType, fName, fID, fSize, fEdgeCount int
	fDetached                            int // -1 when the snapshot has no detachedness
	nodeTypes                            []string
	ef                                   int // edge fields
	eType, eName, eTo                    int
	edgeTypes                            []string
	edgeIsIndex                          []bool
	isString                             []bool // by node type

	nodeCount, edgeCount int64 // declared; -1 when absent
	rootIndex            uint64
	title                string
	haveSnapshot         bool
	haveNodes, haveEdges bool
	haveStrings          bool
	nodesOff, edgesOff   int64

	// The graph: objects go in as the nodes are read, with a placeholder
	// type; edges once the strings have named them.
	b *heap.Builder

	// Nodes, one entry per node, beside what the builder keeps.
	ntype   []uint8
	nname   []uint32
	nidLo   []uint32          // low 32 bits of the V8 node id (for WeakMap tables)
	nidHi   map[uint32]uint32 // high 32 bits of the ids that have them, by ordinal
	nedges  []uint32          // edge count per node
	ssize   []uint32          // self size of each string node (for digests); MaxUint32: in bigSize
	dstate  []uint8           // DOM state per node (1 attached, 2 detached); nil until one is known
	bigSize map[uint32]uint64 // self sizes of string nodes beyond 32 bits, by ordinal

	// Edges, one entry per edge, in the builder (heap.Builder.Edge as
	// they are read; ed is its PendingEdges once they all are): To is the
	// target ordinal and the provisional Label packs the edge type (bits
	// 29-31) and name_or_index (bits 0-28), or, in wide mode (etype not
	// nil: more than 8 edge types or a string index beyond 29 bits),
	// holds name_or_index alone, the type in etype. build rewrites the
	// labels in place.
	ed       []heap.Edge
	etype    []uint8
	nedge    int  // edges read
	skipping bool // Options.SkipEdges
	// With SkipEdges, the edges of native nodes (by source, in order;
	// natEdge's label is the edge type), for the DOM state (detached).
	natSrc  []uint32
	natEdge []heap.Edge

	// enames lists the string indices that name edges, in the order of
	// their first edge; lateNames the names edges() could not mark yet,
	// one per such edge.
	enames    []uint32
	lateNames []uint32

	maxName    int64 // largest string index named; -1 for none
	maxNameOff int64
	bigIndex   map[uint32]uint64 // by edge: element and hidden indices from heap.MaxIndex up

	// Strings, by index (only those the graph needs), in one arena:
	// string i is sdata[soff[i]:soff[i+1]].
	nstrings int
	use      []uint8
	sdata    []byte
	soff     []uint64
	digest   []uint64

	// Allocation traces (trace.go): the layout and records of
	// trace_function_infos and trace_tree, and each node's
	// trace_node_id (nil until a node has one; fTrace -1 when nodes
	// have no such field).
	fTrace int
	trace  traceLayout
	ntrace []uint32
}

const (
	packShift = 29
	packMask  = 1<<packShift - 1
)

// edge returns the type and name_or_index of edge k.
func (rd *reader) edge(k int) (uint8, uint32) {
	l := uint32(rd.ed[k].Label)
	if rd.etype != nil {
		return rd.etype[k], l
	}
	return uint8(l >> packShift), l & packMask
}

// widen switches the edges to wide mode.
func (rd *reader) widen() {
	if rd.etype != nil {
		return
	}
	ed := rd.b.PendingEdges()
	rd.etype = make([]uint8, len(ed), cap(ed))
	for k := range ed {
		l := uint32(ed[k].Label)
		rd.etype[k] = uint8(l >> packShift)
		ed[k].Label = heap.Label(l & packMask)
	}
}

// nodeID returns the V8 id of node i.
func (rd *reader) nodeID(i int) uint64 {
	id := uint64(rd.nidLo[i])
	if rd.nidHi != nil {
		id |= uint64(rd.nidHi[uint32(i)]) << 32
	}
	return id
}

// str returns string i (empty when the graph does not need it) as bytes
// of the arena.
func (rd *reader) str(i uint32) []byte {
	if int(i)+1 >= len(rd.soff) {
		return nil
	}
	return rd.sdata[rd.soff[i]:rd.soff[i+1]]
}

// read reads a snapshot of size bytes (-1 if unknown) from r; hint is
// what the reader may assume of the size to preallocate (-1: nothing).
func (o Options) read(r io.Reader, size, hint int64) (*heap.Graph, error) {
	rd := &reader{opt: o, s: newScanner(r, size), size: hint, nodeCount: -1, edgeCount: -1, maxName: -1}
	if err := rd.parse(); err != nil {
		return nil, err
	}
	return rd.build()
}

func (rd *reader) parse() error {
	s := rd.s
	if _, err := s.peek(); err != nil {
		return err
	}
	if s.end-s.pos >= 3 && bytes.HasPrefix(s.buf[s.pos:s.end], []byte("\xef\xbb\xbf")) {
		s.pos += 3
	}
	if err := s.expect('{'); err != nil {
		return err
	}
	for first := true; ; first = false {
		c, err := s.peek()
		if err != nil {
			return err
		}
		if c == '}' && first {
			s.pos++
			break
		}
		off := s.offset()
		k, err := s.key()
		if err != nil {
			return err
		}
		s.section = k
		if err := rd.value(k, off); err != nil {
			return err
		}
		s.section = ""
		c, err = s.peek()
		if err != nil {
			return err
		}
		s.pos++
		if c == '}' {
			break
		}
		if c != ',' {
			return s.errorf(s.offset()-1, "found %s after a value, want ',' or '}'", quoteByte(c))
		}
	}
	if !s.atEOF() {
		return s.errorf(s.offset(), "data after the end of the snapshot object")
	}
	switch {
	case !rd.haveSnapshot:
		return formatErr(s.offset(), "", `no "snapshot" header`)
	case !rd.haveNodes:
		return formatErr(s.offset(), "", `no "nodes" array`)
	case !rd.haveEdges:
		return formatErr(s.offset(), "", `no "edges" array`)
	case !rd.haveStrings && rd.maxName >= 0:
		return formatErr(s.offset(), "", `no "strings" array`)
	}
	return nil
}

// value reads the value of top-level key k, found at offset off.
func (rd *reader) value(k string, off int64) error {
	s := rd.s
	dup := func(have bool) error {
		if have {
			return s.errorf(off, "%q given twice", k)
		}
		return nil
	}
	switch k {
	case "snapshot":
		if err := dup(rd.haveSnapshot); err != nil {
			return err
		}
		rd.haveSnapshot = true
		return rd.header()
	case "nodes":
		if err := dup(rd.haveNodes); err != nil {
			return err
		}
		if !rd.haveSnapshot {
			return s.errorf(off, `"nodes" before "snapshot"`)
		}
		rd.haveNodes = true
		return rd.nodes()
	case "edges":
		if err := dup(rd.haveEdges); err != nil {
			return err
		}
		if !rd.haveNodes {
			return s.errorf(off, `"edges" before "nodes"`)
		}
		rd.haveEdges = true
		return rd.edges()
	case "trace_function_infos", "trace_tree":
		if !rd.haveSnapshot || rd.haveStrings {
			// Outside V8's order their names cannot be read: skipped.
			return s.skipValue(nil, 0)
		}
		if k == "trace_tree" {
			if err := dup(rd.trace.haveTree); err != nil {
				return err
			}
			rd.trace.haveTree = true
			return rd.traceTree()
		}
		if err := dup(rd.trace.haveFunctions); err != nil {
			return err
		}
		rd.trace.haveFunctions = true
		if err := rd.traceFunctions(); err != nil {
			return err
		}
		if rd.trace.fnMaxName > rd.maxName {
			rd.maxName, rd.maxNameOff = rd.trace.fnMaxName, rd.trace.fnMaxNameOff
		}
		return nil
	case "strings":
		if err := dup(rd.haveStrings); err != nil {
			return err
		}
		if !rd.haveEdges {
			return s.errorf(off, `"strings" before "edges"`)
		}
		rd.haveStrings = true
		return rd.strings()
	}
	return s.skipValue(nil, 0)
}

// header reads snapshot: meta, counts, root_index, title.
func (rd *reader) header() error {
	s := rd.s
	off := s.offset()
	var raw []byte
	if err := s.skipValue(&raw, 16<<20); err != nil {
		return err
	}
	var h struct {
		Meta struct {
			NodeFields []string          `json:"node_fields"`
			NodeTypes  []json.RawMessage `json:"node_types"`
			EdgeFields []string          `json:"edge_fields"`
			EdgeTypes  []json.RawMessage `json:"edge_types"`
			TraceFn    []string          `json:"trace_function_info_fields"`
			TraceNode  []string          `json:"trace_node_fields"`
		} `json:"meta"`
		NodeCount *int64  `json:"node_count"`
		EdgeCount *int64  `json:"edge_count"`
		RootIndex *uint64 `json:"root_index"`
		Title     string  `json:"title"`
	}
	if err := json.Unmarshal(raw, &h); err != nil {
		return s.errorf(off, "bad header: %v", err)
	}
	m := h.Meta
	field := func(fields []string, what, name string) (int, error) {
		i := slices.Index(fields, name)
		if i < 0 {
			return 0, s.errorf(off, "meta.%s lacks %q", what, name)
		}
		return i, nil
	}
	var err error
	rd.nf = len(m.NodeFields)
	rd.ef = len(m.EdgeFields)
	rd.fTrace = slices.Index(m.NodeFields, "trace_node_id")
	if err := rd.setTraceLayout(m.TraceFn, m.TraceNode); err != nil {
		return err
	}
	if rd.nf > 64 || rd.ef > 64 {
		return s.errorf(off, "meta declares %d node fields and %d edge fields", rd.nf, rd.ef)
	}
	for _, f := range []struct {
		dst    *int
		fields []string
		what   string
		name   string
	}{
		{&rd.fType, m.NodeFields, "node_fields", "type"},
		{&rd.fName, m.NodeFields, "node_fields", "name"},
		{&rd.fID, m.NodeFields, "node_fields", "id"},
		{&rd.fSize, m.NodeFields, "node_fields", "self_size"},
		{&rd.fEdgeCount, m.NodeFields, "node_fields", "edge_count"},
		{&rd.eType, m.EdgeFields, "edge_fields", "type"},
		{&rd.eName, m.EdgeFields, "edge_fields", "name_or_index"},
		{&rd.eTo, m.EdgeFields, "edge_fields", "to_node"},
	} {
		if *f.dst, err = field(f.fields, f.what, f.name); err != nil {
			return err
		}
	}
	enum := func(types []json.RawMessage, i int, what string) ([]string, error) {
		var names []string
		if i >= len(types) || json.Unmarshal(types[i], &names) != nil {
			return nil, s.errorf(off, "meta.%s[%d] is not a list of type names", what, i)
		}
		if len(names) == 0 || len(names) > 255 {
			return nil, s.errorf(off, "meta.%s[%d] has %d type names", what, i, len(names))
		}
		return names, nil
	}
	if rd.nodeTypes, err = enum(m.NodeTypes, rd.fType, "node_types"); err != nil {
		return err
	}
	if rd.edgeTypes, err = enum(m.EdgeTypes, rd.eType, "edge_types"); err != nil {
		return err
	}
	rd.isString = make([]bool, len(rd.nodeTypes))
	for i, t := range rd.nodeTypes {
		rd.isString[i] = t == "string"
	}
	rd.edgeIsIndex = make([]bool, len(rd.edgeTypes))
	for i, t := range rd.edgeTypes {
		rd.edgeIsIndex[i] = t == "element" || t == "hidden"
	}
	if h.NodeCount != nil {
		if *h.NodeCount < 0 {
			return s.errorf(off, "negative node_count")
		}
		rd.nodeCount = *h.NodeCount
	}
	if h.EdgeCount != nil {
		if *h.EdgeCount < 0 {
			return s.errorf(off, "negative edge_count")
		}
		rd.edgeCount = *h.EdgeCount
	}
	if h.RootIndex != nil {
		rd.rootIndex = *h.RootIndex
		if rd.rootIndex%uint64(rd.nf) != 0 {
			return s.errorf(off, "root_index %d is not a multiple of %d", rd.rootIndex, rd.nf)
		}
	}
	rd.fDetached = slices.Index(m.NodeFields, "detachedness")
	rd.title = h.Title
	return nil
}

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

// build types the objects, hands the values and edges to the builder
// and builds the graph.
func (rd *reader) build() (*heap.Graph, error) {
	b := rd.b

	// Where each node's edges start.
	start := append(rd.nedges, 0)
	at := uint32(0)
	for i, c := range start {
		start[i] = at
		at += c
	}
	rd.nedges = nil

	// The non-essential edges only read the reader's arrays: find them
	// on another core while the objects are typed and labelled.
	internalType := slices.Index(rd.edgeTypes, "internal")
	weakType := slices.Index(rd.edgeTypes, "weak")
	demoteCh := make(chan []uint64, 1)
	if rd.skipping {
		demoteCh <- nil
		b.SkipEdges()
	} else {
		go func() { demoteCh <- rd.nonEssential(start, internalType, weakType) }()
	}

	// Class names per node type, and per name for the named types.
	const unset = ^heap.TypeID(0)
	byType := make([]heap.TypeID, len(rd.nodeTypes))
	naming := make([]func(string) string, len(rd.nodeTypes))
	hasValue := make([]bool, len(rd.nodeTypes))
	synthetic, native := -1, -1
	closure := uint8(255)
	for i, t := range rd.nodeTypes {
		switch t {
		case "string", "concatenated string", "sliced string", "regexp":
			hasValue[i] = true
		}
		switch t {
		case "object", "native":
			naming[i] = shortClass
			if t == "native" {
				native = i
			}
			continue
		case "closure":
			naming[i] = closureClass
			closure = uint8(i)
			continue
		case "synthetic":
			naming[i] = syntheticClass
			synthetic = i
			continue
		case "hidden":
			byType[i] = b.Type("(system)")
		case "code":
			byType[i] = b.Type("(compiled code)")
		case "regexp":
			byType[i] = b.Type("RegExp")
		default:
			byType[i] = b.Type("(" + t + ")")
		}
	}
	detached := rd.detached(start)
	byName := make([]heap.TypeID, len(rd.use))
	for i := range byName {
		byName[i] = unset
	}
	// Objects and natives by name in byName; closures, synthetic and
	// detached nodes, fewer, in maps of their own (a class and its
	// constructor share a name).
	other := map[[2]uint32]heap.TypeID{}
	for i, t := range rd.ntype {
		tid := byType[t]
		if nameOf := naming[t]; nameOf != nil {
			name := rd.nname[i]
			isDetached := detached != nil && detached[i/64]&(1<<(i%64)) != 0
			switch {
			case isDetached || t == closure || int(t) == synthetic:
				key := [2]uint32{uint32(t), name}
				if isDetached {
					key[0] = math.MaxUint32
				}
				var ok bool
				if tid, ok = other[key]; !ok {
					if isDetached {
						tid = b.Type(detachedClass(string(rd.str(name))))
					} else {
						tid = b.Type(nameOf(string(rd.str(name))))
					}
					other[key] = tid
				}
			default:
				if tid = byName[name]; tid == unset {
					tid = b.Type(nameOf(string(rd.str(name))))
					byName[name] = tid
				}
			}
			if int(t) == native {
				rd.nameElement(b, heap.ObjectID(i), rd.str(name), isDetached)
			}
		}
		b.SetType(heap.ObjectID(i), tid)
	}
	byName = nil
	if synthetic >= 0 {
		strongRoots := 0
		for i, t := range rd.ntype {
			if int(t) != synthetic {
				continue
			}
			fl := heap.FlagSynthetic
			switch string(rd.str(rd.nname[i])) {
			case "(Handle scope)":
				fl |= heap.FlagTransient
			case "(Strong roots)":
				// Two sub-roots have this name, in this order: the
				// heap's list of strong roots, then the roots registered
				// for the time of one task (identity maps, serializers).
				if strongRoots++; strongRoots == 2 {
					fl |= heap.FlagTransient
				}
			}
			b.SetFlags(heap.ObjectID(i), fl)
		}
	}
	if !rd.opt.SkipValues && rd.use != nil {
		count := 0
		for i, t := range rd.ntype {
			if hasValue[t] && rd.use[rd.nname[i]]&useValue != 0 {
				count++
			}
		}
		b.GrowValues(count)
		rank := 0 // of the node among the string nodes
		for i, t := range rd.ntype {
			isString := rd.isString[t]
			if isString {
				rank++
			}
			name := rd.nname[i]
			if rd.use[name]&useValue == 0 || !hasValue[t] {
				continue
			}
			if v := prefixBytes(rd.str(name), maxValue); len(v) > 0 {
				b.SetValueBytes(heap.ObjectID(i), v)
			}
			if isString {
				d := rd.digest[name]
				if rd.use[name]&useLong != 0 {
					// V8 cut the text: tell apart strings that share
					// their first 1024 characters by their size.
					d ^= (rd.stringSize(i, rank-1) + 1) * 0x9e3779b97f4a7c15
				}
				b.SetDigest(heap.ObjectID(i), d)
			}
		}
	}
	rd.digest, rd.ssize, rd.bigSize = nil, nil, nil
	rd.buildSites(b)
	rd.ntrace, rd.trace = nil, traceLayout{}
	root := heap.ObjectID(rd.rootIndex / uint64(rd.nf))
	b.Root(heap.RootVM, uint64(root), b.String("(root)"))

	// Edge labels per edge type.
	kinds := make([]heap.EdgeKind, len(rd.edgeTypes))
	var unknown []string
	for i, t := range rd.edgeTypes {
		switch t {
		case "context", "property", "element":
			kinds[i] = heap.Strong
		case "internal", "hidden", "invisible":
			kinds[i] = heap.Internal
		case "weak":
			kinds[i] = heap.Weak
		case "shortcut":
			kinds[i] = heap.Shortcut
		default:
			kinds[i] = heap.Strong
			unknown = append(unknown, t)
		}
	}
	if len(unknown) > 0 {
		b.Warn(-1, "unknown edge types %q read as strong references", unknown)
	}

	demote := <-demoteCh
	rd.ntype, rd.nname, rd.nidLo, rd.nidHi = nil, nil, nil, nil

	// Intern the edge names in edge order (of their first edge), then
	// let the strings go. The names' text goes into one string.
	nameID := make([]heap.StringID, len(rd.use))
	size := 0
	for _, name := range rd.enames {
		size += len(rd.str(name))
	}
	var all strings.Builder
	all.Grow(size)
	for _, name := range rd.enames {
		all.Write(rd.str(name))
	}
	text := all.String()
	b.GrowStrings(len(rd.enames))
	pos := 0
	for _, name := range rd.enames {
		n := len(rd.str(name))
		id := b.String(text[pos : pos+n])
		pos += n
		if id >= heap.MaxNames {
			return nil, formatErr(rd.edgesOff, "edges", "more distinct edge names than a graph can hold")
		}
		nameID[name] = id
	}
	rd.sdata, rd.soff, rd.use, rd.enames = nil, nil, nil, nil

	// Indices too large for a label's index field are named by their
	// text instead.
	bigLabel := make(map[uint32]heap.Label, len(rd.bigIndex))
	for _, k := range slices.Sorted(maps.Keys(rd.bigIndex)) {
		t, _ := rd.edge(int(k))
		bigLabel[k] = b.IndexLabel(kinds[t], rd.bigIndex[k])
	}
	rd.bigIndex = nil

	// The final labels, in place in the builder, in parts on every core.
	isIndex := rd.edgeIsIndex
	ed := rd.ed
	relabel := func(lo, hi int) {
		for k := lo; k < hi; k++ {
			t, name := rd.edge(k)
			var l heap.Label
			if isIndex[t] {
				l = heap.IndexLabel(kinds[t], uint64(name))
				if name == heap.MaxIndex {
					if big, ok := bigLabel[uint32(k)]; ok {
						l = big
					}
				}
			} else {
				l = heap.NamedLabel(kinds[t], nameID[name])
			}
			if demote != nil && demote[k/64]&(1<<(k%64)) != 0 {
				l = l.WithKind(heap.Weak)
			}
			ed[k].Label = l
		}
	}
	parts := 1
	if len(ed) >= 1<<20 {
		parts = runtime.GOMAXPROCS(0)
	}
	var wg sync.WaitGroup
	for p := range parts {
		wg.Add(1)
		go func() {
			defer wg.Done()
			relabel(p*len(ed)/parts, (p+1)*len(ed)/parts)
		}()
	}
	wg.Wait()
	rd.ed, rd.etype = nil, nil

	attrs := map[string]string{}
	if rd.title != "" {
		attrs["title"] = rd.title
	}
	b.SetMeta(heap.Meta{Runtime: "v8", Attrs: attrs, Live: true})
	rd.b = nil
	return b.Build()
}

// stringSize returns the self size of node i, the rank-th string node.
func (rd *reader) stringSize(i, rank int) uint64 {
	if sz := rd.ssize[rank]; sz != math.MaxUint32 {
		return uint64(sz)
	}
	return rd.bigSize[uint32(i)]
}
