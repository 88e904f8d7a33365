package inspector

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"regexp"
	"strconv"
)

// Redact copies the V8 heap snapshot JSON text from r to w with the
// string contents replaced, as it streams: nothing of a replaced string
// reaches w. Only the strings table changes; nodes and edges are copied
// as they are, so the snapshot has the same objects, sizes and
// references.
//
// V8 keeps every text of a snapshot once, in the strings table that it
// writes last, and names nodes and edges by index into it. An entry is
// kept only if it is a program identifier:
//
//   - the name of a node that is not a value: a constructor, function or
//     class name, a native or system name;
//   - an edge name (property, variable, internal) that is not also the
//     text of a string node, or whose string node is held by compiled
//     code or an object shape, where V8 keeps the names the program's
//     code uses;
//   - the name and script of a function of an allocation trace
//     (trace_function_infos, when V8 tracked allocations): where code
//     is, not what it holds.
//
// Every other entry is replaced by "[redacted #N]", N its index: equal
// strings stay equal (duplicates are still found), and as an edge name it
// is bracketed like a container's key, so the analyses merge the paths
// through it as they merge "[17]". Replaced are the texts of string,
// concatenated string, sliced string, regexp, number and bigint nodes
// (string values, source code, regexp sources), and the keys of objects
// used as dictionaries (obj[key] = v) that no code names. A WeakMap entry's edge name, which
// V8 builds from the names of its key and value, keeps its ids and loses
// the names. Keys of objects that keep few keys (V8 gives them a shape,
// like a class's instances) stay: V8 does not tell them from property
// names.
//
// Redact needs about 9 bytes per node and one per string while it runs.
// It fails, with nothing more written, on text that is not a snapshot it
// understands (the sections out of order, an index out of range), rather
// than let a string through.
func Redact(w io.Writer, r io.Reader) error {
	rd := &redactor{r: bufio.NewReaderSize(r, 64<<10), w: bufio.NewWriterSize(w, 64<<10)}
	if err := rd.run(); err != nil {
		return fmt.Errorf("redact: at offset %d: %w", rd.off, err)
	}
	return rd.w.Flush()
}

// Kinds of nodes, by V8 node type.
const (
	kindOther = iota // named by an identifier
	kindValue        // named by its content
	kindCode         // holds the names the program's code uses
)

// Flags of a strings table entry: how the nodes and edges use it.
const (
	fIdent    = 1 << iota // names a node that is not a value
	fValue                // names a value node: its content
	fEdge                 // names an edge
	fInternal             // names an internal edge
	fCode                 // the content of a string node held by code or a shape
)

type redactor struct {
	r   *bufio.Reader
	w   *bufio.Writer
	off int64

	// Layout, from snapshot.meta.
	nf, fType, fName, fCount int
	ef, eType, eName, eTo    int
	tf, tName, tScript       int     // trace function infos
	nodeKind                 []uint8 // by node type
	edgeNamed, edgeInternal  []bool  // by edge type

	// Per node.
	kind  []uint8
	name  []uint32
	count []uint32

	flags                  []uint8 // per strings table entry
	haveMeta, haveNodes    bool
	haveEdges, haveStrings bool
	refs                   int64 // nodes and edges read
}

func (rd *redactor) run() error {
	if err := rd.space(); err != nil {
		return err
	}
	if err := rd.expect('{'); err != nil {
		return err
	}
	for {
		if err := rd.space(); err != nil {
			return err
		}
		c, err := rd.peek()
		if err != nil {
			return err
		}
		if c == '}' {
			rd.next()
			return rd.space()
		}
		if c == ',' {
			rd.next()
			continue
		}
		raw, err := rd.copyString(true)
		if err != nil {
			return err
		}
		var key string
		if err := json.Unmarshal(raw, &key); err != nil {
			return fmt.Errorf("bad key %s: %v", raw, err)
		}
		if err := rd.space(); err != nil {
			return err
		}
		if err := rd.expect(':'); err != nil {
			return err
		}
		if err := rd.space(); err != nil {
			return err
		}
		if err := rd.section(key); err != nil {
			return err
		}
	}
}

