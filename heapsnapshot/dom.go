package heapsnapshot

import (
	"bytes"
	"slices"

	"github.com/heapscope/heapscope/heap"
)

// DOM states of the detachedness node field (Blink sets it on the
// embedder nodes it knows; Node sets it on a few of its own).
const (
	domAttached = 1
	domDetached = 2
)

// padTo returns s extended with zeros to length n.
func padTo(s []uint8, n int) []uint8 {
	if len(s) >= n {
		return s
	}
	return append(s, make([]uint8, n-len(s))...)
}

// detached returns a bit set over nodes: the native nodes that are
// detached, as DevTools' propagateDOMState decides, or nil when none is.
// A node whose state the snapshot gives keeps it. Then, over every edge
// but hidden, invisible and weak ones, native nodes that an attached
// node reaches are attached, and native nodes that only detached ones
// reach are detached. The state does not pass through JavaScript
// objects: every way into the embedder's objects is a node that knows
// its own state.
//
// start[i] is where node i's edges start (n+1 entries).
func (rd *reader) detached(start []uint32) []uint64 {
	if rd.dstate == nil {
		return nil
	}
	n := len(rd.ntype)
	state := padTo(rd.dstate, n)
	native := slices.Index(rd.nodeTypes, "native")
	skip := make([]bool, len(rd.edgeTypes))
	for i, t := range rd.edgeTypes {
		skip[i] = t == "hidden" || t == "invisible" || t == "weak"
	}
	visited := make([]uint64, (n+63)/64)
	seen := func(i uint32) bool { return visited[i/64]&(1<<(i%64)) != 0 }
	var attached, detached []uint32
	visit := func(i uint32, s uint8) {
		if seen(i) {
			return
		}
		visited[i/64] |= 1 << (i % 64)
		if int(rd.ntype[i]) != native {
			return
		}
		state[i] = s
		if s == domAttached {
			attached = append(attached, i)
		} else {
			detached = append(detached, i)
		}
	}
	for i, s := range state {
		if s != 0 {
			visit(uint32(i), s)
		}
	}
	spread := func(stack *[]uint32, s uint8) {
		for len(*stack) > 0 {
			v := (*stack)[len(*stack)-1]
			*stack = (*stack)[:len(*stack)-1]
			if s == domDetached && state[v] == domAttached {
				continue
			}
			if rd.skipping {
				lo, _ := slices.BinarySearch(rd.natSrc, v)
				for k := lo; k < len(rd.natSrc) && rd.natSrc[k] == v; k++ {
					if e := rd.natEdge[k]; !skip[uint32(e.Label)] {
						visit(uint32(e.To), s)
					}
				}
				continue
			}
			for k := start[v]; k < start[v+1]; k++ {
				if t, _ := rd.edge(int(k)); !skip[t] {
					visit(uint32(rd.ed[k].To), s)
				}
			}
		}
	}
	spread(&attached, domAttached)
	spread(&detached, domDetached)
	var out []uint64
	for i, s := range state {
		if s == domDetached && int(rd.ntype[i]) == native {
			if out == nil {
				out = make([]uint64, (n+63)/64)
			}
			out[i/64] |= 1 << (i % 64)
		}
	}
	rd.dstate, rd.natSrc, rd.natEdge = nil, nil, nil
	return out
}

// nameElement gives a DOM element whose node name carries its
// attributes ("<div class="panel" id="p1">", which its type shortens to
// "<div>") that name as its own, as DevTools names the instances of a
// constructor: "Detached <div class="panel" id="p1">" when it is
// detached, so that a path or a leak says which element it is.
func (rd *reader) nameElement(b *heap.Builder, id heap.ObjectID, raw []byte, detached bool) {
	tag := raw
	if bytes.HasPrefix(tag, []byte("Detached ")) {
		tag = tag[len("Detached "):]
	}
	if len(tag) < 3 || tag[0] != '<' || bytes.IndexByte(tag, ' ') < 0 {
		return
	}
	full := string(raw)
	if detached && !bytes.HasPrefix(raw, []byte("Detached ")) {
		full = "Detached " + full
	}
	b.SetName(id, b.String(full))
}
