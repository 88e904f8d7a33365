package analyze

import "github.com/heapscope/heapscope/heap"

// search is the breadth-first search of [ShortestPaths], run as far as
// questions need: a report that asks for the paths of a few objects near
// the roots stops it early, a question about every object runs it to the
// end. It runs under Retainers.smu, in the order the eager search would
// take, so the paths do not depend on the questions asked before.
type search struct {
	opt    PathOptions
	isRoot bitset
	avoid  bitset   // objects never reached (nil: none)
	queue  []uint32 // every object reached, in the order reached
	late   []uint32 // transient objects reached, searched from after every tier
	head   int      // next object of queue to search from
	tier   int      // 0-3: the tiers of [Retainers]; weakTier: reachWeakly
	seeded bool     // the tier's roots are in the queue
}

// weakTier is the phase after the tiers, in a snapshot of live objects
// only: reachWeakly's search through the edges that do not retain.
const weakTier = 4

// run searches until done reports true (nil: to the end) or the search
// is over; then it marks r done and lets the search's memory go. The
// caller holds r.smu.
func (s *search) run(r *Retainers, done func() bool) {
	g := r.g
	edges := g.AllEdges()
	for {
		if done != nil && done() {
			return
		}
		if s.tier < weakTier && !s.seeded {
			s.seed(r)
			continue
		}
		if s.tier < weakTier {
			if s.head == len(s.queue) && s.tier == 3 && len(s.late) > 0 {
				// Every object that others reach has its path: now the
				// objects only transient ones hold.
				s.queue, s.late = append(s.queue, s.late...), s.late[:0]
			}
			if s.head < len(s.queue) {
				s.from(r, edges, heap.ObjectID(s.queue[s.head]))
				s.head++
				continue
			}
			s.tier++
			s.seeded = false
			if s.tier == weakTier {
				if len(s.queue) == g.NumObjects() || !g.Meta().Live || s.opt.IncludeWeak {
					break
				}
				s.head = 0
			}
			continue
		}
		// reachWeakly: the edges that do not retain, from every object
		// reached, in the order reached.
		if s.head == len(s.queue) {
			break
		}
		v := heap.ObjectID(s.queue[s.head])
		st, e := g.EdgeRange(v)
		for _, ed := range edges[st:e] {
			if r.parent[ed.To] == uint32(Unreachable) && !s.avoid.has(uint32(ed.To)) {
				r.parent[ed.To] = uint32(v)
				r.via[ed.To] = ed.Label
				s.queue = append(s.queue, uint32(ed.To))
			}
		}
		s.head++
	}
	r.s = nil
	r.done.Store(true)
}

// seed puts the current tier's roots that are not reached yet in the
// queue (tier 3 has none: it searches from the transient objects).
func (s *search) seed(r *Retainers) {
	g := r.g
	s.seeded = true
	if s.tier == 3 {
		return
	}
	for i, root := range r.roots {
		if rootTier(root.Kind, i >= len(g.Roots())) != s.tier || r.parent[root.Object] != uint32(Unreachable) ||
			s.avoid.has(uint32(root.Object)) {
			continue
		}
		r.parent[root.Object] = uint32(SuperRoot)
		r.via[root.Object] = heap.Label(i)
		if g.Flags(root.Object)&heap.FlagTransient != 0 {
			s.late = append(s.late, uint32(root.Object))
		} else {
			s.queue = append(s.queue, uint32(root.Object))
		}
	}
}

// from searches from v: each target its retaining edges reach first (or
// its weak edges, with IncludeWeak) gets v as its parent.
func (s *search) from(r *Retainers, edges []heap.Edge, v heap.ObjectID) {
	g := r.g
	st, e := g.EdgeRange(v)
	for _, ed := range edges[st:e] {
		if r.parent[ed.To] != uint32(Unreachable) || s.avoid.has(uint32(ed.To)) {
			continue
		}
		if !retains(ed.Label, v, s.isRoot) && !(s.opt.IncludeWeak && ed.Label.Kind() == heap.Weak) {
			continue
		}
		r.parent[ed.To] = uint32(v)
		r.via[ed.To] = ed.Label
		if g.Flags(ed.To)&heap.FlagTransient != 0 {
			s.late = append(s.late, uint32(ed.To))
		} else {
			s.queue = append(s.queue, uint32(ed.To))
		}
	}
}

// reach runs the search until it reaches id or ends.
func (r *Retainers) reach(id heap.ObjectID) {
	if r.done.Load() {
		return
	}
	r.smu.Lock()
	defer r.smu.Unlock()
	if r.s != nil {
		r.s.run(r, func() bool { return r.parent[id] != uint32(Unreachable) })
	}
}

// finish runs the search to its end.
func (r *Retainers) finish() {
	if r.done.Load() {
		return
	}
	r.smu.Lock()
	defer r.smu.Unlock()
	if r.s != nil {
		r.s.run(r, nil)
	}
}
