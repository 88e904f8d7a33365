package analyze

import (
	"cmp"
	"slices"
	"strings"

	"github.com/heapscope/heapscope/heap"
)

// MaxSites is how many allocation sites a set of objects keeps: the
// heaviest.
const MaxSites = 3

// Frame is one frame of an allocation stack, with its names: the
// function (V8; tracemalloc records none), the file, and the 1-based
// line and column (0 when not known).
type Frame struct {
	Function string
	File     string
	Line     uint32
	Column   uint32
}

// SiteStat is one place where objects of a set were allocated: the
// innermost frame of the program's own code they share (see
// Frame.Library), or, for stacks with none, the innermost frame (a file
// and line for Python; a function, and where it starts, for V8); how
// many of them it allocated and their shallow bytes. Stack is the
// heaviest of the stacks that share that frame, innermost first: the
// site and its callers; Stack[Program] is that frame of the program's,
// and Program is -1 when the stack has none.
//
// Objects a library allocates for the program (sympy's expressions,
// all made by Basic.__new__) are told apart by the program's line that
// asked for them, which is what a user changes.
type SiteStat struct {
	Stack   []Frame
	Program int
	Count   int
	Bytes   uint64
}

// Library reports whether a frame is a library's or the runtime's
// rather than the program's own, from its file's path: Python's
// standard library and installed packages (lib/python3.N,
// site-packages, dist-packages, and its frozen modules, <frozen ...>),
// npm packages (node_modules), Node's own modules (node:), and
// heapscope's leak check, which calls the workload. The Python agent's
// watch (agent/heapscope/_watch.py) applies the same rule.
func (f Frame) Library() bool {
	p := f.File
	return strings.Contains(p, "/site-packages/") || strings.Contains(p, "/dist-packages/") ||
		stdlibPython(p) || strings.Contains(p, "/node_modules/") ||
		strings.HasPrefix(p, "node:") || strings.HasPrefix(p, "<frozen ") ||
		strings.HasSuffix(p, "/heapscope/leakcheck.py") || strings.HasSuffix(p, "/heapscope/pytest_plugin.py")
}

// stdlibPython reports whether path is under a Python's own lib
// directory: .../lib/python3/ (Debian's, where dist-packages is) or
// .../lib/python3.N/, not a program's lib/python3_tools.py.
func stdlibPython(path string) bool {
	for rest := path; ; {
		i := strings.Index(rest, "/lib/python3")
		if i < 0 {
			return false
		}
		rest = rest[i+len("/lib/python3"):]
		if rest != "" && (rest[0] == '/' || rest[0] == '.') {
			return true
		}
	}
}

// programFrame is the index of the innermost frame of stack that is
// not a library's, or -1.
func programFrame(stack []Frame) int {
	for i, f := range stack {
		if !f.Library() {
			return i
		}
	}
	return -1
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

// siteTally adds objects of several sets (groups) to their sites. An
// object that g has no site for is looked up in alt, if given, by its
// identity (the address, and the type name): V8's tracker forgets the
// allocations of some objects the collector moves, and a leaked object
// was new in an earlier snapshot, closer to its allocation.
type siteTally struct {
	g, alt *heap.Graph
	bySite map[siteRef]*SiteStat
	unk    map[int]*Allocations // group -> the objects with no site
}

// siteRef is a site of a group, in g (in 0) or alt (1).
type siteRef struct {
	group int32
	in    uint8
	site  heap.SiteID
}

func newSiteTally(g, alt *heap.Graph) *siteTally {
	if !g.HasSites() && (alt == nil || !alt.HasSites()) {
		return nil
	}
	if alt != nil && !alt.HasSites() {
		alt = nil
	}
	return &siteTally{g: g, alt: alt, bySite: map[siteRef]*SiteStat{}, unk: map[int]*Allocations{}}
}

// add counts object id of g in group grp.
func (st *siteTally) add(grp int, id heap.ObjectID) {
	size := st.g.Size(id)
	k := siteRef{group: int32(grp), site: st.g.Site(id)}
	if k.site == heap.NoSite && st.alt != nil {
		if o, ok := sameObject(st.g, st.alt, id); ok {
			k.in, k.site = 1, st.alt.Site(o)
		}
	}
	if k.site == heap.NoSite {
		a := st.unk[grp]
		if a == nil {
			a = &Allocations{}
			st.unk[grp] = a
		}
		a.Unknown++
		a.UnknownBytes += size
		return
	}
	x := st.bySite[k]
	if x == nil {
		x = &SiteStat{}
		st.bySite[k] = x
	}
	x.Count++
	x.Bytes += size
}

// stack resolves the frames of a site.
func (st *siteTally) stack(k siteRef) []Frame {
	g := st.g
	if k.in == 1 {
		g = st.alt
	}
	var out []Frame
	for _, f := range g.Stack(k.site, 0) {
		out = append(out, Frame{g.String(f.Function), g.String(f.File), f.Line, f.Column})
	}
	return out
}

// result returns each group's allocations, groups 0 to n-1: stacks that
// share the frame a SiteStat is keyed by merged, the heaviest MaxSites kept, each with
// the heaviest of its stacks.
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
		heaviest *SiteStat
		ref      siteRef
	}
	// Refs in a fixed order, so that ties go the same way every time.
	refs := make([]siteRef, 0, len(st.bySite))
	for k := range st.bySite {
		if int(k.group) < n {
			refs = append(refs, k)
		}
	}
	slices.SortFunc(refs, func(a, b siteRef) int {
		return cmp.Or(cmp.Compare(a.group, b.group), cmp.Compare(a.in, b.in), cmp.Compare(a.site, b.site))
	})
	per := make([]map[Frame]*merged, n)
	for _, k := range refs {
		x := st.bySite[k]
		grp := int(k.group)
		if per[grp] == nil {
			per[grp] = map[Frame]*merged{}
		}
		stack := st.stack(k)
		prog := programFrame(stack)
		key := stack[0]
		if prog >= 0 {
			key = stack[prog]
		}
		m := per[grp][key]
		if m == nil {
			m = &merged{}
			per[grp][key] = m
		}
		m.Count += x.Count
		m.Bytes += x.Bytes
		if m.heaviest == nil || x.Bytes > m.heaviest.Bytes {
			m.heaviest, m.Stack, m.Program = x, stack, prog
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
			return compareStacks(a.Stack, b.Stack)
		})
		if len(out[i].Sites) > MaxSites {
			out[i].Sites = out[i].Sites[:MaxSites]
		}
	}
	return out
}

// compareStacks orders stacks by their frames' text.
func compareStacks(a, b []Frame) int {
	for i := 0; i < len(a) && i < len(b); i++ {
		x, y := a[i], b[i]
		if c := cmp.Or(cmp.Compare(x.File, y.File), cmp.Compare(x.Line, y.Line), cmp.Compare(x.Column, y.Column), cmp.Compare(x.Function, y.Function)); c != 0 {
			return c
		}
	}
	return cmp.Compare(len(a), len(b))
}

// AllocationSites says where the objects objs were allocated, or
// returns nil when g records no sites.
func AllocationSites(g *heap.Graph, objs []heap.ObjectID) *Allocations {
	st := newSiteTally(g, nil)
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
	st := newSiteTally(t.g, nil)
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
	st := newSiteTally(g, nil)
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