// section copies the value of the top-level key.
func (rd *redactor) section(key string) error {
	switch key {
	case "snapshot":
		raw, err := rd.copyValue(1 << 20)
		if err != nil {
			return err
		}
		return rd.meta(raw)
	case "nodes":
		if !rd.haveMeta || rd.haveNodes {
			return errors.New(`"nodes" before "snapshot", or twice`)
		}
		rd.haveNodes = true
		return rd.numbers(rd.nf, rd.node)
	case "edges":
		if !rd.haveNodes || rd.haveEdges {
			return errors.New(`"edges" before "nodes", or twice`)
		}
		rd.haveEdges = true
		rd.count = append(rd.count, 0) // a sentinel for the edge cursor
		return rd.numbers(rd.ef, rd.edgeOf())
	case "trace_function_infos":
		if !rd.haveEdges || rd.haveStrings || rd.tName < 0 || rd.tScript < 0 {
			return errors.New(`"trace_function_infos" out of order, or without its fields`)
		}
		return rd.numbers(rd.tf, func(v []uint64) error {
			if err := rd.use(v[rd.tName], fIdent); err != nil {
				return err
			}
			return rd.use(v[rd.tScript], fIdent)
		})
	case "strings":
		if !rd.haveEdges || rd.haveStrings {
			return errors.New(`"strings" before "edges", or twice`)
		}
		rd.haveStrings = true
		return rd.strings()
	}
	_, err := rd.copyValue(0)
	return err
}

// meta reads the layout from the snapshot object.
func (rd *redactor) meta(raw []byte) error {
	var s struct {
		Meta struct {
			NodeFields []string          `json:"node_fields"`
			NodeTypes  []json.RawMessage `json:"node_types"`
			EdgeFields []string          `json:"edge_fields"`
			EdgeTypes  []json.RawMessage `json:"edge_types"`
			TraceFn    []string          `json:"trace_function_info_fields"`
		} `json:"meta"`
	}
	if err := json.Unmarshal(raw, &s); err != nil {
		return fmt.Errorf("snapshot: %v", err)
	}
	m := s.Meta
	index := func(fields []string, name string) int {
		for i, f := range fields {
			if f == name {
				return i
			}
		}
		return -1
	}
	rd.nf, rd.fType, rd.fName, rd.fCount = len(m.NodeFields), index(m.NodeFields, "type"), index(m.NodeFields, "name"), index(m.NodeFields, "edge_count")
	rd.ef, rd.eType, rd.eName, rd.eTo = len(m.EdgeFields), index(m.EdgeFields, "type"), index(m.EdgeFields, "name_or_index"), index(m.EdgeFields, "to_node")
	if len(m.TraceFn) == 0 { // V8's own layout, as the reader assumes
		m.TraceFn = []string{"function_id", "name", "script_name", "script_id", "line", "column"}
	}
	rd.tf, rd.tName, rd.tScript = len(m.TraceFn), index(m.TraceFn, "name"), index(m.TraceFn, "script_name")
	if rd.fType < 0 || rd.fName < 0 || rd.fCount < 0 || rd.eType < 0 || rd.eName < 0 || rd.eTo < 0 ||
		len(m.NodeTypes) <= rd.fType || len(m.EdgeTypes) <= rd.eType {
		return errors.New("snapshot.meta lacks the fields of nodes and edges")
	}
	var nodeTypes, edgeTypes []string
	if json.Unmarshal(m.NodeTypes[rd.fType], &nodeTypes) != nil || json.Unmarshal(m.EdgeTypes[rd.eType], &edgeTypes) != nil {
		return errors.New("snapshot.meta: node or edge types are not a list of names")
	}
	rd.nodeKind = make([]uint8, len(nodeTypes))
	for i, t := range nodeTypes {
		switch t {
		case "string", "concatenated string", "sliced string", "regexp", "number", "bigint":
			rd.nodeKind[i] = kindValue
		case "code", "object shape":
			rd.nodeKind[i] = kindCode
		}
	}
	rd.edgeNamed = make([]bool, len(edgeTypes))
	rd.edgeInternal = make([]bool, len(edgeTypes))
	for i, t := range edgeTypes {
		rd.edgeNamed[i] = t != "element" && t != "hidden"
		rd.edgeInternal[i] = t == "internal"
	}
	rd.haveMeta = true
	return nil
}

