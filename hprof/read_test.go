package hprof

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"sort"
	"strings"
	"testing"

	"github.com/heapscope/heapscope/heap"
)

// readBytes reads a dump from memory and checks the graph it returns.
func readBytes(t *testing.T, b []byte) (*heap.Graph, error) {
	t.Helper()
	g, err := Read(bytes.NewReader(b), int64(len(b)))
	if g != nil {
		if verr := g.Validate(); verr != nil {
			t.Fatalf("Validate() = %v", verr)
		}
	}
	return g, err
}

// objectLines renders each object as "0xADDR TYPE SIZE [edge->0xADDR ...]".
func objectLines(g *heap.Graph) map[uint64]string {
	out := map[uint64]string{}
	for id := range g.Objects() {
		var sb strings.Builder
		fmt.Fprintf(&sb, "%s %d", g.TypeName(g.Type(id)), g.Size(id))
		for _, e := range g.Edges(id) {
			k := ""
			if e.Label.Kind() != heap.Strong {
				k = e.Label.Kind().String() + ":"
			}
			fmt.Fprintf(&sb, " %s%s->%#x", k, g.EdgeName(e.Label), g.Addr(e.To))
		}
		out[g.Addr(id)] = sb.String()
	}
	return out
}

func rootLines(g *heap.Graph) []string {
	var out []string
	for _, r := range g.Roots() {
		out = append(out, fmt.Sprintf("%#x %s %s", g.Addr(r.Object), r.Kind, g.String(r.Name)))
	}
	sort.Strings(out)
	return out
}

func TestReadTiny(t *testing.T) {
	// Sizes are HotSpot's with 12-byte headers and 4-byte references for
	// 8-byte ids, and the 32-bit model (8-byte headers) for 4-byte ids.
	for _, tc := range []struct {
		idSize int
		want   map[uint64]string
	}{
		{8, map[uint64]string{
			0x2000:  "com.example.Node 32 internal:<class>->0x1070 next->0x2100 name->0x3100",
			0x2100:  "com.example.Node 32 internal:<class>->0x1070 next->0x2200 name->0x3100",
			0x2200:  "com.example.Node 32 internal:<class>->0x1070 name->0x3100",
			0x3000:  "byte[] 24 internal:<class>->0x1040",
			0x3100:  "java.lang.String 24 internal:<class>->0x1010 value->0x3000",
			0x3200:  "java.lang.String 24 internal:<class>->0x1010 value->0x3300",
			0x3300:  "byte[] 32 internal:<class>->0x1040",
			0x3400:  "java.lang.String 24 internal:<class>->0x1010 value->0x3000",
			0x4000:  "java.lang.ref.WeakReference 32 internal:<class>->0x1030 weak:referent->0x2200",
			0x5000:  "java.lang.Object[] 32 internal:<class>->0x1050 [0]->0x2000 [2]->0x4000",
			0x5100:  "java.lang.String[][] 24 internal:<class>->0x1060 [0]->0x5000",
			0x6000:  "int[] 32",
			0x6100:  "long[] 24",
			clsNode: "java.lang.Class 64 HEAD->0x2000 internal:<super>->0x1000",
		}},
		{4, map[uint64]string{
			0x2000: "com.example.Node 32 internal:<class>->0x1070 next->0x2100 name->0x3100",
			0x3000: "byte[] 24 internal:<class>->0x1040",
			0x3100: "java.lang.String 24 internal:<class>->0x1010 value->0x3000",
			0x4000: "java.lang.ref.WeakReference 24 internal:<class>->0x1030 weak:referent->0x2200",
			0x5000: "java.lang.Object[] 24 internal:<class>->0x1050 [0]->0x2000 [2]->0x4000",
			0x6100: "long[] 24",
		}},
	} {
		t.Run(fmt.Sprintf("id%d", tc.idSize), func(t *testing.T) {
			g, err := readBytes(t, tinyDump(tc.idSize))
			if err != nil {
				t.Fatal(err)
			}
			if len(g.Warnings()) > 0 {
				t.Errorf("Warnings() = %v, want none", g.Warnings())
			}
			if n := g.NumObjects(); n != 8+1+13 {
				t.Errorf("NumObjects() = %d, want 22", n)
			}
			got := objectLines(g)
			for addr, want := range tc.want {
				if got[addr] != want {
					t.Errorf("object %#x = %q, want %q", addr, got[addr], want)
				}
			}
			wantRoots := []string{
				"0x1000 class sticky class",
				"0x1070 class sticky class",
				"0x2000 global jni global",
				"0x2000 stack java frame",
			}
			if r := rootLines(g); fmt.Sprint(r) != fmt.Sprint(wantRoots) {
				t.Errorf("roots = %q, want %q", r, wantRoots)
			}
			vals := map[uint64]string{}
			digs := map[uint64]uint64{}
			for id, v := range g.Values() {
				vals[g.Addr(id)] = v
			}
			for id, d := range g.Digests() {
				digs[g.Addr(id)] = d
			}
			wantVals := map[uint64]string{0x3100: "hello", 0x3200: "héllo→€", 0x3400: "hello"}
			if fmt.Sprint(vals) != fmt.Sprint(wantVals) {
				t.Errorf("values = %v, want %v", vals, wantVals)
			}
			if len(digs) != 3 || digs[0x3100] != digs[0x3400] || digs[0x3100] == digs[0x3200] {
				t.Errorf("digests = %x, want 3 with equal strings equal", digs)
			}
			if m := g.Meta(); m.Runtime != "java" {
				t.Errorf("Meta().Runtime = %q, want java", m.Runtime)
			}
		})
	}
}

