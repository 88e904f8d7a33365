package analyze

import (
	"cmp"
	"slices"
	"strings"

	"github.com/heapscope/heapscope/heap"
)

// SigStep is one step of a path signature.
type SigStep struct {
	Type string
	// Name is the object's own name (g.Name), on the steps before the
	// target: paths through the static fields of two classes are two
	// signatures. The target's step has no Name, so that objects of one
	// type (class objects among them) group together.
	Name string
	Edge string // collapsed edge name (see [MergePaths])
	// Repeated: the path of some member of the group went through this
	// (type, edge) step several times in a row (a linked list, a hash
	// bucket chain).
	Repeated bool
}

// PathGroup is the objects that one kind of path holds.
type PathGroup struct {
	RootKind  heap.RootKind
	RootName  string
	Signature []SigStep
	Count     int // objects in the group
	// Retained is the memory the group's objects retain, each object
	// counted once across all groups (see [TopMost]).
	Retained uint64
	Sample   Path // the path of the member with the largest retained size
}

// MergePaths groups objs (typically all instances of a type) by the
// shape of their shortest paths, as Eclipse MAT's "merge shortest paths
// to GC roots" does, biggest first: by retained size, then count, then
// signature text.
//
// A path's signature is its root (kind and name) and its sequence of
// (type name, object name, edge name) steps, the target included (without
// its name), where
//   - index edges ([17]), dict-key edges (a name in brackets, such as
//     Python's ['key']) and all-digit names (V8's Map table slots) become
//     "[*]", so the ten thousand values of one dict, or the slots of one
//     array, fall in one group;
//   - a run of equal steps becomes one step, whatever its length, so
//     what hangs off every node of a linked list or bucket chain falls
//     in one group; the step is marked Repeated when some member's run
//     was longer than one. Steps through a container's entries of one
//     type (a HashMap$Node and the nodes chained to it by "next"; see
//     entryKinds) are equal whatever their edge names, so a bucket's
//     first node and the nodes after it fall in one group.
//
// Attribute names stay, so two caches in different fields of one object
// stay apart. Objects no path reaches are counted in unreached. t may
// be nil: Retained is then 0 and samples are the lowest IDs.
func MergePaths(r *Retainers, t *DomTree, objs []heap.ObjectID) (groups []PathGroup, unreached int) {
	g := r.g
	isTop := newBitset(g.NumObjects())
	var ret []uint64
	if t != nil {
		top, _ := TopMost(t, objs)
		for _, x := range top {
			isTop.set(uint32(x))
		}
		ret = t.retained
	} else {
		ret = make([]uint64, g.NumObjects())
	}
	idx := map[string]int{}
	var keys []string
	var samples []heap.ObjectID
	sg := newSigner(r)
	for _, id := range objs {
		if int(id) >= g.NumObjects() || !r.Reached(id) {
			unreached++
			continue
		}
		kind, name := sg.sign(id)
		sig, key := sg.sig, sg.key
		i, ok := idx[string(key)]
		if !ok {
			i = len(groups)
			idx[string(key)] = i
			keys = append(keys, string(key))
			samples = append(samples, id)
			groups = append(groups, PathGroup{RootKind: kind, RootName: name, Signature: slices.Clone(sig)})
		}
		grp := &groups[i]
		for k, st := range sig {
			grp.Signature[k].Repeated = grp.Signature[k].Repeated || st.Repeated
		}
		grp.Count++
		if isTop.has(uint32(id)) {
			grp.Retained += ret[id]
			isTop[id>>6] &^= 1 << (id & 63) // count duplicates in objs once
		}
		if cmpRetained(ret, uint32(id), uint32(samples[i])) < 0 {
			samples[i] = id
		}
	}
	for i := range groups {
		groups[i].Sample, _ = r.Path(samples[i])
	}
	order := make([]int, len(groups))
	for i := range order {
		order[i] = i
	}
	slices.SortFunc(order, func(a, b int) int {
		if c := cmp.Compare(groups[b].Retained, groups[a].Retained); c != 0 {
			return c
		}
		if c := cmp.Compare(groups[b].Count, groups[a].Count); c != 0 {
			return c
		}
		return cmp.Compare(keys[a], keys[b])
	})
	sorted := make([]PathGroup, len(groups))
	for i, o := range order {
		sorted[i] = groups[o]
	}
	return sorted, unreached
}

