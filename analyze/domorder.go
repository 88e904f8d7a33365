package analyze

import (
	"cmp"
	"slices"
	"strings"

	"github.com/heapscope/heapscope/heap"
)

// order numbers the dominator tree in preorder: pre[v] is v's number
// and end[v] one more than the last number in v's subtree, so that a
// dominates b exactly when pre[a] < pre[b] < end[a] (the intervals of
// a tree nest). Objects not in the tree keep pre = end = notInTree.
// Memory: 8 bytes per object, kept with the tree.
func (t *DomTree) order() {
	pre := make([]uint32, t.n)
	end := make([]uint32, t.n)
	for i := range pre {
		pre[i], end[i] = notInTree, notInTree
	}
	next := uint32(0)
	t.walk(func(v uint32) {
		pre[v] = next
		next++
	}, func(v uint32) {
		end[v] = next
	})
	t.pre, t.end = pre, end
}

const notInTree = ^uint32(0)

// retainedOnce returns the memory objs retain, each object counted once:
// the sum of the retained sizes of the members that no other member
// dominates (what [TopMost] sums), in O(k log k) for k members once the
// tree is numbered (see order). Objects not in the tree retain nothing.
func (t *DomTree) retainedOnce(objs []heap.ObjectID) uint64 {
	if len(objs) == 1 {
		return t.Retained(objs[0])
	}
	t.orderOnce.Do(t.order)
	in := make([]uint32, 0, len(objs))
	for _, x := range objs {
		if int(x) < t.n && t.pre[x] != notInTree {
			in = append(in, uint32(x))
		}
	}
	slices.SortFunc(in, func(a, b uint32) int { return cmp.Compare(t.pre[a], t.pre[b]) })
	var sum uint64
	open := false
	var openEnd uint32
	for _, v := range in {
		if open && t.pre[v] < openEnd {
			continue // inside a member already counted (or the same object twice)
		}
		sum += t.retained[v]
		open, openEnd = true, t.end[v]
	}
	return sum
}

// Bounds of what [HoldsDetached] looks at.
const (
	maxDetachedLook  = 4096
	maxDetachedDepth = 3
)

// HoldsDetached reports whether id is a detached DOM node or holds one
// within a few references (breadth first, over references that retain,
// up to a bound): what is leaked is then, or keeps alive, a part of a
// page no longer shown (a record that holds its panels in an array).
// Detached nodes are V8's types named "Detached " (see package
// heapsnapshot), but for Node's own native objects ("Detached Node /
// ..."), which are no DOM.
func HoldsDetached(g *heap.Graph, id heap.ObjectID) bool {
	detached := func(v heap.ObjectID) bool {
		name := g.TypeName(g.Type(v))
		return strings.HasPrefix(name, "Detached ") && !strings.HasPrefix(name, "Detached Node / ")
	}
	seen := map[heap.ObjectID]bool{id: true}
	level := []heap.ObjectID{id}
	for depth := 0; len(level) > 0 && depth <= maxDetachedDepth; depth++ {
		var next []heap.ObjectID
		for _, v := range level {
			if detached(v) {
				return true
			}
			for _, e := range g.Edges(v) {
				if k := e.Label.Kind(); k == heap.Weak || k == heap.Shortcut || seen[e.To] || len(seen) >= maxDetachedLook {
					continue
				}
				seen[e.To] = true
				next = append(next, e.To)
			}
		}
		level = next
	}
	return false
}
