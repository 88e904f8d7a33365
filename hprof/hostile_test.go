package hprof

import (
	"bytes"
	"compress/gzip"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime"
	"strings"
	"testing"

	"github.com/heapscope/heapscope/heap"
	"github.com/heapscope/heapscope/internal/input"
)

// Hostile dumps: inputs crafted so that a reader whose memory or work
// follows declared counts, or grows with the product of two things in
// the input, runs out of memory or time. Each test checks that memory
// (bytes allocated) and the reader's work counters stay in proportion to
// the input; none measures time.

// chainDump is a dump whose classes share one long superclass chain:
// depth classes of fields reference fields each, and leaves classes
// below the last of them, each with one instance. A reader that lays out
// each class's chain anew needs memory in proportion to leaves x depth x
// fields. With data, each instance carries its field data, every
// reference pointing to the instance itself; else it carries none.
func chainDump(depth, fields, leaves int, data bool) []byte {
	w := newDumpWriter("JAVA PROFILE 1.0.2", 8)
	writeJavaBase(w)
	fs := make([]testField, fields)
	for i := range fs {
		fs[i] = testField{"f", typeObject, 0}
	}
	super := uint64(clsObject)
	for d := 0; d < depth; d++ {
		id := uint64(0x100000 + 16*d)
		w.class(id, super, "Chain", nil, fs)
		super = id
		if w.seg.Len() > 1<<20 {
			w.flush(tagHeapDumpSeg)
		}
	}
	for i := 0; i < leaves; i++ {
		id := uint64(0x200000 + 16*i)
		d := w.data()
		d.u1(subClassDump).ref(id).u4(1).ref(super).ref(0).ref(0).ref(0).ref(0).ref(0).u4(0)
		d.u2(0).u2(0).u2(0)
		w.seg.Write(d.bytes())
		addr := 0x10000000 + 16*uint64(i)
		var fd []byte
		if data {
			f := w.data()
			for k := 0; k < depth*fields; k++ {
				f.ref(addr)
			}
			fd = f.bytes()
		}
		w.instance(addr, id, fd)
		if w.seg.Len() > 1<<20 {
			w.flush(tagHeapDumpSeg)
		}
	}
	return w.bytes()
}

// rootsDump is a dump where many strings share one byte[] value of
// valueLen bytes that comes long before them, behind a long run of root
// sub-records: a reader that finds the value by parsing forward from the
// last object before it parses all the roots again for every string, and
// one that hashes the value for every string hashes strings x valueLen
// bytes.
func rootsDump(roots, strings, valueLen int) []byte {
	w := newDumpWriter("JAVA PROFILE 1.0.2", 8)
	writeJavaBase(w)
	w.flush(tagHeapDumpSeg)
	addr := uint64(0x7_0000_0000)
	w.primArray(addr, typeInt, 1, []byte{0, 0, 0, 1})
	root := w.data().u1(subRootUnknown).ref(addr).bytes()
	for i := 0; i < roots; i++ {
		w.seg.Write(root)
		if w.seg.Len() > 1<<20 {
			w.flush(tagHeapDumpSeg)
		}
	}
	value := addr + 0x100
	w.primArray(value, typeByte, valueLen, bytes.Repeat([]byte("x"), valueLen))
	a := value + uint64(valueLen) + 0x100
	for i := 0; i < ringSize+1; i++ { // out of the reader's ring
		w.primArray(a, typeByte, 1, []byte("y"))
		a += 0x100
	}
	fields := w.stringFields(value, 0)
	for i := 0; i < strings; i++ {
		w.instance(a, clsString, fields)
		a += 0x100
		if w.seg.Len() > 1<<20 {
			w.flush(tagHeapDumpSeg)
		}
	}
	return w.bytes()
}

