package hprof

import (
	"fmt"
	"strings"
)

// fieldRules names the rules a JVM lays out an instance's fields by.
type fieldRules uint8

const (
	// rulesModern is HotSpot's FieldLayoutBuilder (JDK 15+): a subclass's
	// fields may fill the gaps its superclass left.
	rulesModern fieldRules = iota
	// rulesSealed is FieldLayoutBuilder with -XX:-UseEmptySlotsInSupers:
	// a subclass starts on a reference-size boundary after its
	// superclass's last field and fills only its own gaps.
	rulesSealed
	// rulesLegacy is ClassFileParser::layout_fields before JDK 15: each
	// class's fields form their own block, which starts on a
	// reference-size boundary: longs and doubles (the 4 bytes before the
	// first one, if unaligned, take one int, shorts, bytes or one
	// reference), then ints, shorts and chars, bytes and booleans, and
	// references last. Up to JDK 8 a few java.lang classes put their
	// references first and fill no gap (their offsets were hard-coded).
	rulesLegacy
)

// model is the object layout that shallow sizes assume; see the package
// documentation for the rules and how the reader chooses them.
type model struct {
	header int // object header: mark word + class pointer
	ref    int // bytes per reference field or array element (heapOopSize)
	align  int // object alignment (ObjectAlignmentInBytes)
	word   int // machine word: 8 on a 64-bit JVM, 4 on a 32-bit one
	rules  fieldRules
	// arrayPacked: an array's elements start right after its length,
	// aligned to their own size (JDK 22+, and compact headers); else at
	// the next machine word, and 8-byte elements at the next 8 bytes.
	arrayPacked bool
	// era is the JDK generation the dump's classes show (see detectEra),
	// which decides the fields HotSpot injects.
	era era
}

// era is a generation of the JDK, as far as a dump shows it.
type era uint8

const (
	eraUnknown era = iota
	era7           // JDK 6 and 7: java.util.HashMap$Entry, no HashMap$Node
	era8           // JDK 8: HashMap$Node, no java.lang.Module
	era9           // JDK 9 and later: java.lang.Module
)

// arraySize returns the size of an array of n elements of es bytes each:
// the header, the u4 length, the element area, and the whole aligned to
// the object alignment.
func (m *model) arraySize(n uint64, es int) uint64 {
	return alignUp(m.arrayBase(es)+n*uint64(es), uint64(m.align))
}

// arrayBase returns the offset of an array's first element of es bytes
// (arrayOopDesc::base_offset_in_bytes).
func (m *model) arrayBase(es int) uint64 {
	end := uint64(m.header) + 4
	if m.arrayPacked {
		return alignUp(end, uint64(es))
	}
	base := alignUp(end, uint64(m.word))
	if es == 8 {
		base = alignUp(base, 8)
	}
	return base
}

// describe says in words what the model assumes, for the overview.
func (m *model) describe(from string) string {
	var parts []string
	switch {
	case m.word == 4:
		parts = append(parts, "32-bit")
	case m.header == 8:
		parts = append(parts, "64-bit, compact object headers")
	default:
		parts = append(parts, "64-bit")
		if m.ref == 4 {
			parts = append(parts, "compressed oops")
		} else {
			parts = append(parts, "no compressed oops")
		}
		if m.header == 12 {
			parts = append(parts, "compressed class pointers")
		} else {
			parts = append(parts, "no compressed class pointers")
		}
	}
	parts = append(parts, fmt.Sprintf("%d-byte alignment", m.align))
	switch m.rules {
	case rulesModern:
		parts = append(parts, "JDK 15+ field layout")
	case rulesSealed:
		parts = append(parts, "JDK 15+ field layout without empty slots in supers")
	case rulesLegacy:
		parts = append(parts, "pre-JDK 15 field layout")
	}
	s := strings.Join(parts, ", ")
	if from != "" {
		s += " (" + from + ")"
	}
	return s
}

// detectEra tells the JDK generation from the classes the dump has:
// java.lang.Module came with JDK 9, java.util.HashMap$Node with JDK 8.
func (rd *reader) detectEra() era {
	var node, entry bool
	for _, c := range rd.classes {
		switch c.name {
		case "java/lang/Module":
			return era9
		case "java/util/HashMap$Node":
			node = true
		case "java/util/HashMap$Entry":
			entry = true
		}
	}
	switch {
	case node:
		return era8
	case entry:
		return era7
	}
	return eraUnknown
}

// sample is an object of pass 1 and the address of the object the dump
// lists after it: where HotSpot walked the heap in address order, the
// next object starts where this one ends, which tells the layout.
type sample struct {
	addr, next uint64
	cls        uint64 // instance: its class; object array: 0
	n          uint32 // array length
	es         int8   // 0: instance; -1: object array; else primitive element size
}

// maxSamples bounds the samples pass 1 keeps; past it, every other one
// is dropped and the stride doubles, so the samples stay spread over the
// whole dump.
const maxSamples = 1 << 13

