package heapsnapshot

import (
	"math"
	"slices"

	"github.com/heapscope/heapscope/heap"
)

// Allocation traces. A snapshot taken while V8 tracks allocations (node
// --track-heap-objects, or the inspector's
// HeapProfiler.startTrackingHeapObjects with trackAllocations) gives
// each node a trace_node_id: a node of trace_tree, the tree of the
// JavaScript stacks that allocated, whose nodes name functions of
// trace_function_infos (name, script, and the line and column where the
// function starts, 1-based, 0 when unknown). The reader turns the tree
// into the graph's site table (the tree's root, V8's "(root)", is
// NoSite) and gives each object the site of its trace node.

// traceLayout is where the fields are in the trace records.
type traceLayout struct {
	fnWidth                   int // numbers per trace function info
	fnName, fnScript          int
	fnLine, fnColumn          int // -1 when absent
	nodeWidth                 int // numbers per trace node, children excluded
	nodeID, nodeFn            int
	haveFunctions, haveTree   bool
	fnOff                     int64
	functions                 []traceFunction
	treeID, treeFn, treeUp    []uint32 // per trace node, in pre-order; treeUp: index of the parent, or noParent
	fnMaxName, fnMaxNameOff   int64
	unknownTrace, badFunction int
}

type traceFunction struct{ name, script, line, column uint32 }

const noParent = math.MaxUint32

// setTraceLayout reads the trace fields of snapshot.meta; absent, V8's
// own layout is assumed.
func (rd *reader) setTraceLayout(fnFields, nodeFields []string) error {
	if len(fnFields) == 0 {
		fnFields = []string{"function_id", "name", "script_name", "script_id", "line", "column"}
	}
	if len(nodeFields) == 0 {
		nodeFields = []string{"id", "function_info_index", "count", "size", "children"}
	}
	t := &rd.trace
	t.fnWidth = len(fnFields)
	t.fnName, t.fnScript = slices.Index(fnFields, "name"), slices.Index(fnFields, "script_name")
	t.fnLine, t.fnColumn = slices.Index(fnFields, "line"), slices.Index(fnFields, "column")
	t.nodeWidth = len(nodeFields) - 1
	t.nodeID, t.nodeFn = slices.Index(nodeFields, "id"), slices.Index(nodeFields, "function_info_index")
	if t.fnWidth > 64 || t.nodeWidth > 64 || t.fnName < 0 || t.fnScript < 0 || t.nodeID < 0 || t.nodeFn < 0 ||
		nodeFields[len(nodeFields)-1] != "children" {
		return rd.s.errorf(0, "meta.trace_function_info_fields %q or trace_node_fields %q lack what a trace needs", fnFields, nodeFields)
	}
	t.fnMaxName = -1
	return nil
}

// traceFunctions reads trace_function_infos.
func (rd *reader) traceFunctions() error {
	s := rd.s
	t := &rd.trace
	t.fnOff = s.offset()
	if err := s.expect('['); err != nil {
		return err
	}
	return s.records(t.fnWidth, func(vals []uint64, offs []int64) error {
		for r, off := range offs {
			rec := vals[r*t.fnWidth : (r+1)*t.fnWidth]
			var f traceFunction
			for _, x := range []struct {
				dst *uint32
				i   int
			}{{&f.name, t.fnName}, {&f.script, t.fnScript}, {&f.line, t.fnLine}, {&f.column, t.fnColumn}} {
				if x.i < 0 {
					continue
				}
				if rec[x.i] > math.MaxUint32 {
					return s.errorf(off, "trace function %d: field %d out of range", len(t.functions), x.i)
				}
				*x.dst = uint32(rec[x.i])
			}
			for _, n := range []uint32{f.name, f.script} {
				if int64(n) > t.fnMaxName {
					t.fnMaxName, t.fnMaxNameOff = int64(n), off
				}
			}
			if len(t.functions) >= math.MaxUint32-1 {
				return s.errorf(off, "too many trace functions")
			}
			t.functions = append(t.functions, f)
		}
		return nil
	})
}

