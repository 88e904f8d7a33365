package heapsnapshot

import "slices"

// nonEssential returns a bit set over edges: the edges DevTools leaves
// out when it computes dominators (computeIsEssentialEdge) although
// their V8 type would retain. The reader demotes them to heap.Weak.
//
//   - The internal edge from a WeakMap's backing table to a value: an
//     ephemeron value is retained by its key and its table together, and
//     DevTools keeps only the key's edge.
//   - Edges from an object outside the page to an object inside it,
//     except from the root. Page objects are those reachable, over
//     non-weak edges, from the targets of the root's shortcut edges (the
//     global objects) and from "(Document DOM trees)". Without this,
//     objects also held by the debugger, the compilation cache or a
//     handle would be dominated by the root instead of by their owner.
//
// It returns nil when Options.AllEdges is set.
//
// start[i] is where node i's edges start (n+1 entries).
func (rd *reader) nonEssential(start []uint32, internalType, weakType int) []uint64 {
	if rd.opt.AllEdges {
		return nil
	}
	n, m := len(rd.ntype), len(rd.ed)
	ed := rd.ed
	bits := make([]uint64, (m+63)/64)
	set := func(k int) { bits[k/64] |= 1 << (k % 64) }

	// WeakMap table -> value.
	if internalType >= 0 {
		// Per string index: 0 unknown, 1 not a WeakMap edge name, 2 one
		// (table id in tables).
		state := make([]uint8, len(rd.use))
		tables := map[uint32]uint64{}
		for src := 0; src < n; src++ {
			for k := start[src]; k < start[src+1]; k++ {
				t, name := rd.edge(int(k))
				if int(t) != internalType {
					continue
				}
				switch state[name] {
				case 1:
					continue
				case 0:
					id, ok := weakMapTable(string(rd.str(name)))
					if !ok {
						state[name] = 1
						continue
					}
					state[name] = 2
					tables[name] = id
				}
				if tables[name] == rd.nodeID(src) {
					set(int(k))
				}
			}
		}
	}

	// Page-owned objects.
	root := int(rd.rootIndex / uint64(rd.nf))
	shortcut := slices.Index(rd.edgeTypes, "shortcut")
	element := slices.Index(rd.edgeTypes, "element")
	synthetic := slices.Index(rd.nodeTypes, "synthetic")
	owned := make([]uint64, (n+63)/64)
	has := func(i uint32) bool { return owned[i/64]&(1<<(i%64)) != 0 }
	mark := func(i uint32) { owned[i/64] |= 1 << (i % 64) }
	var stack []uint32
	for k := start[root]; k < start[root+1]; k++ {
		t8, _ := rd.edge(int(k))
		t := int(t8)
		to := uint32(ed[k].To)
		switch {
		case t == shortcut && t >= 0:
		case t == element && t >= 0 && int(rd.ntype[to]) == synthetic &&
			int(rd.nname[to]) < len(rd.use) && string(rd.str(rd.nname[to])) == "(Document DOM trees)":
		default:
			continue
		}
		if !has(to) {
			mark(to)
			stack = append(stack, to)
		}
	}
	if len(stack) == 0 {
		return bits
	}
	for len(stack) > 0 {
		v := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		for k := start[v]; k < start[v+1]; k++ {
			if t, _ := rd.edge(int(k)); int(t) == weakType {
				continue
			}
			if to := uint32(ed[k].To); !has(to) {
				mark(to)
				stack = append(stack, to)
			}
		}
	}
	for src := 0; src < n; src++ {
		if src == root || has(uint32(src)) {
			continue
		}
		for k := start[src]; k < start[src+1]; k++ {
			if t, _ := rd.edge(int(k)); int(t) != weakType && has(uint32(ed[k].To)) {
				set(int(k))
			}
		}
	}
	return bits
}