func TestMatch(t *testing.T) {
	dump := tinyDump(8)
	var gz bytes.Buffer
	writeGzip(t, &gz, dump, 2)
	for _, tc := range []struct {
		name string
		in   []byte
		want bool
	}{
		{"hprof", dump[:64], true},
		{"1.0.1", []byte("JAVA PROFILE 1.0.1\x00"), true},
		{"1.0.3", []byte("JAVA PROFILE 1.0.3\x00"), true},
		{"1.0.9", []byte("JAVA PROFILE 1.0.9\x00"), false},
		{"short", []byte("JAVA PRO"), false},
		{"json", []byte(`{"snapshot":{}}`), false},
		{"gzip", gz.Bytes()[:min(gz.Len(), 4096)], true},
		{"gzip-short", gz.Bytes()[:4], false},
		{"empty", nil, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := Match(tc.in); got != tc.want {
				t.Errorf("Match(%q) = %v, want %v", tc.in[:min(len(tc.in), 20)], got, tc.want)
			}
		})
	}
}

func TestTruncated(t *testing.T) {
	dump := tinyDump(8)
	full, err := readBytes(t, dump)
	if err != nil {
		t.Fatal(err)
	}
	for cut := 1; cut < len(dump); cut++ {
		// Every cut is an error, also right after a record: before any
		// object there is nothing to read, and after one the
		// HEAP_DUMP_END is missing.
		g, err := readBytes(t, dump[:cut])
		var fe *FormatError
		if !errors.As(err, &fe) {
			t.Fatalf("cut at %d: error %v is not a *FormatError", cut, err)
		}
		if cut > 31 && !errors.Is(err, io.ErrUnexpectedEOF) && !errors.Is(err, heap.ErrNoObjects) {
			t.Fatalf("cut at %d: error %v wraps neither io.ErrUnexpectedEOF nor heap.ErrNoObjects", cut, err)
		}
		if g != nil && g.NumObjects() > full.NumObjects() {
			t.Fatalf("cut at %d: %d objects, more than the %d of the whole dump", cut, g.NumObjects(), full.NumObjects())
		}
	}
	// The last complete object before a cut is kept.
	g, err := readBytes(t, dump[:len(dump)-20])
	if !errors.Is(err, io.ErrUnexpectedEOF) || g == nil || g.NumObjects() != full.NumObjects()-1 {
		t.Errorf("cut in the last sub-record: %v objects, err %v; want %d and io.ErrUnexpectedEOF",
			g.NumObjects(), err, full.NumObjects()-1)
	}
}

