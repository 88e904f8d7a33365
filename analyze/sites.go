package analyze

import (
	"cmp"
	"slices"

	"github.com/heapscope/heapscope/heap"
)

// MaxSites is how many allocation sites a set of objects keeps: the
// heaviest.
const MaxSites = 3

// SiteStat is one place where objects of a set were allocated: the
// innermost frame they share (a file and line for Python; a function,
// and where it starts, for V8), how many of them it allocated and their
// shallow bytes. Stack is the heaviest of the stacks that end in that
// frame, for showing its callers.
type SiteStat struct {
	Frame heap.Frame
	Stack heap.SiteID
	Count int
	Bytes uint64
}

// Allocations says where a set of objects was allocated, as memray's
// and tracemalloc's top allocators do: the heaviest sites by bytes
// (then count), and the objects whose allocation was not recorded
// (allocated before tracing started, by C code tracemalloc does not
// see, or never traced).
type Allocations struct {
	Sites        []SiteStat
	Unknown      int
	UnknownBytes uint64
}

// siteKey is an innermost frame, as sites are merged.
type siteKey = heap.Frame

// siteTally adds objects of several sets (groups) to their sites.
type siteTally struct {
	g      *heap.Graph
	bySite map[[2]uint32]*SiteStat // (group, site) -> the objects it allocated
	unk    map[int]*Allocations    // group -> the objects with no site
}

func newSiteTally(g *heap.Graph) *siteTally {
	if !g.HasSites() {
		return nil
	}
	return &siteTally{g: g, bySite: map[[2]uint32]*SiteStat{}, unk: map[int]*Allocations{}}
}

// add counts object id in group grp.
func (st *siteTally) add(grp int, id heap.ObjectID) {
	s := st.g.Site(id)
	size := st.g.Size(id)
	if s == heap.NoSite {
		a := st.unk[grp]
		if a == nil {
			a = &Allocations{}
			st.unk[grp] = a
		}
		a.Unknown++
		a.UnknownBytes += size
		return
	}
	k := [2]uint32{uint32(grp), uint32(s)}
	x := st.bySite[k]
	if x == nil {
		x = &SiteStat{Frame: st.g.SiteFrame(s), Stack: s}
		st.bySite[k] = x
	}
	x.Count++
	x.Bytes += size
}

// result returns each group's allocations, groups 0 to n-1: stacks that
// end in the same frame merged, the heaviest MaxSites kept.
func (st *siteTally) result(n int) []*Allocations {
	out := make([]*Allocations, n)
	for i := range out {
		out[i] = &Allocations{}
		if u := st.unk[i]; u != nil {
			*out[i] = *u
		}
	}
	type merged struct {
		SiteStat
		heaviest uint64
	}
	per := make([]map[siteKey]*merged, n)
	for k, x := range st.bySite {
		grp := int(k[0])
		if grp >= n {
			continue
		}
		if per[grp] == nil {
			per[grp] = map[siteKey]*merged{}
		}
		m := per[grp][x.Frame]
		if m == nil {
			m = &merged{SiteStat: SiteStat{Frame: x.Frame, Stack: x.Stack}}
			per[grp][x.Frame] = m
		}
		m.Count += x.Count
		m.Bytes += x.Bytes
		if x.Bytes > m.heaviest || x.Bytes == m.heaviest && x.Stack < m.Stack {
			m.heaviest, m.Stack = x.Bytes, x.Stack
		}
	}
	for i, m := range per {
		for _, x := range m {
			out[i].Sites = append(out[i].Sites, x.SiteStat)
		}
		slices.SortFunc(out[i].Sites, func(a, b SiteStat) int {
			if c := cmp.Compare(b.Bytes, a.Bytes); c != 0 {
				return c
			}
			if c := cmp.Compare(b.Count, a.Count); c != 0 {
				return c
			}
			return cmp.Compare(a.Stack, b.Stack)
		})
		if len(out[i].Sites) > MaxSites {
			out[i].Sites = out[i].Sites[:MaxSites]
		}
	}
	return out
}

// AllocationSites says where the objects objs were allocated, or
// returns nil when g records no sites.
func AllocationSites(g *heap.Graph, objs []heap.ObjectID) *Allocations {
	st := newSiteTally(g)
	if st == nil {
		return nil
	}
	for _, id := range objs {
		if int(id) < g.NumObjects() {
			st.add(0, id)
		}
	}
	return st.result(1)[0]
}

// RetainedSites says where the objects that id retains (those it
// dominates, itself included) were allocated: where the memory that
// would be freed with it came from. What the objects in except
// dominate is left out (a leak suspect's memory without the suspects
// below it). It returns nil when the graph records no sites.
func RetainedSites(t *DomTree, id heap.ObjectID, except ...heap.ObjectID) *Allocations {
	st := newSiteTally(t.g)
	if st == nil {
		return nil
	}
	skip := map[heap.ObjectID]bool{}
	for _, x := range except {
		if x != id {
			skip[x] = true
		}
	}
	stack := []heap.ObjectID{id}
	for len(stack) > 0 {
		v := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if skip[v] {
			continue
		}
		if v != SuperRoot {
			st.add(0, v)
		}
		stack = append(stack, t.Children(v)...)
	}
	return st.result(1)[0]
}

// TypeSites says, for each named type, where its instances were
// allocated, in one pass over the objects; nil when the graph records
// no sites.
func TypeSites(g *heap.Graph, types []string) []*Allocations {
	st := newSiteTally(g)
	if st == nil {
		return nil
	}
	want := map[string]int{}
	for i, name := range types {
		want[name] = i
	}
	byType := make([]int, g.NumTypes())
	for t := range byType {
		byType[t] = -1
		if i, ok := want[g.TypeName(heap.TypeID(t))]; ok {
			byType[t] = i
		}
	}
	for id, t := range g.Types() {
		if i := byType[t]; i >= 0 {
			st.add(i, heap.ObjectID(id))
		}
	}
	return st.result(len(types))
}
