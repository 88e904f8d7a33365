package heapsnapshot

import (
	"bufio"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
)

// A small V8 heap snapshot writer for tests: the layout of
// HeapSnapshotJSONSerializer (one record per line, strings last), with a
// configurable node field list.

type tnode struct {
	typ   string
	name  string
	id    uint64
	size  uint64
	dom   uint8 // detachedness: 1 attached, 2 detached
	edges []tedge
	trace uint64 // trace_node_id
}

// tfunc is a trace function info; ttrace a node of the trace tree,
// whose parent is an index into tsnap.traces (-1 for the root).
type tfunc struct {
	name, script string
	line, column uint64
}

type ttrace struct {
	id     uint64
	fn     int
	parent int
}

type tedge struct {
	typ   string
	name  string // for named edges
	index uint64 // for element and hidden edges
	to    int    // target ordinal
}

type tsnap struct {
	nodeFields []string // default: V8 11's seven fields
	nodes      []tnode
	functions  []tfunc
	traces     []ttrace
}

var (
	v8NodeFields = []string{"type", "name", "id", "self_size", "edge_count", "trace_node_id", "detachedness"}
	v8NodeTypes  = []string{"hidden", "array", "string", "object", "code", "closure", "regexp", "number",
		"native", "synthetic", "concatenated string", "sliced string", "symbol", "bigint", "object shape", "wasm object"}
	v8EdgeTypes = []string{"context", "element", "property", "internal", "hidden", "shortcut", "weak"}
)

