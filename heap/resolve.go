package heap

import (
	"runtime"
	"sort"
	"sync"
	"unsafe"

	"github.com/heapscope/heapscope/internal/spill"
)

// addrLookup finds objects by address: an [AddrIndex] of every object,
// or a [sparseIndex] of the addresses a builder looks up.
type addrLookup interface {
	Lookup(a uint64) (ObjectID, bool)
}

// sparseIndex maps the addresses a builder looks up to the first object
// at each (None: no object).
type sparseIndex map[uint64]ObjectID

func (x sparseIndex) Lookup(a uint64) (ObjectID, bool) {
	id, ok := x[a]
	return id, ok && id != None
}

// wantedIndex indexes the addresses that edges, roots, values, digests
// and sites name, with one pass over the objects.
func (b *Builder) wantedIndex() sparseIndex {
	x := sparseIndex{}
	for _, a := range b.tgt {
		x[a] = None
	}
	for _, e := range b.late {
		x[e.to] = None
	}
	for _, r := range b.roots {
		x[r.target] = None
	}
	for _, s := range [][]uint64{b.valAt, b.digAt, b.siteAt, b.limAt} {
		for _, a := range s {
			x[a] = None
		}
	}
	// Most objects are not wanted: a filter of the wanted addresses
	// turns most of them away before the map is asked.
	filter := newWantedFilter(len(x))
	for a := range x {
		filter.add(a)
	}
	for i, a := range b.addr {
		if !filter.has(a) {
			continue
		}
		if id, want := x[a]; want && id == None {
			x[a] = ObjectID(i)
		}
	}
	return x
}

// wantedFilter is a set of addresses that may answer yes for an address
// not in it, never no for one in it: one bit per hash of an address,
// with at least 16 bits per address it holds, so it answers yes for
// about one other address in 16 or fewer.
type wantedFilter struct {
	bits  []uint64
	shift uint // 64 - log2(len(bits)*64)
}

func newWantedFilter(n int) wantedFilter {
	logBits := uint(16)
	for logBits < 40 && 1<<logBits < 16*n {
		logBits++
	}
	return wantedFilter{bits: make([]uint64, 1<<logBits/64), shift: 64 - logBits}
}

// hash is Fibonacci hashing: the top bits of the address times 2^64/phi.
func (f wantedFilter) hash(a uint64) uint64 { return (a * 0x9E3779B97F4A7C15) >> f.shift }

func (f wantedFilter) add(a uint64) { h := f.hash(a); f.bits[h/64] |= 1 << (h % 64) }

func (f wantedFilter) has(a uint64) bool { h := f.hash(a); return f.bits[h/64]&(1<<(h%64)) != 0 }

// resolveInPlace resolves address targets on every core, then compacts
// the edges into the memory of the target array (an 8-byte address
// becomes an 8-byte Edge), so the edges are never copied to a new array.
func (b *Builder) resolveInPlace(n int, idx addrLookup) ([]Edge, []uint32, int, uint64) {
	tgt := b.tgt
	const none = ^uint64(0)
	workers := runtime.GOMAXPROCS(0)
	chunk := (len(tgt) + workers - 1) / workers
	var wg sync.WaitGroup
	type lost struct {
		count int
		first uint64
	}
	losts := make([]lost, workers)
	for i, lo := 0, 0; lo < len(tgt); i, lo = i+1, lo+chunk {
		hi := min(lo+chunk, len(tgt))
		wg.Add(1)
		go func(lo int, part []uint64, l *lost) {
			defer wg.Done()
			for k, a := range part {
				if id, ok := idx.Lookup(a); ok {
					part[k] = uint64(id)
					continue
				}
				if !b.quiet(lo+k, a) {
					if l.count == 0 {
						l.first = a
					}
					l.count++
				}
				part[k] = none
			}
		}(lo, tgt[lo:hi], &losts[i])
	}
	wg.Wait()
	var dangling int
	var first uint64
	for _, l := range losts {
		if l.count > 0 && dangling == 0 {
			first = l.first
		}
		dangling += l.count
	}
	edges := unsafe.Slice((*Edge)(unsafe.Pointer(&tgt[0])), len(tgt))
	start := b.edgeStart[:n+1]
	w := uint32(0)
	for src := 0; src < n; src++ {
		lo, hi := start[src], start[src+1]
		start[src] = w
		for k := lo; k < hi; k++ {
			t := tgt[k] // read before edges[w] (w <= k) overwrites it
			if t == none {
				continue
			}
			edges[w] = Edge{ObjectID(t), b.lab[k]}
			w++
		}
	}
	start[n] = w
	return edges[:w:w], start, dangling, first
}

