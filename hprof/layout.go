package hprof

import "sort"

// model is the object layout that shallow sizes assume; see the package
// documentation for the rules and how the reader chooses them.
type model struct {
	header int // object header: mark word + class pointer
	ref    int // bytes per reference field or array element
	align  int // object alignment (ObjectAlignmentInBytes)
}

// alignUp rounds n up to a multiple of a (a power of two or any a > 0).
func alignUp(n, a uint64) uint64 {
	if a <= 1 {
		return n
	}
	return (n + a - 1) / a * a
}

// arraySize returns the size of an array of n elements of es bytes each:
// the header, the u4 length, the element area aligned to the element size,
// and the whole aligned to the object alignment.
func (m *model) arraySize(n uint64, es int) uint64 {
	base := alignUp(uint64(m.header)+4, uint64(es))
	return alignUp(base+n*uint64(es), uint64(m.align))
}

// hole is an unused byte range inside an object's field area.
type hole struct{ off, size int }

// fieldLayout is the state of HotSpot's field layout (JDK 15+
// FieldLayoutBuilder) after a class's fields are placed: the gaps left
// between fields and the end of the last field.
type fieldLayout struct {
	holes  []hole
	end    int
	sealed bool // @Contended padding: subclasses may not fill the gaps
}

// extend returns the layout of a subclass that adds fields of the given
// sizes to l. As HotSpot's FieldLayoutBuilder::compute_regular_layout
// does, primitive fields go first, largest first, then references; each
// field goes into the smallest gap that fits it at its natural alignment
// (the gap nearest the end on a tie), else at the end, aligned. The
// subclass sees the gaps of its superclass merged, as
// FieldLayout::reconstruct_layout and fill_holes rebuild them from field
// offsets.
func (l fieldLayout) extend(prims []int, refs int, refSize int) fieldLayout {
	holes := make([]hole, 0, len(l.holes)+4)
	if l.sealed {
		l.holes = nil
	}
	for _, h := range l.holes {
		if n := len(holes); n > 0 && holes[n-1].off+holes[n-1].size == h.off {
			holes[n-1].size += h.size
			continue
		}
		holes = append(holes, h)
	}
	out := fieldLayout{holes: holes, end: l.end}
	sizes := append([]int(nil), prims...)
	sort.Sort(sort.Reverse(sort.IntSlice(sizes)))
	for i := 0; i < refs; i++ {
		sizes = append(sizes, refSize)
	}
	for _, z := range sizes {
		out.place(z)
	}
	return out
}

// contendedPadding is HotSpot's default ContendedPaddingWidth.
const contendedPadding = 128

// extendContended adds a group of @Contended fields after the fields of
// l, as compute_regular_layout does: padding, the group's fields (largest
// first), and padding again; subclasses then start after the padding and
// do not fill gaps. With whole, the class itself is @Contended and all
// its fields form the group.
func (l fieldLayout) extendContended(prims []int, refs, refSize int) fieldLayout {
	// The group is appended after the padding; HotSpot's FieldLayout::add
	// appends when its start block is the last one, so the group fills no
	// gaps, not even the ones its own alignment leaves.
	out := fieldLayout{end: l.end + contendedPadding, sealed: true}
	sizes := append([]int(nil), prims...)
	sort.Sort(sort.Reverse(sort.IntSlice(sizes)))
	for i := 0; i < refs; i++ {
		sizes = append(sizes, refSize)
	}
	for _, z := range sizes {
		out.end += pad(out.end, z) + z
	}
	out.end += contendedPadding
	return out
}

// contended lists, for JDK 17, the fields of JDK classes that carry
// @jdk.internal.vm.annotation.Contended (which HotSpot honours for JDK
// classes only); "*" stands for an annotation on the class. HPROF does not
// record annotations.
var contended = map[string][]string{
	"java/lang/Thread": {"threadLocalRandomSeed", "threadLocalRandomProbe", "threadLocalRandomSecondarySeed"},
	"java/util/concurrent/ConcurrentHashMap$CounterCell": {"*"},
	"java/util/concurrent/atomic/Striped64$Cell":         {"*"},
	"java/util/concurrent/Exchanger$Node":                {"*"},
}

func pad(off, z int) int {
	if z <= 1 || off%z == 0 {
		return 0
	}
	return z - off%z
}

// place puts one field of z bytes, aligned to z.
func (l *fieldLayout) place(z int) {
	best := -1
	for j := len(l.holes) - 1; j >= 0; j-- {
		h := l.holes[j]
		if h.size >= z+pad(h.off, z) && (best < 0 || h.size < l.holes[best].size) {
			best = j
		}
	}
	if best < 0 {
		if p := pad(l.end, z); p > 0 {
			l.holes = append(l.holes, hole{l.end, p})
			l.end += p
		}
		l.end += z
		return
	}
	h := l.holes[best]
	p := pad(h.off, z)
	var repl []hole
	if p > 0 {
		repl = append(repl, hole{h.off, p})
	}
	if rest := h.size - p - z; rest > 0 {
		repl = append(repl, hole{h.off + p + z, rest})
	}
	l.holes = append(l.holes[:best], append(repl, l.holes[best+1:]...)...)
}

// injected lists the fields HotSpot (JDK 17) adds to some classes that
// the class file does not declare (javaClasses.hpp, *_INJECTED_FIELDS).
// HPROF omits them, but they take room in every instance. Sizes in bytes;
// 0 stands for a reference.
var injected = map[string][]int{
	"java/lang/Class":                                      {8, 8, 4, 4, 0, 0, 0},
	"java/lang/ClassLoader":                                {8},
	"java/lang/String":                                     {1},
	"java/lang/Module":                                     {8},
	"java/lang/InternalError":                              {1},
	"java/lang/StackFrameInfo":                             {2},
	"java/lang/invoke/MemberName":                          {8},
	"java/lang/invoke/ResolvedMethodName":                  {0, 8},
	"java/lang/invoke/MethodHandleNatives$CallSiteContext": {8, 8},
}
