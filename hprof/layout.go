package hprof

import "sort"

// alignUp rounds n up to a multiple of a (a power of two or any a > 0).
func alignUp(n, a uint64) uint64 {
	if a <= 1 {
		return n
	}
	return (n + a - 1) / a * a
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

// appendAll returns the layout of a subclass whose fields of the given
// sizes are appended after the fields of l, largest first, then the
// references, each at its natural alignment, filling no gap.
func (l fieldLayout) appendAll(prims []int, refs, refSize int) fieldLayout {
	sizes := append([]int(nil), prims...)
	sort.Sort(sort.Reverse(sort.IntSlice(sizes)))
	for i := 0; i < refs; i++ {
		sizes = append(sizes, refSize)
	}
	out := fieldLayout{end: l.end, sealed: l.sealed}
	for _, z := range sizes {
		out.end += pad(out.end, z) + z
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

// extendLegacy returns the layout of a subclass that adds fields of the
// given sizes to l under the rules before JDK 15
// (ClassFileParser::layout_fields, FieldsAllocationStyle 1, CompactFields):
// its block starts at l's end rounded up to refSize; longs and doubles
// first, aligned to 8, the 4 bytes before them taking one int, else
// shorts, else bytes, else one reference; then ints, shorts, bytes, and
// the references, aligned to refSize. With oopsFirst (classes whose
// offsets JDK 6-8 hard-coded), references come first and no gap is
// filled. Later subclasses never fill this class's gaps.
func (l fieldLayout) extendLegacy(prims []int, refs, refSize int, oopsFirst bool) fieldLayout {
	var count [9]int // by size: 1, 2, 4, 8
	for _, z := range prims {
		count[z]++
	}
	off := int(alignUp(uint64(l.end), uint64(refSize)))
	if oopsFirst {
		off += refs * refSize
		refs = 0
	}
	if count[8] > 0 {
		aligned := int(alignUp(uint64(off), 8))
		if gap := aligned - off; gap > 0 && !oopsFirst {
			switch {
			case count[4] > 0:
				count[4]--
			default:
				for gap >= 2 && count[2] > 0 {
					count[2]--
					gap -= 2
				}
				for gap > 0 && count[1] > 0 {
					count[1]--
					gap--
				}
				if gap >= refSize && refs > 0 {
					refs--
				}
			}
		}
		off = aligned
	}
	off += 8*count[8] + 4*count[4] + 2*count[2] + count[1]
	if refs > 0 {
		off = int(alignUp(uint64(off), uint64(refSize))) + refs*refSize
	}
	return fieldLayout{end: off, sealed: true}
}

// oopsFirst lists the classes whose field offsets JDK 6 to 8 hard-coded
// (JavaClasses::compute_hard_coded_offsets): loaded by the boot loader,
// they lay out references first and fill no gap.
var oopsFirst = map[string]bool{
	"java/lang/AssertionStatusDirectives": true, "java/lang/Class": true,
	"java/lang/ClassLoader": true, "java/lang/ref/Reference": true,
	"java/lang/ref/SoftReference": true, "java/lang/StackTraceElement": true,
	"java/lang/String": true, "java/lang/Throwable": true,
	"java/lang/Boolean": true, "java/lang/Character": true,
	"java/lang/Float": true, "java/lang/Double": true,
	"java/lang/Byte": true, "java/lang/Short": true,
	"java/lang/Integer": true, "java/lang/Long": true,
}

// word stands for a field of the machine word's size (intptr_t) in the
// tables of injected fields; 0 stands for a reference.
const word = -1

// injected lists, per JDK generation, the fields HotSpot adds to some
// classes that the class file does not declare (javaClasses.hpp,
// *_INJECTED_FIELDS). HPROF omits them, but they take room in every
// instance. Sizes in bytes; 0 is a reference, word a machine word.
var injected = map[era]map[string][]int{
	era9: { // as JDK 17
		"java/lang/Class":                                      {word, word, 4, 4, 0, 0, 0},
		"java/lang/ClassLoader":                                {word},
		"java/lang/String":                                     {1},
		"java/lang/Module":                                     {word},
		"java/lang/InternalError":                              {1},
		"java/lang/StackFrameInfo":                             {2},
		"java/lang/invoke/MemberName":                          {word},
		"java/lang/invoke/ResolvedMethodName":                  {0, word},
		"java/lang/invoke/MethodHandleNatives$CallSiteContext": {word, word},
	},
	era8: {
		"java/lang/Class":       {word, word, 4, 4, 0, 0, 0},
		"java/lang/ClassLoader": {word},
	},
	era7: { // JDK 7; JDK 6's mirrors differ a little
		"java/lang/Class":             {0, 0, 0, 4, 4},
		"java/lang/invoke/MemberName": {word, 0},
	},
}
