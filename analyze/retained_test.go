package analyze

import (
	"fmt"

	"github.com/heapscope/heapscope/heap"
)

// checkTypeRetained compares RetainedByType with a walk up the dominator
// chain of every instance, and checks that it bounds RetainedBySet from
// below, and that RetainedBySet of one object is its retained size.
func checkTypeRetained(g *heap.Graph, dt *DomTree) error {
	want := map[heap.TypeID]uint64{}
	count := map[heap.TypeID]int{}
	for v := range g.NumObjects() {
		id := heap.ObjectID(v)
		if !dt.Reachable(id) {
			continue
		}
		ty := g.Type(id)
		count[ty]++
		top := true
		for a := dt.Idom(id); a != SuperRoot; a = dt.Idom(a) {
			if g.Type(a) == ty {
				top = false
				break
			}
		}
		if top {
			want[ty] += dt.Retained(id)
		}
		if c, b := RetainedBySet(dt, []heap.ObjectID{id}); b != dt.Retained(id) {
			return fmt.Errorf("RetainedBySet(%d) = %d objects %d bytes, Retained = %d", v, c, b, dt.Retained(id))
		}
	}
	stats := RetainedByType(dt)
	if len(stats) != len(want) {
		return fmt.Errorf("RetainedByType has %d types, want %d", len(stats), len(want))
	}
	for _, s := range stats {
		if s.Retained != want[s.Type] || s.Count != count[s.Type] {
			return fmt.Errorf("type %s: retained %d count %d, want %d %d", s.Name, s.Retained, s.Count, want[s.Type], count[s.Type])
		}
		var inst []heap.ObjectID
		for v := range g.NumObjects() {
			if g.Type(heap.ObjectID(v)) == s.Type {
				inst = append(inst, heap.ObjectID(v))
			}
		}
		if _, b := RetainedBySet(dt, inst); b < s.Retained {
			return fmt.Errorf("type %s: RetainedBySet %d < RetainedByType %d", s.Name, b, s.Retained)
		}
		if _, sum := TopMost(dt, inst); sum != s.Retained {
			return fmt.Errorf("type %s: TopMost sum %d, want %d", s.Name, sum, s.Retained)
		}
	}
	return nil
}
