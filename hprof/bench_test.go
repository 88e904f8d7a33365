package hprof

import (
	"bytes"
	"testing"
)

// bigDump synthesizes a HotSpot-like dump of about n objects: linked
// nodes that name strings, strings with their byte[] values, and small
// object arrays, at dense increasing addresses, in 1 MiB segments.
func bigDump(n int) []byte {
	w := newDumpWriter("JAVA PROFILE 1.0.2", 8)
	writeJavaBase(w)
	w.class(clsNode, clsObject, "com/example/Node", nil,
		[]testField{{"next", typeObject, 0}, {"name", typeObject, 0}, {"id", typeLong, 0}, {"flag", typeBoolean, 0}})
	w.flush(tagHeapDumpSeg)
	addr := uint64(0x7_0000_0000)
	text := []byte("session-0000000000")
	for i := 0; i < n/4; i++ {
		node, str, val, arr := addr, addr+32, addr+56, addr+96
		addr += 96 + 32
		for k, j := len(text)-1, i; k >= 8 && j > 0; k, j = k-1, j/10 {
			text[k] = byte('0' + j%10)
		}
		w.instance(node, clsNode, w.data().ref(node+128).ref(str).u8(uint64(i)).u1(1).bytes())
		w.instance(str, clsString, w.stringFields(val, 0))
		w.primArray(val, typeByte, len(text), text)
		w.objArray(arr, clsObjArr, node, str, 0)
		if w.seg.Len() > 1<<20 {
			w.flush(tagHeapDumpSeg)
		}
	}
	w.root(subRootJNIGlobal, 0x7_0000_0000)
	return w.bytes()
}

func BenchmarkRead(b *testing.B) {
	dump := bigDump(1 << 20)
	b.SetBytes(int64(len(dump)))
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		g, err := Read(bytes.NewReader(dump), int64(len(dump)))
		if err != nil {
			b.Fatal(err)
		}
		if g.NumObjects() < 1<<20 {
			b.Fatalf("%d objects", g.NumObjects())
		}
	}
}
