package analyze

import (
	"cmp"
	"slices"

	"github.com/heapscope/heapscope/heap"
)

// MapNode is a rectangle of a treemap of the dominator tree (see
// [Treemap]): an object, possibly the end of a chain of objects each of
// which had the next as its only child, or a group of one node's
// children of one type.
type MapNode struct {
	// Object is the object drawn; for a chain, its last object. Top is
	// the chain's first object, Skipped the objects of the chain above
	// Object (0: no chain, Top is Object).
	Object  heap.ObjectID
	Top     heap.ObjectID
	Skipped int
	// Group, when not 0, is the number of children of one type this node
	// stands for (Object is then the biggest of them, Type their type).
	Group int
	Type  string
	Edge  string // the edge from the node's dominator to Top, as [TreeLine] names it
	// Retained is what the node retains: for a chain, its first object
	// (the chain's own objects included), for a group its objects, none
	// of which dominates another.
	Retained uint64
	Kids     []MapNode
	// Hidden counts the children (objects) left out below the last level
	// or for want of room, HiddenBytes what they retain.
	Hidden      int
	HiddenBytes uint64
}

// maxOnlyChildren bounds the objects a chain of only children is followed for:
// a linked list of millions of nodes is cut there, and shown from its
// last object followed.
const maxOnlyChildren = 1 << 16

// Treemap lays out the dominator tree below from for a treemap, depth
// levels deep, at most maxKids rectangles per node, so that the picture
// shows the program rather than the runtime's chains of wrappers:
//   - an object whose only child is another object is passed through,
//     down to the first object with several children or none (the
//     chain is counted: "(root) › … › global"), at every level;
//   - a node with more than maxKids children shows its children of one
//     type as one rectangle ("27,947 × RequestContext"), not its biggest
//     maxKids and a grey rest; objects alone of their type stay objects.
//
// Rectangles are ordered by retained size, largest first; what does not
// fit is counted in Hidden.
func Treemap(t *DomTree, from heap.ObjectID, depth, maxKids int) MapNode {
	return t.mapNode(from, depth, maxKids)
}

func (t *DomTree) mapNode(v heap.ObjectID, depth, maxKids int) MapNode {
	n := MapNode{Top: v, Edge: idomEdge(t, v)}
	for t.NumChildren(v) == 1 && n.Skipped < maxOnlyChildren {
		v = t.Children(v)[0]
		n.Skipped++
	}
	n.Object, n.Retained = v, t.Retained(n.Top)
	kids := t.Children(v)
	if depth <= 0 {
		n.Hidden = len(kids)
		for _, k := range kids {
			n.HiddenBytes += t.Retained(k)
		}
		return n
	}
	var items []MapNode
	if len(kids) > maxKids {
		items = t.groupByType(kids, n.Retained/bigShare)
	} else {
		for _, k := range kids {
			items = append(items, MapNode{Object: k, Retained: t.Retained(k)})
		}
	}
	slices.SortStableFunc(items, func(a, b MapNode) int { return cmp.Compare(b.Retained, a.Retained) })
	for i, it := range items {
		if i >= maxKids {
			n.Hidden += max(it.Group, 1)
			n.HiddenBytes += it.Retained
			continue
		}
		if it.Group > 0 {
			it.Edge = idomEdge(t, it.Object)
			n.Kids = append(n.Kids, it)
			continue
		}
		n.Kids = append(n.Kids, t.mapNode(it.Object, depth-1, maxKids))
	}
	return n
}

// bigShare: a child that retains at least 1/bigShare of its node is a
// rectangle of its own, never in a group.
const bigShare = 50

// groupByType returns kids (by retained size, largest first) as one item
// per object that retains at least big, then one per type with several
// of the rest, one per object alone of its type, in order of first
// appearance.
func (t *DomTree) groupByType(kids []heap.ObjectID, big uint64) []MapNode {
	g := t.g
	index := map[heap.TypeID]int{}
	var items []MapNode
	for _, k := range kids {
		if t.Retained(k) >= big && big > 0 {
			items = append(items, MapNode{Object: k, Top: k, Retained: t.Retained(k)})
			continue
		}
		ty := g.Type(k)
		if i, ok := index[ty]; ok {
			items[i].Group++
			items[i].Retained += t.Retained(k)
			continue
		}
		index[ty] = len(items)
		items = append(items, MapNode{Object: k, Top: k, Group: 1, Type: g.TypeName(ty), Retained: t.Retained(k)})
	}
	for i := range items {
		if items[i].Group == 1 {
			items[i].Group, items[i].Type = 0, ""
		}
	}
	return items
}