// sampler collects samples in pass 1.
type sampler struct {
	s       []sample
	pending sample
	has     bool // pending is an object whose successor is not seen yet
	stride  int
	count   int
}

// next is called with each object's address in file order, before the
// object itself is noted with note.
func (sp *sampler) next(addr uint64) {
	if !sp.has {
		return
	}
	sp.has = false
	p := sp.pending
	if addr <= p.addr || addr-p.addr > 1<<20 {
		return
	}
	p.next = addr
	if sp.stride == 0 {
		sp.stride = 1
	}
	sp.count++
	if sp.count%sp.stride != 0 {
		return
	}
	if len(sp.s) == maxSamples {
		k := 0
		for i := 1; i < len(sp.s); i += 2 {
			sp.s[k] = sp.s[i]
			k++
		}
		sp.s = sp.s[:k]
		sp.stride *= 2
	}
	sp.s = append(sp.s, p)
}

// note notes the object whose address next was just given.
func (sp *sampler) note(s sample) { sp.pending, sp.has = s, true }

// candidates lists the layouts a dump with 8-byte identifiers may have,
// the most common first: HotSpot 64-bit with compressed oops and class
// pointers, without compressed oops, without compressed class pointers,
// without either (JDK 6, and before JDK 15 every -XX:-UseCompressedOops),
// compact headers (JDK 24+), each with the three field layout rules.
func candidates(era era, align int) []model {
	var out []model
	rules := []fieldRules{rulesModern, rulesLegacy, rulesSealed}
	if era != era9 && era != eraUnknown {
		rules = []fieldRules{rulesLegacy, rulesModern, rulesSealed}
	}
	for _, hr := range [][2]int{{12, 4}, {12, 8}, {16, 4}, {16, 8}, {8, 4}} {
		for _, r := range rules {
			if hr[0] == 8 && r != rulesModern {
				continue
			}
			out = append(out, model{header: hr[0], ref: hr[1], align: align, word: 8, rules: r, arrayPacked: hr[0] == 8, era: era})
		}
	}
	return out
}

// score counts how the samples fit model m: exact, the objects whose
// successor starts where m ends them; overlap, those whose successor
// starts inside them, which cannot be.
func (rd *reader) score(m *model, memo map[*classInfo]*fieldLayout) (exact, overlap int) {
	for _, s := range rd.samples.s {
		var size uint64
		switch {
		case s.es == 0:
			c := rd.classes[s.cls]
			if c == nil {
				continue
			}
			rd.resolve(c)
			if !c.complete {
				continue
			}
			size = rd.instanceSizeIn(m, memo, c)
		case s.es < 0:
			size = m.arraySize(uint64(s.n), m.ref)
		default:
			size = m.arraySize(uint64(s.n), int(s.es))
		}
		switch end := s.addr + size; {
		case end == s.next:
			exact++
		case end > s.next:
			overlap++
		}
	}
	return exact, overlap
}

// chooseModel chooses the layout shallow sizes assume and says how it
// was chosen: from the object addresses when they tell, else the most
// common layout of the dump's JVM.
func (rd *reader) chooseModel() (model, string) {
	align := 8
	// The alignment is the GCD of address differences, trusted only when
	// it rests on enough objects: a heap aligned to 8 bytes whose 64
	// objects all fall on 16-byte boundaries is too unlikely.
	if g := rd.gcd; g > 8 && rd.nobj >= 64 {
		for align < 256 && g%uint64(2*align) == 0 {
			align *= 2
		}
	}
	era := rd.detectEra()
	if rd.idSize == 4 {
		m := model{header: 8, ref: 4, align: align, word: 4, rules: rulesLegacy, era: era}
		if rd.android {
			m.rules = rulesModern // Android; its own layout is not modelled
			return m, "identifier size 4, Android"
		}
		if best, ok := rd.bestFit([]model{m, {header: 8, ref: 4, align: align, word: 4, rules: rulesModern, era: era}}); ok {
			return best, "from object addresses"
		}
		return m, "identifier size 4"
	}
	cands := candidates(era, align)
	if best, ok := rd.bestFit(cands); ok {
		return best, "from object addresses"
	}
	return cands[0], "the default; object addresses do not tell"
}

// bestFit returns the candidate the samples fit best: the most exact
// fits less twice the overlaps (an overlap cannot be, so counts double;
// tables of injected fields for other JDKs leave a few); the first one
// on a tie. It fails
// when the samples do not tell: too few exact fits, or overlaps under
// every candidate (ids that are not addresses).
func (rd *reader) bestFit(cands []model) (model, bool) {
	best, bestExact, bestOver := -1, 0, 0
	for i := range cands {
		exact, over := rd.score(&cands[i], map[*classInfo]*fieldLayout{})
		if best < 0 || exact-2*over > bestExact-2*bestOver {
			best, bestExact, bestOver = i, exact, over
		}
	}
	n := len(rd.samples.s)
	if best < 0 || bestExact < 32 || bestExact < n/4 || bestOver*20 > n {
		return model{}, false
	}
	return cands[best], true
}