// mergeLate merges the edges that came out of order (ByID) into edges,
// the in-order ones compacted, with start their CSR: each source's late
// edges follow its own, in the order given, as [Builder.mergeEdges]
// places them. It moves the edges within the array, from the last source
// back, instead of copying them all to a new one: a few late edges (a
// thread's references from its frames) cost a pass, not a second array.
// firstSrc is the source of the first dangling in-order edge (-1: none);
// dangling and first count the late edges to no object as mergeEdges
// would, first the target of the earliest in (source, order).
func (b *Builder) mergeLate(n int, edges []Edge, start []uint32, firstSrc int, dangling *int, first *uint64) []Edge {
	sort.SliceStable(b.late, func(i, j int) bool { return b.late[i].from < b.late[j].from })
	late := b.late[:0]
	seen := false // a dangling late edge
	for _, e := range b.late {
		if e.to >= uint64(n) {
			if !seen {
				seen = true
				if firstSrc < 0 || int(e.from) < firstSrc {
					*first = e.to
				}
			}
			*dangling++
			continue
		}
		late = append(late, e)
	}
	total := len(edges) + len(late)
	if cap(edges) >= total {
		edges = edges[:total]
	} else {
		grown := spill.Make[Edge](total)
		copy(grown, edges)
		spill.Free(edges)
		edges = grown
	}
	dst, hi, li := total, start[n], len(late)-1
	start[n] = uint32(total)
	for src := n - 1; src >= 0; src-- {
		for ; li >= 0 && int(late[li].from) == src; li-- {
			dst--
			edges[dst] = Edge{ObjectID(late[li].to), late[li].l}
		}
		lo := start[src]
		dst -= int(hi - lo)
		copy(edges[dst:], edges[lo:hi])
		hi = lo
		start[src] = uint32(dst)
	}
	return edges
}

// mergeEdges copies the edges into their final array, resolving targets
// and merging in the edges that came out of order.
func (b *Builder) mergeEdges(n int, resolve func(int, uint64) (ObjectID, bool)) ([]Edge, []uint32) {
	edges := spill.MakeCap[Edge](0, b.numEdges()+len(b.late))
	start := b.edgeStart
	if len(b.late) > 0 {
		sort.SliceStable(b.late, func(i, j int) bool { return b.late[i].from < b.late[j].from })
	}
	li := 0
	newStart := spill.Make[uint32](n + 1)
	for src := 0; src < n; src++ {
		newStart[src] = uint32(len(edges))
		for k := start[src]; k < start[src+1]; k++ {
			if b.targets == ByID {
				if id, ok := resolve(-1, uint64(b.ed[k].To)); ok {
					edges = append(edges, Edge{id, b.ed[k].Label})
				}
				continue
			}
			if id, ok := resolve(int(k), b.tgt[k]); ok {
				edges = append(edges, Edge{id, b.lab[k]})
			}
		}
		for li < len(b.late) && int(b.late[li].from) == src {
			if id, ok := resolve(-1, b.late[li].to); ok {
				edges = append(edges, Edge{id, b.late[li].l})
			}
			li++
		}
	}
	newStart[n] = uint32(len(edges))
	return edges, newStart
}