// TestDamage covers damage that Read survives with a warning.
func TestDamage(t *testing.T) {
	for _, tc := range []struct {
		name     string
		dump     func() []byte
		objects  int
		warnings []string
	}{
		{"unknown tag", func() []byte {
			w := newDumpWriter("JAVA PROFILE 1.0.2", 8)
			w.record(0x42, []byte("whatever"))
			writeJavaBase(w)
			w.instance(0x2000, clsObject, nil)
			return w.bytes()
		}, 9, []string{"unknown record tag 0x42 (8 bytes); skipped"}},
		{"dangling", func() []byte {
			w := newDumpWriter("JAVA PROFILE 1.0.2", 8)
			writeJavaBase(w)
			w.objArray(0x2000, clsObjArr, 0xdead0, 0x2000)
			w.root(subRootJNIGlobal, 0xbad0)
			return w.bytes()
		}, 9, []string{
			"1 references point to no object in the dump (first: 0xdead0, from object 0x2000); they were dropped",
			"1 roots point to no object in the dump; they were dropped",
		}},
		{"cut segment", func() []byte {
			w := newDumpWriter("JAVA PROFILE 1.0.2", 8)
			writeJavaBase(w)
			w.flush(tagHeapDumpSeg)
			w.instance(0x2000, clsObject, nil)
			w.objArray(0x2100, clsObjArr, 0x2000, 0x2000)
			seg := append([]byte(nil), w.seg.Bytes()...)
			w.seg.Reset()
			w.record(tagHeapDumpSeg, seg[:len(seg)-4]) // the array overruns its segment
			w.instance(0x2200, clsObject, nil)
			return w.bytes()
		}, 10, []string{"hprof: OBJ_ARRAY_DUMP at offset 0x"}},
		{"unknown sub-record", func() []byte {
			w := newDumpWriter("JAVA PROFILE 1.0.2", 8)
			writeJavaBase(w)
			w.flush(tagHeapDumpSeg)
			w.instance(0x2000, clsObject, nil)
			w.seg.WriteByte(0x77)
			w.instance(0x2100, clsObject, nil)
			w.flush(tagHeapDumpSeg)
			w.instance(0x2200, clsObject, nil)
			return w.bytes()
		}, 10, []string{"unknown sub-record tag 0x77"}},
		{"field data too short", func() []byte {
			w := newDumpWriter("JAVA PROFILE 1.0.2", 8)
			writeJavaBase(w)
			w.instance(0x2000, clsString, []byte{1, 2, 3})
			return w.bytes()
		}, 9, []string{"1 instances whose field data disagrees with their class's fields"}},
		{"no class dump", func() []byte {
			w := newDumpWriter("JAVA PROFILE 1.0.2", 8)
			w.loadClass(0x900, "com/example/Lost")
			w.instance(0x2000, 0x900, []byte{0, 0, 0, 0})
			return w.bytes()
		}, 1, []string{"1 instances of classes without a CLASS_DUMP"}},
		{"duplicate id", func() []byte {
			w := newDumpWriter("JAVA PROFILE 1.0.2", 8)
			writeJavaBase(w)
			w.instance(0x2000, clsObject, nil)
			w.instance(0x2000, clsObject, nil)
			return w.bytes()
		}, 10, []string{"1 objects share an id with an earlier object"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			g, err := readBytes(t, tc.dump())
			if err != nil {
				t.Fatal(err)
			}
			if g.NumObjects() != tc.objects {
				t.Errorf("NumObjects() = %d, want %d", g.NumObjects(), tc.objects)
			}
			var ws []string
			for _, w := range g.Warnings() {
				ws = append(ws, w.String())
			}
			all := strings.Join(ws, "\n")
			for _, want := range tc.warnings {
				if !strings.Contains(all, want) {
					t.Errorf("Warnings() = %q, want one containing %q", ws, want)
				}
			}
			if len(ws) != len(tc.warnings) {
				t.Errorf("Warnings() = %q, want %d", ws, len(tc.warnings))
			}
		})
	}
}