// use marks the strings table entry i.
func (rd *redactor) use(i uint64, f uint8) error {
	// V8 numbers the strings in the order it writes their first use, so
	// an index never runs far ahead of the nodes and edges read so far;
	// a larger one is corrupt and would cost memory.
	if i > uint64(2*rd.refs+1<<16) {
		return fmt.Errorf("string index %d out of range", i)
	}
	for uint64(len(rd.flags)) <= i {
		rd.flags = append(rd.flags, 0)
	}
	rd.flags[i] |= f
	return nil
}

// node records one node's fields.
func (rd *redactor) node(v []uint64) error {
	t := v[rd.fType]
	k := uint8(kindValue) // an unknown type is treated as a value
	if t < uint64(len(rd.nodeKind)) {
		k = rd.nodeKind[t]
	}
	if v[rd.fName] > 1<<32-1 || v[rd.fCount] > 1<<32-1 {
		return errors.New("node name or edge count out of range")
	}
	rd.kind = append(rd.kind, k)
	rd.name = append(rd.name, uint32(v[rd.fName]))
	rd.count = append(rd.count, uint32(v[rd.fCount]))
	rd.refs++
	f := uint8(fIdent)
	if k == kindValue {
		f = fValue
	}
	return rd.use(v[rd.fName], f)
}

// edgeOf returns the handler of the edges, which follows the edges'
// source nodes by their edge counts.
func (rd *redactor) edgeOf() func([]uint64) error {
	src, left := 0, uint32(0)
	if len(rd.count) > 0 {
		left = rd.count[0]
	}
	return func(v []uint64) error {
		for left == 0 {
			src++
			if src >= len(rd.kind) {
				return errors.New("more edges than the nodes' edge counts")
			}
			left = rd.count[src]
		}
		left--
		rd.refs++
		t := v[rd.eType]
		if t >= uint64(len(rd.edgeNamed)) {
			return fmt.Errorf("edge type %d out of range", t)
		}
		to := v[rd.eTo]
		if to%uint64(rd.nf) != 0 || to/uint64(rd.nf) >= uint64(len(rd.kind)) {
			return fmt.Errorf("to_node %d is not a node", to)
		}
		dst := to / uint64(rd.nf)
		if rd.kind[src] == kindCode && rd.kind[dst] == kindValue {
			if err := rd.use(uint64(rd.name[dst]), fCode); err != nil {
				return err
			}
		}
		if !rd.edgeNamed[t] {
			return nil
		}
		f := uint8(fEdge)
		if rd.edgeInternal[t] {
			f |= fInternal
		}
		return rd.use(v[rd.eName], f)
	}
}

// keep reports whether strings table entry i is written as it is.
func (rd *redactor) keep(i int) bool {
	if i == 0 {
		return true // "<dummy>", named by nothing
	}
	if i >= len(rd.flags) {
		return false
	}
	f := rd.flags[i]
	return f&fIdent != 0 || (f&fEdge != 0 && (f&fValue == 0 || f&fCode != 0))
}

// ephemeronRE matches the JSON text of the edge names V8 gives the two
// edges of a WeakMap entry; the names of the key and the value are in
// groups 2 and 4.
var ephemeronRE = regexp.MustCompile(`^("\d+ / part of key \()(.*)( @\d+\) -> value \()(.*)( @\d+\) pair in WeakMap \(table @\d+\)")$`)

