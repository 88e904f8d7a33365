package heapsnapshot

import (
	"maps"
	"math"
	"runtime"
	"slices"
	"strings"
	"sync"

	"github.com/heapscope/heapscope/heap"
)

// build types the objects, hands the values and edges to the builder
// and builds the graph.
func (rd *reader) build() (*heap.Graph, error) {
	b := rd.b

	// Where each node's edges start.
	start := append(rd.nedges, 0)
	at := uint32(0)
	for i, c := range start {
		start[i] = at
		at += c
	}
	rd.nedges = nil

	// The non-essential edges only read the reader's arrays: find them
	// on another core while the objects are typed and labelled.
	internalType := slices.Index(rd.edgeTypes, "internal")
	weakType := slices.Index(rd.edgeTypes, "weak")
	demoteCh := make(chan []uint64, 1)
	if rd.skipping {
		demoteCh <- nil
		b.SkipEdges()
	} else {
		go func() { demoteCh <- rd.nonEssential(start, internalType, weakType) }()
	}

	// Class names per node type, and per name for the named types.
	const unset = ^heap.TypeID(0)
	byType := make([]heap.TypeID, len(rd.nodeTypes))
	naming := make([]func(string) string, len(rd.nodeTypes))
	hasValue := make([]bool, len(rd.nodeTypes))
	synthetic, native := -1, -1
	closure := uint8(255)
	for i, t := range rd.nodeTypes {
		switch t {
		case "string", "concatenated string", "sliced string", "regexp":
			hasValue[i] = true
		}
		switch t {
		case "object", "native":
			naming[i] = shortClass
			if t == "native" {
				native = i
			}
			continue
		case "closure":
			naming[i] = closureClass
			closure = uint8(i)
			continue
		case "synthetic":
			naming[i] = syntheticClass
			synthetic = i
			continue
		case "hidden":
			byType[i] = b.Type("(system)")
		case "code":
			byType[i] = b.Type("(compiled code)")
		case "regexp":
			byType[i] = b.Type("RegExp")
		default:
			byType[i] = b.Type("(" + t + ")")
		}
	}
	detached := rd.detached(start)
	byName := make([]heap.TypeID, len(rd.use))
	for i := range byName {
		byName[i] = unset
	}
	// Objects and natives by name in byName; closures, synthetic and
	// detached nodes, fewer, in maps of their own (a class and its
	// constructor share a name).
	other := map[[2]uint32]heap.TypeID{}
	for i, t := range rd.ntype {
		tid := byType[t]
		if nameOf := naming[t]; nameOf != nil {
			name := rd.nname[i]
			isDetached := detached != nil && detached[i/64]&(1<<(i%64)) != 0
			switch {
			case isDetached || t == closure || int(t) == synthetic:
				key := [2]uint32{uint32(t), name}
				if isDetached {
					key[0] = math.MaxUint32
				}
				var ok bool
				if tid, ok = other[key]; !ok {
					if isDetached {
						tid = b.Type(detachedClass(string(rd.str(name))))
					} else {
						tid = b.Type(nameOf(string(rd.str(name))))
					}
					other[key] = tid
				}
			default:
				if tid = byName[name]; tid == unset {
					tid = b.Type(nameOf(string(rd.str(name))))
					byName[name] = tid
				}
			}
			if int(t) == native {
				rd.nameElement(b, heap.ObjectID(i), rd.str(name), isDetached)
			}
		}
		b.SetType(heap.ObjectID(i), tid)
	}
	byName = nil
	if synthetic >= 0 {
		strongRoots := 0
		for i, t := range rd.ntype {
			if int(t) != synthetic {
				continue
			}
			fl := heap.FlagSynthetic
			switch string(rd.str(rd.nname[i])) {
			case "(Handle scope)":
				fl |= heap.FlagTransient
			case "(Strong roots)":
				// Two sub-roots have this name, in this order: the
				// heap's list of strong roots, then the roots registered
				// for the time of one task (identity maps, serializers).
				if strongRoots++; strongRoots == 2 {
					fl |= heap.FlagTransient
				}
			}
			b.SetFlags(heap.ObjectID(i), fl)
		}
	}
	if !rd.opt.SkipValues && rd.use != nil {
		count := 0
		for i, t := range rd.ntype {
			if hasValue[t] && rd.use[rd.nname[i]]&useValue != 0 {
				count++
			}
		}
		b.GrowValues(count)
		rank := 0 // of the node among the string nodes
		for i, t := range rd.ntype {
			isString := rd.isString[t]
			if isString {
				rank++
			}
			name := rd.nname[i]
			if rd.use[name]&useValue == 0 || !hasValue[t] {
				continue
			}
			if v := prefixBytes(rd.str(name), maxValue); len(v) > 0 {
				b.SetValueBytes(heap.ObjectID(i), v)
			}
			if isString {
				d := rd.digest[name]
				if rd.use[name]&useLong != 0 {
					// V8 cut the text: tell apart strings that share
					// their first 1024 characters by their size.
					d ^= (rd.stringSize(i, rank-1) + 1) * 0x9e3779b97f4a7c15
				}
				b.SetDigest(heap.ObjectID(i), d)
			}
		}
	}
	rd.digest, rd.ssize, rd.bigSize = nil, nil, nil
	rd.buildSites(b)
	rd.ntrace, rd.trace = nil, traceLayout{}
	root := heap.ObjectID(rd.rootIndex / uint64(rd.nf))
	b.Root(heap.RootVM, uint64(root), b.String("(root)"))

	// Edge labels per edge type.
	kinds := make([]heap.EdgeKind, len(rd.edgeTypes))
	var unknown []string
	for i, t := range rd.edgeTypes {
		switch t {
		case "context", "property", "element":
			kinds[i] = heap.Strong
		case "internal", "hidden", "invisible":
			kinds[i] = heap.Internal
		case "weak":
			kinds[i] = heap.Weak
		case "shortcut":
			kinds[i] = heap.Shortcut
		default:
			kinds[i] = heap.Strong
			unknown = append(unknown, t)
		}
	}
	if len(unknown) > 0 {
		b.Warn(-1, "unknown edge types %q read as strong references", unknown)
	}

	demote := <-demoteCh
	rd.ntype, rd.nname, rd.nidLo, rd.nidHi = nil, nil, nil, nil

	// Intern the edge names in edge order (of their first edge), then
	// let the strings go. The names' text goes into one string.
	nameID := make([]heap.StringID, len(rd.use))
	size := 0
	for _, name := range rd.enames {
		size += len(rd.str(name))
	}
	var all strings.Builder
	all.Grow(size)
	for _, name := range rd.enames {
		all.Write(rd.str(name))
	}
	text := all.String()
	b.GrowStrings(len(rd.enames))
	pos := 0
	for _, name := range rd.enames {
		n := len(rd.str(name))
		id := b.String(text[pos : pos+n])
		pos += n
		if id >= heap.MaxNames {
			return nil, formatErr(rd.edgesOff, "edges", "more distinct edge names than a graph can hold")
		}
		nameID[name] = id
	}
	rd.sdata, rd.soff, rd.use, rd.enames = nil, nil, nil, nil

	// Indices too large for a label's index field are named by their
	// text instead.
	bigLabel := make(map[uint32]heap.Label, len(rd.bigIndex))
	for _, k := range slices.Sorted(maps.Keys(rd.bigIndex)) {
		t, _ := rd.edge(int(k))
		bigLabel[k] = b.IndexLabel(kinds[t], rd.bigIndex[k])
	}
	rd.bigIndex = nil

	// The final labels, in place in the builder, in parts on every core.
	isIndex := rd.edgeIsIndex
	ed := rd.ed
	relabel := func(lo, hi int) {
		for k := lo; k < hi; k++ {
			t, name := rd.edge(k)
			var l heap.Label
			if isIndex[t] {
				l = heap.IndexLabel(kinds[t], uint64(name))
				if name == heap.MaxIndex {
					if big, ok := bigLabel[uint32(k)]; ok {
						l = big
					}
				}
			} else {
				l = heap.NamedLabel(kinds[t], nameID[name])
			}
			if demote != nil && demote[k/64]&(1<<(k%64)) != 0 {
				l = l.WithKind(heap.Weak)
			}
			ed[k].Label = l
		}
	}
	parts := 1
	if len(ed) >= 1<<20 {
		parts = runtime.GOMAXPROCS(0)
	}
	var wg sync.WaitGroup
	for p := range parts {
		wg.Add(1)
		go func() {
			defer wg.Done()
			relabel(p*len(ed)/parts, (p+1)*len(ed)/parts)
		}()
	}
	wg.Wait()
	rd.ed, rd.etype = nil, nil

	attrs := map[string]string{}
	if rd.title != "" {
		attrs["title"] = rd.title
	}
	b.SetMeta(heap.Meta{Runtime: "v8", Attrs: attrs, Live: true})
	rd.b = nil
	return b.Build()
}

// stringSize returns the self size of node i, the rank-th string node.
func (rd *reader) stringSize(i, rank int) uint64 {
	if sz := rd.ssize[rank]; sz != math.MaxUint32 {
		return uint64(sz)
	}
	return rd.bigSize[uint32(i)]
}