// TestBadHeader covers inputs Read refuses.
func TestBadHeader(t *testing.T) {
	for _, tc := range []struct {
		name string
		in   string
		want string
	}{
		{"empty", "", "not an HPROF file"},
		{"text", "hello, world", "not an HPROF file"},
		{"version", "JAVA PROFILE 9.9\x00\x00\x00\x00\x08\x00\x00\x00\x00\x00\x00\x00\x00", "unsupported version"},
		{"id size", "JAVA PROFILE 1.0.2\x00\x00\x00\x00\x03\x00\x00\x00\x00\x00\x00\x00\x00", "unsupported identifier size 3"},
		{"short header", "JAVA PROFILE 1.0.2\x00\x00\x00", "unexpected EOF"},
		{"short version", "JAVA PROF", "unexpected EOF"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			g, err := readBytes(t, []byte(tc.in))
			var fe *FormatError
			if g != nil || !errors.As(err, &fe) || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("Read(%q) = %v, %v; want nil and a *FormatError containing %q", tc.in, g, err, tc.want)
			}
		})
	}
}

// TestHugeCounts checks that lengths are checked before allocating: an
// array that claims 2^32-1 elements in a tiny record is damage.
func TestHugeCounts(t *testing.T) {
	w := newDumpWriter("JAVA PROFILE 1.0.2", 8)
	writeJavaBase(w)
	w.seg.Write(w.data().u1(subObjArrayDump).ref(0x2000).u4(1).u4(0xffffffff).ref(clsObjArr).bytes())
	w.flush(tagHeapDumpSeg)
	w.seg.Write(w.data().u1(subClassDump).ref(0x2100).u4(1).ref(0).ref(0).ref(0).ref(0).ref(0).ref(0).u4(0).u2(0).u2(0xffff).bytes())
	g, err := readBytes(t, w.bytes())
	if err != nil {
		t.Fatal(err)
	}
	if len(g.Warnings()) != 2 {
		t.Errorf("Warnings() = %v, want 2", g.Warnings())
	}
}

func TestJavaName(t *testing.T) {
	for in, want := range map[string]string{
		"java/util/HashMap":                      "java.util.HashMap",
		"[I":                                     "int[]",
		"[[Ljava/lang/String;":                   "java.lang.String[][]",
		"[Ljava/lang/Object;":                    "java.lang.Object[]",
		"Foo$$Lambda$14+0x0000000800c0b238":      "Foo$$Lambda$14/0x0000000800c0b238",
		"[Lcom/x/Foo$$Lambda$1+0x0000000800001;": "com.x.Foo$$Lambda$1/0x0000000800001[]",
		"[Q":                                     "[Q",
	} {
		if got := javaName(in); got != want {
			t.Errorf("javaName(%q) = %q, want %q", in, got, want)
		}
	}
	if got := decodeMUTF8([]byte("a\xc0\x80b\xed\xa0\xbd\xed\xb8\x80")); got != "a\x00b😀" {
		t.Errorf("decodeMUTF8 = %q, want %q", got, "a\x00b😀")
	}
}

func TestFieldLayout(t *testing.T) {
	// Known JDK 17 sizes (compressed oops and class pointers).
	for _, tc := range []struct {
		name  string
		prims []int
		refs  int
		super *fieldLayout
		end   int
	}{
		{"Object", nil, 0, nil, 12},
		{"String", []int{1, 4, 1, 1}, 1, nil, 24},
		{"HashMap$Node", []int{4}, 3, nil, 28},
		{"Long", []int{8}, 0, nil, 24},
		{"two longs and a byte", []int{8, 8, 1}, 0, nil, 32},
	} {
		base := fieldLayout{end: 12}
		if tc.super != nil {
			base = *tc.super
		}
		if got := base.extend(tc.prims, tc.refs, 4).end; got != tc.end {
			t.Errorf("%s: end = %d, want %d", tc.name, got, tc.end)
		}
	}
	// A subclass fills its superclass's gap: Long (value at 16, gap 12..16)
	// then a subclass with one int puts it at 12.
	l := fieldLayout{end: 12}.extend([]int{8}, 0, 4)
	if got := l.extend([]int{4}, 0, 4).end; got != 24 {
		t.Errorf("subclass end = %d, want 24", got)
	}
}
