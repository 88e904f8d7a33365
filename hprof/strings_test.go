package hprof

import (
	"fmt"
	"testing"
)

// TestStringPlacement checks labels and digests of strings whose value
// arrays are in every place the reader handles differently: right after
// the string, right before, a little before (the ring), before but out of
// the cursor's window, far before and far after (found from the
// checkpoints), in another segment, a char[] value of an old string with
// offset and count, a value that is not a byte[] and one of an empty
// string.
func TestStringPlacement(t *testing.T) {
	for _, idSize := range []int{4, 8} {
		t.Run(fmt.Sprint("id", idSize), func(t *testing.T) {
			w := newDumpWriter("JAVA PROFILE 1.0.2", idSize)
			writeJavaBase(w)
			const clsOldString, clsCharArr, clsIntArr = 0x10b0, 0x10c0, 0x10d0
			w.class(clsOldString, clsObject, "java/lang/String", nil,
				[]testField{{"value", typeObject, 0}, {"offset", typeInt, 0}, {"count", typeInt, 0}, {"hash", typeInt, 0}})
			w.flush(tagHeapDumpSeg)
			want := map[uint64]string{}
			addr := uint64(0x10000)
			next := func() uint64 { addr += 0x40; return addr }
			latin := func(s string) (uint64, string) {
				a := next()
				w.primArray(a, typeByte, len(s), []byte(s))
				return a, s
			}
			str := func(val uint64, s string) {
				a := next()
				w.instance(a, clsString, w.stringFields(val, 0))
				want[a] = s
			}
			filler := func(n int) {
				for i := 0; i < n; i++ {
					w.primArray(next(), typeInt, 1, []byte{0, 0, 0, 1})
				}
			}
			// After, before, shared a little before.
			s1 := next()
			w.instance(s1, clsString, w.stringFields(s1+0x40, 0))
			want[s1] = "next"
			latin("next")
			a2, t2 := latin("previous")
			str(a2, t2)
			filler(3)
			str(a2, t2)
			// Before, then more than a window of data.
			a3, t3 := latin("before a big array")
			big := next()
			w.primArray(big, typeByte, 3<<20, make([]byte, 3<<20))
			str(a3, t3)
			// Far before (beyond the ring) and far after.
			a4, t4 := latin("far before")
			filler(300)
			str(a4, t4)
			s5 := next()
			filler(300)
			a5, t5 := latin("far after")
			w.instance(s5, clsString, w.stringFields(a5, 0))
			want[s5] = t5
			// A string at the end of a segment, its value in the next.
			s6 := next()
			w.instance(s6, clsString, w.stringFields(s6+0x40, 0))
			w.flush(tagHeapDumpSeg)
			w.root(subRootJNIGlobal, s6)
			_, t6 := latin("next segment")
			want[s6] = t6
			// A long string, longer than the label.
			long := ""
			for len(long) < 1000 {
				long += "0123456789"
			}
			s7 := next()
			w.instance(s7, clsString, w.stringFields(s7+0x40, 0))
			latin(long)
			want[s7] = long[:labelChars]
			// An old string: char[] with offset and count.
			chars := next()
			d := w.data()
			for _, r := range "xxhello worldyy" {
				d.u2(uint16(r))
			}
			w.primArray(chars, typeChar, 15, d.bytes())
			filler(200)
			s8 := next()
			w.instance(s8, clsOldString, w.data().ref(chars).u4(2).u4(11).u4(0).bytes())
			want[s8] = "hello world"
			// A value that is an int[], and an empty string.
			ints := next()
			w.primArray(ints, clsIntArr&0+typeInt, 1, []byte{0, 0, 0, 1})
			s9 := next()
			w.instance(s9, clsString, w.stringFields(ints, 0))
			a10, _ := latin("")
			str(a10, "")
			dump := w.bytes()

			g, err := readBytes(t, dump)
			if err != nil {
				t.Fatal(err)
			}
			got := map[uint64]string{}
			for id, v := range g.Values() {
				got[g.Addr(id)] = v
			}
			if fmt.Sprint(got) != fmt.Sprint(want) {
				t.Errorf("values:\n got %v\nwant %v", got, want)
			}
			digests := map[uint64]uint64{}
			prev := -1
			for id, d := range g.Digests() {
				if int(id) <= prev {
					t.Errorf("digests out of order")
				}
				prev = int(id)
				digests[g.Addr(id)] = d
			}
			for a, s := range want {
				if _, ok := digests[a]; !ok {
					t.Errorf("string %q at %#x has no digest", s, a)
				}
			}
			if digests[s1] == digests[s5] || len(digests) != len(want) {
				t.Errorf("digests %x", digests)
			}
		})
	}
}