// signature returns the collapsed signature of id's shortest path, which
// must exist, and its root, as MergePaths computes them.
func (r *Retainers) signature(id heap.ObjectID) ([]SigStep, heap.RootKind, string) {
	sg := newSigner(r)
	kind, name := sg.sign(id)
	return slices.Clone(sg.sig), kind, name
}

// signer computes the signatures of shortest paths (see [MergePaths]),
// reusing its buffers from one object to the next.
type signer struct {
	r       *Retainers
	up      []SigStep // the path from the target up, uncollapsed
	upEntry []bool
	sig     []SigStep // the last signature
	key     []byte    // and its key: root kind and name, then the steps
}

func newSigner(r *Retainers) *signer { return &signer{r: r} }

// sign computes the collapsed signature of id's shortest path, which must
// exist, into s.sig and s.key (valid until the next call), and returns
// its root's kind and description.
func (s *signer) sign(id heap.ObjectID) (heap.RootKind, string) {
	r, g := s.r, s.r.g
	s.up, s.upEntry = s.up[:0], s.upEntry[:0]
	var root heap.Label
	for v := id; ; {
		p, l := r.Parent(v)
		st := SigStep{Type: g.TypeName(g.Type(v))}
		if v != id {
			st.Name, _ = g.Name(v)
		}
		isEntry := r.entry != nil && r.entry[g.Type(v)]
		if p == SuperRoot {
			s.up, s.upEntry = append(s.up, st), append(s.upEntry, isEntry)
			root = l
			break
		}
		st.Edge = r.edgeKey(l)
		s.up, s.upEntry = append(s.up, st), append(s.upEntry, isEntry)
		v = p
	}
	kind, name := r.rootOf(root)
	s.sig = s.sig[:0]
	s.key = append(s.key[:0], byte(kind))
	s.key = append(s.key, name...)
	for i := len(s.up) - 1; i >= 0; i-- {
		st := s.up[i]
		if k := len(s.sig) - 1; k >= 0 && s.sig[k].Type == st.Type && s.sig[k].Name == st.Name &&
			(s.sig[k].Edge == st.Edge || (s.upEntry[i] && s.upEntry[i+1])) {
			s.sig[k].Repeated = true
			continue
		}
		s.sig = append(s.sig, st)
		s.key = append(s.key, 0)
		s.key = append(s.key, st.Type...)
		s.key = append(s.key, 2)
		s.key = append(s.key, st.Name...)
		s.key = append(s.key, 1)
		s.key = append(s.key, st.Edge...)
	}
	return kind, name
}

// edgeKey is the collapsed name of an edge label, without formatting
// indices.
func (r *Retainers) edgeKey(l heap.Label) string {
	if l.IsIndex() {
		return "[*]"
	}
	return collapseEdge(r.g.String(l.Name()))
}

// rootOf returns the kind and description of root number i.
func (r *Retainers) rootOf(i heap.Label) (heap.RootKind, string) {
	root := r.roots[i]
	if int(i) >= len(r.g.Roots()) {
		return root.Kind, NativeRootName
	}
	return root.Kind, r.g.String(root.Name)
}

// collapseEdge maps the edge names that vary per entry of a container to
// "[*]": indices ([17]), bracketed keys (['key'], [42]) and names that are
// all digits (V8 names the slots of a Map's table "1020").
func collapseEdge(name string) string {
	if len(name) >= 2 && name[0] == '[' && name[len(name)-1] == ']' {
		return "[*]"
	}
	if name != "" && strings.Trim(name, "0123456789") == "" {
		return "[*]"
	}
	return name
}
