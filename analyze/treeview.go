package analyze

import "github.com/heapscope/heapscope/heap"

// TreeLine is one line of a dominator-tree view.
type TreeLine struct {
	Depth  int
	Object heap.ObjectID
	// Edge names the reference from the object's immediate dominator when
	// the dominator refers to it directly; "" when the object is held
	// through other objects (or is a root).
	Edge string
	// Hidden children: when the view cuts a node's children (by size or
	// count), Hidden counts them and HiddenBytes sums their retained sizes.
	Hidden      int
	HiddenBytes uint64
}

// TreeOptions bounds a [TreeView].
type TreeOptions struct {
	MaxDepth    int    // levels below the start (0: 1)
	MinRetained uint64 // children retaining less are cut
	MaxChildren int    // children shown per node (0: all)
}

// TreeView lists the dominator tree below from (an object or SuperRoot)
// in depth-first order, children by retained size, as far as opt allows.
// from itself is the first line, at depth 0.
func TreeView(t *DomTree, from heap.ObjectID, opt TreeOptions) []TreeLine {
	if opt.MaxDepth <= 0 {
		opt.MaxDepth = 1
	}
	var out []TreeLine
	type frame struct {
		id    heap.ObjectID
		depth int
	}
	stack := []frame{{from, 0}}
	for len(stack) > 0 {
		fr := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		line := TreeLine{Depth: fr.depth, Object: fr.id, Edge: idomEdge(t, fr.id)}
		if fr.depth < opt.MaxDepth {
			kids := t.Children(fr.id)
			var shown []heap.ObjectID
			for _, k := range kids {
				if t.Retained(k) < opt.MinRetained || (opt.MaxChildren > 0 && len(shown) >= opt.MaxChildren) {
					line.Hidden++
					line.HiddenBytes += t.Retained(k)
					continue
				}
				shown = append(shown, k)
			}
			for i := len(shown) - 1; i >= 0; i-- {
				stack = append(stack, frame{shown[i], fr.depth + 1})
			}
		} else {
			line.Hidden = t.NumChildren(fr.id)
			for _, k := range t.Children(fr.id) {
				line.HiddenBytes += t.Retained(k)
			}
		}
		out = append(out, line)
	}
	return out
}

// DominatorChain returns the objects that dominate id, outermost first,
// not counting the super-root; empty for a root's child of the super-root.
func DominatorChain(t *DomTree, id heap.ObjectID) []heap.ObjectID {
	var chain []heap.ObjectID
	for p := t.Idom(id); p != SuperRoot && p != Unreachable; p = t.Idom(p) {
		chain = append(chain, p)
	}
	for i, j := 0, len(chain)-1; i < j; i, j = i+1, j-1 {
		chain[i], chain[j] = chain[j], chain[i]
	}
	return chain
}
