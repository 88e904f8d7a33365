package analyze

import "github.com/heapscope/heapscope/heap"

// Distance returns the number of references on id's shortest path from
// a root object (0 for a root object), as DevTools' Distance column
// counts them from the snapshot's root; -1 when no path leads to id. The
// first call computes every object's distance, once (4 bytes per
// object), in time linear in the objects.
func (r *Retainers) Distance(id heap.ObjectID) int {
	r.distOnce.Do(r.distances)
	if int(id) >= len(r.dist) {
		return -1
	}
	return int(r.dist[id])
}

// unknownDistance marks an object whose distance is not yet known.
const unknownDistance = int32(-2)

// distances fills r.dist by walking each object's path up to an object
// whose distance is known, then down again: each object is written
// once.
func (r *Retainers) distances() {
	r.finish()
	n := len(r.parent)
	dist := make([]int32, n)
	for i := range dist {
		dist[i] = unknownDistance
	}
	var chain []uint32
	for i := range dist {
		chain = chain[:0]
		v := uint32(i)
		for dist[v] == unknownDistance {
			p := r.parent[v]
			if p == uint32(Unreachable) {
				dist[v] = -1
				break
			}
			if p == uint32(SuperRoot) {
				dist[v] = 0
				break
			}
			chain = append(chain, v)
			v = p
		}
		d := dist[v]
		for k := len(chain) - 1; k >= 0; k-- {
			d++
			dist[chain[k]] = d
		}
	}
	r.dist = dist
}