// traceTree reads trace_tree: a list of nodes, each nodeWidth numbers
// and a list of its children, nested. It keeps the nodes in pre-order
// with the index of each one's parent; an explicit stack stands for the
// nesting, so depth costs memory in proportion to the input only.
func (rd *reader) traceTree() error {
	s := rd.s
	t := &rd.trace
	if err := s.expect('['); err != nil {
		return err
	}
	rec := make([]uint64, t.nodeWidth)
	stack := []uint32{noParent} // the parent of the list being read
	for {
		c, err := s.peek()
		if err != nil {
			return err
		}
		if c == ']' {
			s.pos++
			stack = stack[:len(stack)-1]
			if len(stack) == 0 {
				return nil
			}
			if c, err = s.peek(); err != nil {
				return err
			}
			if c == ',' {
				s.pos++
			}
			continue
		}
		off := s.offset()
		for i := range rec {
			if i > 0 {
				if err := s.expect(','); err != nil {
					return err
				}
			}
			v, err := s.uint()
			if err != nil {
				return err
			}
			rec[i] = v
		}
		if err := s.expect(','); err != nil {
			return err
		}
		if rec[t.nodeID] > math.MaxUint32 || rec[t.nodeFn] > math.MaxUint32 {
			return s.errorf(off, "trace node id or function out of range")
		}
		if len(t.treeID) >= math.MaxUint32-1 {
			return s.errorf(off, "too many trace nodes")
		}
		t.treeID = append(t.treeID, uint32(rec[t.nodeID]))
		t.treeFn = append(t.treeFn, uint32(rec[t.nodeFn]))
		t.treeUp = append(t.treeUp, stack[len(stack)-1])
		if err := s.expect('['); err != nil {
			return err
		}
		stack = append(stack, uint32(len(t.treeID)-1))
	}
}

// uint reads an unsigned integer after white space.
func (s *scanner) uint() (uint64, error) {
	c, err := s.peek()
	if err != nil {
		return 0, err
	}
	off := s.offset()
	if c < '0' || c > '9' {
		return 0, s.errorf(off, "found %s, want an unsigned integer", quoteByte(c))
	}
	var v uint64
	for {
		for s.pos < s.end {
			d := s.buf[s.pos] - '0'
			if d > 9 {
				return v, nil
			}
			if v > (math.MaxUint64-uint64(d))/10 {
				return 0, s.errorf(off, "number does not fit in 64 bits")
			}
			v = v*10 + uint64(d)
			s.pos++
		}
		if !s.fill() {
			return v, nil
		}
	}
}

// traceNames marks the strings the trace functions name, once the
// strings' uses are known to be in range.
func (rd *reader) traceNames(use []uint8) {
	for _, f := range rd.trace.functions {
		use[f.name] |= useName
		use[f.script] |= useName
	}
}

// buildSites gives the builder the site table and each node its site.
func (rd *reader) buildSites(b *heap.Builder) {
	t := &rd.trace
	if len(t.treeID) == 0 || rd.ntrace == nil {
		return
	}
	interned := map[uint32]heap.StringID{}
	intern := func(i uint32) heap.StringID {
		if id, ok := interned[i]; ok {
			return id
		}
		id := b.String(string(rd.str(i)))
		interned[i] = id
		return id
	}
	site := make([]heap.SiteID, len(t.treeID))
	byID := make(map[uint32]heap.SiteID, len(t.treeID))
	for i, fn := range t.treeFn {
		up := t.treeUp[i]
		if up == noParent {
			byID[t.treeID[i]] = heap.NoSite // V8's (root): no JavaScript allocated it
			continue
		}
		var f heap.Frame
		if int(fn) < len(t.functions) {
			tf := t.functions[fn]
			f = heap.Frame{Function: intern(tf.name), File: intern(tf.script), Line: tf.line, Column: tf.column}
		} else {
			t.badFunction++
		}
		site[i] = b.AddSite(site[up], f)
		byID[t.treeID[i]] = site[i]
	}
	for i, tid := range rd.ntrace {
		if tid == 0 {
			continue
		}
		s, ok := byID[tid]
		if !ok {
			t.unknownTrace++
			continue
		}
		b.SetSite(heap.ObjectID(i), s)
	}
	if t.unknownTrace > 0 {
		b.Warn(-1, "%d nodes name a trace node the trace tree lacks; their allocation sites are unknown", t.unknownTrace)
	}
	if t.badFunction > 0 {
		b.Warn(-1, "%d trace nodes name a function trace_function_infos lacks", t.badFunction)
	}
}