// strings copies the strings table, replacing what keep does not keep.
func (rd *redactor) strings() error {
	return rd.array(func(i int) error {
		switch {
		case !rd.keep(i):
			if err := rd.skipString(); err != nil {
				return err
			}
			rd.w.WriteString(`"[redacted #` + strconv.Itoa(i) + `]"`)
		case i < len(rd.flags) && rd.flags[i]&fInternal != 0:
			raw, err := rd.readString()
			if err != nil {
				return err
			}
			rd.w.Write(scrubEphemeron(raw))
		default:
			_, err := rd.copyString(false)
			return err
		}
		return nil
	})
}

// scrubEphemeron returns the JSON string raw with the names in a WeakMap
// entry's edge name left out, or raw if it is not one. It works on the
// JSON text: the parts it keeps are plain ASCII.
func scrubEphemeron(raw []byte) []byte {
	m := ephemeronRE.FindSubmatch(raw)
	if m == nil {
		return raw
	}
	return append(append(append([]byte{}, m[1]...), m[3]...), m[5]...)
}

// The scanner: bytes are read from r and, unless skipped, written to w
// as they are.

func (rd *redactor) peek() (byte, error) {
	b, err := rd.r.Peek(1)
	if err != nil {
		return 0, eof(err)
	}
	return b[0], nil
}

// next copies one byte and returns it.
func (rd *redactor) next() (byte, error) {
	c, err := rd.r.ReadByte()
	if err != nil {
		return 0, eof(err)
	}
	rd.off++
	return c, rd.w.WriteByte(c)
}

func eof(err error) error {
	if err == io.EOF {
		return io.ErrUnexpectedEOF
	}
	return err
}

func (rd *redactor) expect(want byte) error {
	c, err := rd.next()
	if err != nil {
		return err
	}
	if c != want {
		return fmt.Errorf("found %q, want %q", c, want)
	}
	return nil
}

// space copies white space. At the end of the input it returns nil: the
// caller's next read reports it.
func (rd *redactor) space() error {
	for {
		b, err := rd.r.Peek(1)
		if err != nil {
			return nil
		}
		switch b[0] {
		case ' ', '\t', '\r', '\n':
			rd.next()
		default:
			return nil
		}
	}
}

// scanString reads a JSON string from its opening quote: copied to w if
// copy, returned if keep.
func (rd *redactor) scanString(copy, keep bool) ([]byte, error) {
	var raw []byte
	c, err := rd.r.ReadByte()
	if err != nil {
		return nil, eof(err)
	}
	if c != '"' {
		return nil, fmt.Errorf("found %q, want a string", c)
	}
	rd.off++
	if copy {
		rd.w.WriteByte(c)
	}
	if keep {
		raw = append(raw, c)
	}
	escaped := false
	for {
		// Whole runs up to the next quote or backslash at once.
		chunk, err := rd.r.ReadSlice('"')
		rd.off += int64(len(chunk))
		if copy {
			rd.w.Write(chunk)
		}
		if keep {
			raw = append(raw, chunk...)
		}
		if err == bufio.ErrBufferFull {
			escaped = trailingBackslashes(chunk, escaped)
			continue
		}
		if err != nil {
			return nil, eof(err)
		}
		// chunk ends with a quote: it closes the string unless escaped.
		if !trailingBackslashes(chunk[:len(chunk)-1], escaped) {
			return raw, nil
		}
		escaped = false
	}
}

// trailingBackslashes reports whether b, preceded by an escaping
// backslash if escaped, ends in an odd number of backslashes: the next
// byte is escaped.
func trailingBackslashes(b []byte, escaped bool) bool {
	n := 0
	for n < len(b) && b[len(b)-1-n] == '\\' {
		n++
	}
	if n == len(b) && escaped {
		n++
	}
	return n%2 == 1
}

func (rd *redactor) copyString(keep bool) ([]byte, error) { return rd.scanString(true, keep) }
func (rd *redactor) readString() ([]byte, error)          { return rd.scanString(false, true) }
func (rd *redactor) skipString() error {
	_, err := rd.scanString(false, false)
	return err
}

