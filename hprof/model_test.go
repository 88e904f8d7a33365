package hprof

import (
	"bytes"
	"testing"
)

// legacyDump writes a dump as a JDK 6 would (java.util.HashMap$Entry, no
// java.lang.Module, String with offset and count) whose objects lie
// back to back at the addresses the layout before JDK 15 gives them,
// with references and headers of the given sizes. Its classes: String,
// and Level1 { byte a }, Level2 extends Level1 { byte b }, Level3
// extends Level2 { byte c }. The expected sizes are worked out by hand
// from ClassFileParser::layout_fields (see the cases).
func legacyDump(idSize, header, ref int, strSize, levelSize uint64) []byte {
	w := newDumpWriter("JAVA PROFILE 1.0.2", idSize)
	w.class(clsObject, 0, "java/lang/Object", nil, nil)
	w.class(clsString, clsObject, "java/lang/String", nil, []testField{
		{"value", typeObject, 0}, {"offset", typeInt, 0}, {"count", typeInt, 0}, {"hash", typeInt, 0}})
	w.class(0x1100, clsObject, "java/util/HashMap$Entry", nil, nil)
	w.class(0x1110, clsObject, "Level1", nil, []testField{{"a", typeByte, 0}})
	w.class(0x1120, 0x1110, "Level2", nil, []testField{{"b", typeByte, 0}})
	w.class(0x1130, 0x1120, "Level3", nil, []testField{{"c", typeByte, 0}})
	w.class(0x1140, clsObject, "[C", nil, nil)
	w.flush(tagHeapDumpSeg)
	m := model{header: header, ref: ref, align: 8, word: idSize}
	addr := uint64(0x100000)
	for i := 0; i < 100; i++ {
		chars := addr
		w.primArray(chars, typeChar, 3, []byte{0, 'a', 0, 'b', 0, 'c'})
		addr += m.arraySize(3, 2)
		w.instance(addr, clsString, w.data().ref(chars).u4(0).u4(3).u4(0).bytes())
		addr += strSize
		w.instance(addr, 0x1130, []byte{1, 2, 3})
		addr += levelSize
	}
	return w.bytes()
}

// TestLegacyLayout checks the layout before JDK 15 on dumps laid out as
// JDK 6 lays them out, 32-bit and 64-bit: the reader tells the layout
// from the addresses and sizes objects as that JVM did. No JVM before 15
// runs here, so the oracle is HotSpot's rules worked by hand.
func TestLegacyLayout(t *testing.T) {
	for _, c := range []struct {
		name                string
		idSize, header, ref int
		str, level          uint64
		layout              string
	}{
		// 32-bit: String 8 + value 4 + 3 ints = 24; Level1 a at 8, its
		// block rounded to 4: Level2 b at 12, Level3 c at 16: 17 -> 24.
		{"32-bit", 4, 8, 4, 24, 24, "32-bit, 8-byte alignment, pre-JDK 15 field layout (from object addresses)"},
		// 64-bit without compressed oops: String 16 + 8 + 12 = 36 -> 40;
		// Level1 a at 16, Level2 b at 24, Level3 c at 32: 33 -> 40.
		{"64-bit", 8, 16, 8, 40, 40, "64-bit, no compressed oops, no compressed class pointers, 8-byte alignment, pre-JDK 15 field layout (from object addresses)"},
		// 64-bit with compressed oops (JDK 6u23+): String 12 + 4 + 12 =
		// 28 -> 32; Level1 a at 12, Level2 b at 16, Level3 c at 20: 21
		// -> 24.
		{"64-bit compressed", 8, 12, 4, 32, 24, "64-bit, compressed oops, compressed class pointers, 8-byte alignment, pre-JDK 15 field layout (from object addresses)"},
	} {
		t.Run(c.name, func(t *testing.T) {
			data := legacyDump(c.idSize, c.header, c.ref, c.str, c.level)
			g, err := Read(bytes.NewReader(data), int64(len(data)))
			if err != nil {
				t.Fatal(err)
			}
			if got := g.Meta().Attrs["layout"]; got != c.layout {
				t.Errorf("layout %q, want %q", got, c.layout)
			}
			for id := range g.Objects() {
				want := map[string]uint64{"java.lang.String": c.str, "Level3": c.level}[g.TypeName(g.Type(id))]
				if want != 0 && g.Size(id) != want {
					t.Fatalf("%s is %d bytes, want %d", g.TypeName(g.Type(id)), g.Size(id), want)
				}
			}
		})
	}
}

// TestExtendLegacy checks the gap before the first long of a class block,
// which the layout before JDK 15 fills with one int, else shorts and
// bytes, else one reference.
func TestExtendLegacy(t *testing.T) {
	for _, c := range []struct {
		prims     []int
		refs, ref int
		oopsFirst bool
		want      int
	}{
		{[]int{8, 4}, 0, 4, false, 24},       // int at 12, long at 16
		{[]int{8, 2, 2, 2}, 0, 4, false, 26}, // shorts at 12, 14, long at 16, short at 24
		{[]int{8, 1}, 1, 4, false, 28},       // byte at 12 (3 bytes left: no room for the ref), long at 16, ref at 24
		{[]int{8}, 1, 4, false, 24},          // ref in the gap at 12, long at 16
		{[]int{8, 4}, 1, 4, true, 28},        // references first: ref at 12, long at 16, int at 24
		{[]int{8}, 1, 8, false, 32},          // an 8-byte ref does not fit the gap
	} {
		got := fieldLayout{end: 12}.extendLegacy(c.prims, c.refs, c.ref, c.oopsFirst)
		if got.end != c.want {
			t.Errorf("%v + %d refs of %d (oops first %v): end %d, want %d", c.prims, c.refs, c.ref, c.oopsFirst, got.end, c.want)
		}
	}
}
