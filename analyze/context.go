package analyze

import (
	"math/bits"

	"github.com/heapscope/heapscope/heap"
)

// Context returns the objects, in ID order, that objs lead to and that
// are not in objs: each object's immediate dominator (in t) and the
// object before it on its shortest path (in r), and theirs in turn. With
// objs, they hold every object that one of them leads to, so that the
// dominator chain and the path of each can be followed object by object
// to its end. The time is O(len(objs) + the result), plus a pass over
// two bitsets of one bit per object.
func Context(t *DomTree, r *Retainers, objs []heap.ObjectID) []heap.ObjectID {
	n := t.g.NumObjects()
	listed, added := newBitset(n), newBitset(n)
	for _, x := range objs {
		if int(x) < n {
			listed.set(uint32(x))
		}
	}
	var work []heap.ObjectID
	add := func(x heap.ObjectID) {
		if x != SuperRoot && x != Unreachable && !listed.has(uint32(x)) && !added.has(uint32(x)) {
			added.set(uint32(x))
			work = append(work, x)
		}
	}
	follow := func(x heap.ObjectID) {
		add(t.Idom(x))
		if r != nil && r.Reached(x) {
			p, _ := r.Parent(x)
			add(p)
		}
	}
	for _, x := range objs {
		if int(x) < n {
			follow(x)
		}
	}
	for len(work) > 0 {
		x := work[len(work)-1]
		work = work[:len(work)-1]
		follow(x)
	}
	var out []heap.ObjectID
	for w, word := range added {
		for ; word != 0; word &= word - 1 {
			out = append(out, heap.ObjectID(uint32(w)*64+uint32(bits.TrailingZeros64(word))))
		}
	}
	return out
}