// copyValue copies one JSON value and returns its text if it is at most
// limit bytes long (limit > 0), or an error if it is longer.
func (rd *redactor) copyValue(limit int) ([]byte, error) {
	var raw []byte
	depth := 0
	for {
		c, err := rd.peek()
		if err != nil {
			return nil, err
		}
		if c == '"' {
			s, err := rd.scanString(true, limit > 0)
			if err != nil {
				return nil, err
			}
			raw = append(raw, s...)
		} else {
			switch c {
			case '{', '[':
				depth++
			case '}', ']':
				depth--
			case ',':
				if depth == 0 {
					return raw, nil // the end of a number or literal
				}
			}
			if depth < 0 {
				return raw, nil // the end of the enclosing object
			}
			rd.next()
			if limit > 0 {
				raw = append(raw, c)
			}
		}
		if limit > 0 && len(raw) > limit {
			return nil, fmt.Errorf("a value longer than %d bytes", limit)
		}
		if depth == 0 && (c == '}' || c == ']' || c == '"') {
			return raw, nil
		}
	}
}

// array copies a JSON array and calls item at the first byte of each
// element, which item reads.
func (rd *redactor) array(item func(i int) error) error {
	if err := rd.expect('['); err != nil {
		return err
	}
	for i := 0; ; i++ {
		if err := rd.space(); err != nil {
			return err
		}
		c, err := rd.peek()
		if err != nil {
			return err
		}
		if c == ']' && i == 0 {
			rd.next()
			return nil
		}
		if err := item(i); err != nil {
			return err
		}
		if err := rd.space(); err != nil {
			return err
		}
		c, err = rd.next()
		if err != nil {
			return err
		}
		if c == ']' {
			return nil
		}
		if c != ',' {
			return fmt.Errorf("found %q, want ',' or ']'", c)
		}
	}
}

// numbers copies an array of unsigned integers and hands them to fn n at
// a time. The numbers are most of a snapshot: it scans the buffered text
// a slice at a time.
func (rd *redactor) numbers(n int, fn func([]uint64) error) error {
	if n <= 0 {
		return errors.New("no fields")
	}
	if err := rd.space(); err != nil {
		return err
	}
	if err := rd.expect('['); err != nil {
		return err
	}
	const (
		first = iota // before the first number: a number or ']'
		item         // after a comma: a number
		num          // in a number
		after        // after a number: ',' or ']'
	)
	v := make([]uint64, n)
	k, state := 0, first
	var x uint64
	end := func() error {
		v[k] = x
		state = after
		if k++; k == n {
			k = 0
			return fn(v)
		}
		return nil
	}
	for {
		chunk, err := rd.r.ReadSlice(']')
		if err != nil && err != bufio.ErrBufferFull {
			return eof(err)
		}
		body := chunk
		if err == nil {
			body = chunk[:len(chunk)-1]
		}
		for i, c := range body {
			switch {
			case c >= '0' && c <= '9':
				switch state {
				case first, item:
					state, x = num, 0
				case after:
					return rd.errorAt(int64(i), "found a number, want ',' or ']'")
				}
				if x > (1<<64-1-9)/10 {
					return rd.errorAt(int64(i), "number out of range")
				}
				x = x*10 + uint64(c-'0')
			case c == ',':
				if state == num {
					if err := end(); err != nil {
						return err
					}
				}
				if state != after {
					return rd.errorAt(int64(i), "found ',', want a number")
				}
				state = item
			case c == ' ' || c == '\n' || c == '\r' || c == '\t':
				if state == num {
					if err := end(); err != nil {
						return err
					}
				}
			default:
				return rd.errorAt(int64(i), fmt.Sprintf("found %q, want a number", c))
			}
		}
		rd.off += int64(len(chunk))
		rd.w.Write(chunk)
		if err == bufio.ErrBufferFull {
			continue
		}
		if state == num {
			if err := end(); err != nil {
				return err
			}
		}
		if state == item {
			return errors.New("found ']', want a number")
		}
		if k != 0 {
			return fmt.Errorf("%d numbers left over, want a multiple of %d", k, n)
		}
		return nil
	}
}

// errorAt returns an error at i bytes past the current offset.
func (rd *redactor) errorAt(i int64, msg string) error {
	rd.off += i
	return errors.New(msg)
}