// substringDump is a JDK 6 style dump: strings with offset and count
// fields that all share one char[] of n characters, each string a
// different suffix of it, so that their digests cannot be shared.
func substringDump(n, strings int) []byte {
	const clsOldString = 0x10b0
	w := newDumpWriter("JAVA PROFILE 1.0.2", 8)
	w.class(clsObject, 0, "java/lang/Object", nil, nil)
	w.class(clsOldString, clsObject, "java/lang/String", nil,
		[]testField{{"value", typeObject, 0}, {"offset", typeInt, 0}, {"count", typeInt, 0}, {"hash", typeInt, 0}})
	w.flush(tagHeapDumpSeg)
	chars := make([]byte, 2*n)
	for i := range n {
		binary.BigEndian.PutUint16(chars[2*i:], uint16('a'+i%26))
	}
	arr := uint64(0x7_0000_0000)
	w.primArray(arr, typeChar, n, chars)
	a := arr + 2*uint64(n) + 0x100
	for i := 0; i < strings; i++ {
		w.instance(a, clsOldString, w.data().ref(arr).u4(uint32(i)).u4(uint32(n-i)).u4(0).bytes())
		a += 0x100
	}
	return w.bytes()
}

// readCounting reads a dump and returns the graph, the error, the
// reader's work counters and the bytes allocated.
func readCounting(t *testing.T, b []byte) (*heap.Graph, error, work, uint64) {
	t.Helper()
	var m0, m1 runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&m0)
	rd := newReader(bytes.NewReader(b), int64(len(b)))
	g, err := rd.read()
	runtime.ReadMemStats(&m1)
	if g != nil {
		if verr := g.Validate(); verr != nil {
			t.Fatalf("Validate() = %v", verr)
		}
	}
	return g, err, rd.work, m1.TotalAlloc - m0.TotalAlloc
}

// allocBound is what reading a dump of n bytes may allocate: the
// reader's fixed buffers, and a small multiple of the input (a normal
// dump of 11 MB takes 24 MB).
func allocBound(n int) uint64 { return 32<<20 + 16*uint64(n) }

// TestSharedChains reads dumps whose classes share long superclass
// chains. Reading them used to allocate 3.5 GB for 690 KB of input (a
// layout per class of the whole chain); memory now stays in proportion
// to the input, and every class's chain is resolved once per pass.
func TestSharedChains(t *testing.T) {
	for _, tc := range []struct {
		name                  string
		depth, fields, leaves int
	}{
		{"one wide class", 1, 65535, 1000},
		{"deep", 256, 255, 1000},
		{"very deep", 20000, 1, 20000},
		{"flat lists", flatRefs, 1, 20000},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := chainDump(tc.depth, tc.fields, tc.leaves, false)
			g, err, w, alloc := readCounting(t, b)
			if err != nil {
				t.Fatal(err)
			}
			if alloc > allocBound(len(b)) {
				t.Errorf("%d bytes of input: allocated %d MB, more than %d MB", len(b), alloc>>20, allocBound(len(b))>>20)
			}
			classes := tc.depth + tc.leaves + 8
			if w.resolved > 2*classes {
				t.Errorf("%d classes resolved for %d classes in two passes", w.resolved, classes)
			}
			if n := g.NumObjects(); n != classes+tc.leaves {
				t.Errorf("%d objects, want %d", n, classes+tc.leaves)
			}
		})
	}
}

// TestChainEdges checks the edges decoded through a shared chain: every
// reference field of every level, named after its field, from the flat
// list of a short chain and by walking a long one.
func TestChainEdges(t *testing.T) {
	for _, depth := range []int{10, 30} {
		testChainEdges(t, depth)
	}
}

func testChainEdges(t *testing.T, depth int) {
	const fields, leaves = 3, 50
	g, err := readBytes(t, chainDump(depth, fields, leaves, true))
	if err != nil {
		t.Fatal(err)
	}
	if len(g.Warnings()) != 0 {
		t.Errorf("warnings: %v", g.Warnings())
	}
	n := 0
	for id := range g.Objects() {
		if g.Addr(id) < 0x10000000 {
			continue
		}
		n++
		es := g.Edges(id)
		if len(es) != depth*fields+1 {
			t.Fatalf("instance %#x has %d edges, want %d (its fields and its class)", g.Addr(id), len(es), depth*fields+1)
		}
		if cls := es[0]; g.EdgeName(cls.Label) != "<class>" || g.Addr(cls.To) >= 0x10000000 {
			t.Fatalf("instance %#x: first edge %q to %#x, want its class", g.Addr(id), g.EdgeName(cls.Label), g.Addr(cls.To))
		}
		for _, e := range es[1:] {
			if e.To != id || g.EdgeName(e.Label) != "f" {
				t.Fatalf("instance %#x: edge %q to %#x", g.Addr(id), g.EdgeName(e.Label), g.Addr(e.To))
			}
		}
	}
	if n != leaves {
		t.Errorf("%d instances, want %d", n, leaves)
	}
}