func quoteJSON(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		switch {
		case r == '"' || r == '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		case r < 0x20 || r >= 0x7f:
			if r > 0xffff {
				r -= 0x10000
				fmt.Fprintf(&b, "\\u%04x\\u%04x", 0xd800+(r>>10), 0xdc00+(r&0x3ff))
			} else {
				fmt.Fprintf(&b, "\\u%04x", r)
			}
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
	return b.String()
}

func (s *tsnap) write(w io.Writer) error {
	bw := bufio.NewWriter(w)
	fields := s.nodeFields
	if fields == nil {
		fields = v8NodeFields
	}
	strs := []string{"<dummy>"}
	index := map[string]int{"<dummy>": 0}
	str := func(x string) int {
		if i, ok := index[x]; ok {
			return i
		}
		index[x] = len(strs)
		strs = append(strs, x)
		return len(strs) - 1
	}
	nedges := 0
	for _, n := range s.nodes {
		nedges += len(n.edges)
	}
	ftypes := make([]string, len(fields))
	for i, f := range fields {
		ftypes[i] = `"number"`
		switch f {
		case "type":
			ftypes[i] = `[` + joinQuoted(v8NodeTypes) + `]`
		case "name":
			ftypes[i] = `"string"`
		}
	}
	fmt.Fprintf(bw, `{"snapshot":{"meta":{"node_fields":[%s],"node_types":[%s],"edge_fields":["type","name_or_index","to_node"],"edge_types":[[%s],"string_or_number","node"],"trace_function_info_fields":["function_id","name","script_name","script_id","line","column"],"trace_node_fields":["id","function_info_index","count","size","children"],"sample_fields":["timestamp_us","last_assigned_id"],"location_fields":["object_index","script_id","line","column"]},"node_count":%d,"edge_count":%d,"trace_function_count":0},`+"\n",
		joinQuoted(fields), strings.Join(ftypes, ","), joinQuoted(v8EdgeTypes), len(s.nodes), nedges)
	bw.WriteString(`"nodes":[`)
	for i, n := range s.nodes {
		if i > 0 {
			bw.WriteString("\n,")
		}
		for j, f := range fields {
			if j > 0 {
				bw.WriteByte(',')
			}
			var v uint64
			switch f {
			case "type":
				v = uint64(slices.Index(v8NodeTypes, n.typ))
			case "name":
				v = uint64(str(n.name))
			case "id":
				v = n.id
			case "self_size":
				v = n.size
			case "edge_count":
				v = uint64(len(n.edges))
			case "detachedness":
				v = uint64(n.dom)
			case "trace_node_id":
				v = n.trace
			case "extra":
				v = 12345
			}
			bw.WriteString(strconv.FormatUint(v, 10))
		}
	}
	bw.WriteString("],\n\"edges\":[")
	first := true
	for _, n := range s.nodes {
		for _, e := range n.edges {
			if !first {
				bw.WriteString("\n,")
			}
			first = false
			t := slices.Index(v8EdgeTypes, e.typ)
			ni := e.index
			if e.typ != "element" && e.typ != "hidden" {
				ni = uint64(str(e.name))
			}
			fmt.Fprintf(bw, "%d,%d,%d", t, ni, e.to*len(fields))
		}
	}
	bw.WriteString("],\n\"trace_function_infos\":[")
	for i, f := range s.functions {
		if i > 0 {
			bw.WriteString("\n,")
		}
		fmt.Fprintf(bw, "%d,%d,%d,%d,%d,%d", i, str(f.name), str(f.script), i, f.line, f.column)
	}
	bw.WriteString("],\n\"trace_tree\":")
	var tree func(parent int)
	tree = func(parent int) {
		bw.WriteByte('[')
		first := true
		for i, tr := range s.traces {
			if tr.parent != parent {
				continue
			}
			if !first {
				bw.WriteByte(',')
			}
			first = false
			fmt.Fprintf(bw, "%d,%d,1,16,", tr.id, tr.fn)
			tree(i)
		}
		bw.WriteByte(']')
	}
	tree(-1)
	bw.WriteString(",\n\"samples\":[],\n\"locations\":[],\n\"strings\":[")
	for i, x := range strs {
		if i > 0 {
			bw.WriteString(",\n")
		}
		bw.WriteString(quoteJSON(x))
	}
	bw.WriteString("]}")
	return bw.Flush()
}

func joinQuoted(xs []string) string {
	q := make([]string, len(xs))
	for i, x := range xs {
		q[i] = quoteJSON(x)
	}
	return strings.Join(q, ",")
}

func (s *tsnap) bytes() []byte {
	var b strings.Builder
	s.write(&b)
	return []byte(b.String())
}

// tinySnap is a small snapshot shaped like Node's:
//
//	0 root (synthetic)        -> [1] (GC roots), shortcut "1" -> global
//	1 (GC roots) (synthetic)  -> [0] (Global handles)
//	2 (Global handles)        -> internal "0 / handle" -> 3 global, -> 9 Holder
//	3 global (object)         -> property "cache" -> 4, property "items" -> 5,
//	                             property "wm" -> 7, property "key" -> 8
//	4 Map (object)            -> internal "table" -> 6
//	5 Array (object)          -> internal "elements" -> 10
//	6 (array) table           -> hidden [0] -> 11 string "hello", [1] -> 12 string "hello"
//	7 WeakMap (object)        -> internal "table" -> 13
//	8 key (object "Key")      -> internal ephemeron name -> 14
//	9 Holder (object)         -> property "held" -> 4
//	10 (array) elements       -> element [0] -> 14, element [2] -> 15
//	11, 12 string "hello"
//	13 (array) WeakMap table  -> internal ephemeron name -> 14, weak "w" -> 8
//	14 LeakItem (object)
//	15 onData (closure)
func tinySnap() *tsnap {
	eph := "1 / part of key (Key @17) -> value (LeakItem @29) pair in WeakMap (table @27)"
	return &tsnap{nodes: []tnode{
		{typ: "synthetic", name: "", id: 1, edges: []tedge{{typ: "element", index: 1, to: 1}, {typ: "shortcut", name: "1", to: 3}}},
		{typ: "synthetic", name: "(GC roots)", id: 3, edges: []tedge{{typ: "element", index: 0, to: 2}}},
		{typ: "synthetic", name: "(Global handles)", id: 5, edges: []tedge{{typ: "internal", name: "0 / handle", to: 3}, {typ: "internal", name: "1 / handle", to: 9}}},
		{typ: "object", name: "global", id: 7, size: 40, edges: []tedge{
			{typ: "property", name: "cache", to: 4}, {typ: "property", name: "items", to: 5},
			{typ: "property", name: "wm", to: 7}, {typ: "property", name: "key", to: 8}}},
		{typ: "object", name: "Map", id: 9, size: 32, edges: []tedge{{typ: "internal", name: "table", to: 6}}},
		{typ: "object", name: "Array", id: 11, size: 32, edges: []tedge{{typ: "internal", name: "elements", to: 10}}},
		{typ: "array", name: "", id: 13, size: 64, edges: []tedge{{typ: "hidden", index: 0, to: 11}, {typ: "hidden", index: 1, to: 12}}},
		{typ: "object", name: "WeakMap", id: 15, size: 32, edges: []tedge{{typ: "internal", name: "table", to: 13}}},
		{typ: "object", name: "Key", id: 17, size: 16, edges: []tedge{{typ: "internal", name: eph, to: 14}}},
		{typ: "object", name: "Holder", id: 19, size: 24, edges: []tedge{{typ: "property", name: "held", to: 4}}},
		{typ: "array", name: "", id: 21, size: 48, edges: []tedge{{typ: "element", index: 0, to: 14}, {typ: "element", index: 2, to: 15}}},
		{typ: "string", name: "hello", id: 23, size: 20},
		{typ: "string", name: "hello", id: 25, size: 20},
		{typ: "array", name: "", id: 27, size: 80, edges: []tedge{{typ: "internal", name: eph, to: 14}, {typ: "weak", name: "w", to: 8}}},
		{typ: "object", name: "LeakItem", id: 29, size: 24},
		{typ: "closure", name: "onData", id: 31, size: 32},
	}}
}

// synthSnap builds a snapshot of about n objects: a root, a global, and
// a chain of objects of a few classes, each with a property, an element
// and an internal edge and a string.
func synthSnap(n int) *tsnap {
	classes := []string{"Object", "LeakItem", "Array", "Map", "Request", "Buffer", "Context", "Listener"}
	s := &tsnap{nodes: make([]tnode, 0, n+3)}
	s.nodes = append(s.nodes,
		tnode{typ: "synthetic", id: 1, edges: []tedge{{typ: "element", index: 1, to: 1}, {typ: "shortcut", name: "1", to: 2}}},
		tnode{typ: "synthetic", name: "(GC roots)", id: 3},
		tnode{typ: "object", name: "global", id: 5, size: 40, edges: []tedge{{typ: "property", name: "head", to: 3}}},
	)
	for i := 3; i < n; i += 2 {
		obj := tnode{typ: "object", name: classes[i%len(classes)], id: uint64(2*i + 1), size: uint64(16 + 8*(i%7))}
		if i+1 < n {
			obj.edges = append(obj.edges, tedge{typ: "element", index: uint64(i % 100), to: i + 1})
		}
		obj.edges = append(obj.edges, tedge{typ: "internal", name: "map", to: 2})
		if i+2 < n {
			obj.edges = append(obj.edges, tedge{typ: "property", name: fmt.Sprintf("p%d", i%50), to: i + 2})
		}
		s.nodes = append(s.nodes, obj)
		if i+1 < n {
			s.nodes = append(s.nodes, tnode{typ: "string", name: fmt.Sprintf("value %d", i%5000), id: uint64(2*i + 3), size: 24})
		}
	}
	return s
}
