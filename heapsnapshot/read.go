package heapsnapshot

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"os"
	"slices"

	"github.com/heapscope/heapscope/heap"
	"github.com/heapscope/heapscope/internal/input"
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