// TestStringsBehindRoots reads dumps where many strings share a long
// value that lies behind a long run of roots. Reading 1 MB of it used to
// take seconds: every string parsed all the roots again and hashed the
// whole value. Now the parsing per string is bounded by the checkpoints
// and the value is hashed once, at every scale.
func TestStringsBehindRoots(t *testing.T) {
	const valueLen = 1 << 16
	for _, scale := range []int{1, 4} {
		roots, strs := 100000*scale, 1000*scale
		b := rootsDump(roots, strs, valueLen)
		g, err, w, alloc := readCounting(t, b)
		if err != nil {
			t.Fatal(err)
		}
		if alloc > allocBound(len(b)) {
			t.Errorf("scale %d: allocated %d MB, more than %d MB", scale, alloc>>20, allocBound(len(b))>>20)
		}
		if w.located > 2*checkpointEvery*strs {
			t.Errorf("scale %d: %d sub-records parsed to find the values of %d strings", scale, w.located, strs)
		}
		if w.hashed > 2*valueLen {
			t.Errorf("scale %d: %d bytes hashed for %d strings sharing %d bytes", scale, w.hashed, strs, valueLen)
		}
		// Every string has the label and the digest of its value.
		want := uint64(14695981039346656037)
		want = (want ^ 0) * 1099511628211
		for range valueLen {
			want = (want ^ 'x') * 1099511628211
		}
		n := 0
		for id := range g.Objects() {
			if g.TypeName(g.Type(id)) != "java.lang.String" {
				continue
			}
			n++
			v, _ := g.Value(id)
			if d, ok := g.Digest(id); !ok || d != want || v != strings.Repeat("x", labelChars) {
				t.Fatalf("string %#x: digest %#x %v, value %q; want %#x", g.Addr(id), d, ok, v, want)
			}
		}
		if n != strs {
			t.Errorf("%d strings, want %d", n, strs)
		}
	}
}

// TestHashingBudget reads JDK 6 style strings, each a different suffix
// of one long char[]: their digests cannot be shared, and hashing them
// all would cost strings x length. The reader stops hashing at a budget
// in proportion to the input, says so in a warning, and still labels
// every string.
func TestHashingBudget(t *testing.T) {
	const n, strs = 1 << 20, 100 // 2 MB of chars, 200 MB to hash in all
	b := substringDump(n, strs)
	g, err, w, _ := readCounting(t, b)
	if err != nil {
		t.Fatal(err)
	}
	if budget := budgetFactor*int64(len(b)) + budgetExtra; w.hashed > budget {
		t.Errorf("hashed %d bytes, more than the budget of %d", w.hashed, budget)
	}
	digested, labelled := 0, 0
	for id := range g.Objects() {
		if g.TypeName(g.Type(id)) != "java.lang.String" {
			continue
		}
		if _, ok := g.Digest(id); ok {
			digested++
		}
		if v, _ := g.Value(id); v != "" {
			labelled++
		}
	}
	if labelled != strs || digested == 0 || digested == strs {
		t.Errorf("%d strings labelled and %d digested of %d; want all labelled, some digested", labelled, digested, strs)
	}
	if !hasWarning(g, "have no digest") {
		t.Errorf("no warning about strings without a digest: %v", g.Warnings())
	}
}

func hasWarning(g *heap.Graph, s string) bool {
	for _, w := range g.Warnings() {
		if strings.Contains(w.Msg, s) {
			return true
		}
	}
	return false
}

// TestCutAtRecord cuts a dump exactly after each of its records: none
// reads without an error. Before any object, the dump holds no object;
// after one, the HEAP_DUMP_END that ends every segmented dump is missing.
func TestCutAtRecord(t *testing.T) {
	dump := tinyDump(8)
	var ends []int
	for off := 31; off < len(dump); {
		off += recordHeaderBytes + int(binary.BigEndian.Uint32(dump[off+5:]))
		ends = append(ends, off)
	}
	if ends[len(ends)-1] != len(dump) {
		t.Fatalf("records end at %d, the dump at %d", ends[len(ends)-1], len(dump))
	}
	for _, cut := range ends[:len(ends)-1] {
		g, err := readBytes(t, dump[:cut])
		switch {
		case errors.Is(err, heap.ErrNoObjects):
			if g != nil {
				t.Errorf("cut at %d: a graph with %v", cut, err)
			}
		case errors.Is(err, io.ErrUnexpectedEOF) && strings.Contains(err.Error(), "HEAP_DUMP_END"):
			if g == nil {
				t.Errorf("cut at %d: no graph with %v", cut, err)
			}
		default:
			t.Errorf("cut at %d: error %v; want no objects, or HEAP_DUMP_END missing", cut, err)
		}
	}
	// A dump of the old kind, one HEAP_DUMP record, has no end record.
	w := newDumpWriter("JAVA PROFILE 1.0.1", 8)
	writeJavaBase(w)
	w.flush(tagHeapDump)
	if _, err := readBytes(t, w.out.Bytes()); err != nil {
		t.Errorf("HEAP_DUMP without HEAP_DUMP_END: %v", err)
	}
}

// TestNoObjects reads dumps without objects: an error that says why.
func TestNoObjects(t *testing.T) {
	w := newDumpWriter("JAVA PROFILE 1.0.2", 8)
	w.str("java/lang/Object")
	headerOnly := w.out.Bytes()
	w.record(tagHeapDumpSeg, w.data().u1(subRootUnknown).ref(0x1000).bytes())
	w.record(tagHeapDumpEnd, nil)
	for name, b := range map[string][]byte{
		"header only":  headerOnly[:31],
		"no heap dump": headerOnly,
		"roots only":   w.out.Bytes(),
	} {
		g, err := readBytes(t, b)
		var fe *FormatError
		if g != nil || !errors.Is(err, heap.ErrNoObjects) || !errors.As(err, &fe) {
			t.Errorf("%s: %v; want a *FormatError wrapping heap.ErrNoObjects", name, err)
		}
	}
}

// bomb returns a gzip stream that decompresses to an HPROF header
// followed by n zero bytes (records of unknown tag 0), in members of
// 16 MiB, as small as gzip makes them.
func bomb(t testing.TB, n int64) []byte {
	var out bytes.Buffer
	head := []byte("JAVA PROFILE 1.0.2\x00\x00\x00\x00\x08\x00\x00\x00\x00\x00\x00\x00\x00")
	var member bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&member, gzip.BestCompression)
	zw.Write(make([]byte, 16<<20))
	zw.Close()
	zw, _ = gzip.NewWriterLevel(&out, gzip.BestCompression)
	zw.Write(head)
	zw.Close()
	for n > 0 {
		out.Write(member.Bytes())
		n -= 16 << 20
	}
	return out.Bytes()
}

// TestGzipLimit decompresses a gzip bomb: it stops at the limit, with an
// error that says so, and leaves no temporary file behind.
func TestGzipLimit(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("TMPDIR", dir)
	b := bomb(t, 256<<20)
	const limit = 32 << 20
	g, err := Options{MaxInflated: limit}.Read(bytes.NewReader(b), int64(len(b)))
	var fe *FormatError
	if g != nil || !errors.As(err, &fe) || fe.Record != "gzip" || !errors.Is(err, input.ErrTooLarge) || fe.Offset != limit {
		t.Errorf("Read(%d-byte bomb of 256 MiB) = %v; want a gzip *FormatError at %d wrapping input.ErrTooLarge", len(b), err, limit)
	}
	if !strings.Contains(fmt.Sprint(err), "32 MiB") {
		t.Errorf("error %q does not state the limit", err)
	}
	if left, _ := os.ReadDir(dir); len(left) != 0 {
		t.Errorf("temporary files left: %v", left)
	}
	// Under the limit, the same stream reads.
	small := bomb(t, 16<<20)
	if _, err := (Options{MaxInflated: limit}).Read(bytes.NewReader(small), int64(len(small))); err != nil && errors.Is(err, input.ErrTooLarge) {
		t.Errorf("16 MiB under a limit of 32 MiB: %v", err)
	}
	if left, _ := os.ReadDir(dir); len(left) != 0 {
		t.Errorf("temporary files left: %v", left)
	}
}
