package heapsnapshot

import (
	"bytes"
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/heapscope/heapscope/heap"
)

func mustRead(t *testing.T, data []byte, opt Options) *heap.Graph {
	t.Helper()
	g, err := opt.Read(bytes.NewReader(data))
	if err != nil {
		t.Fatalf("Read() error: %v", err)
	}
	if err := g.Validate(); err != nil {
		t.Fatalf("Validate() = %v", err)
	}
	return g
}

// edge returns the edge of from whose display name is name.
func edge(t *testing.T, g *heap.Graph, from heap.ObjectID, name string) heap.Edge {
	t.Helper()
	for _, e := range g.Edges(from) {
		if g.EdgeName(e.Label) == name {
			return e
		}
	}
	t.Fatalf("object %d has no edge %q", from, name)
	return heap.Edge{}
}

func TestReadTiny(t *testing.T) {
	g := mustRead(t, tinySnap().bytes(), Options{})
	if g.NumObjects() != 16 || g.NumEdges() != 20 {
		t.Fatalf("got %d objects, %d edges, want 16, 20", g.NumObjects(), g.NumEdges())
	}
	wantTypes := []string{"(root)", "(GC roots)", "(Global handles)", "global", "Map", "Array", "(array)",
		"WeakMap", "Key", "Holder", "(array)", "(string)", "(string)", "(array)", "LeakItem", "onData (closure)"}
	for i, want := range wantTypes {
		id := heap.ObjectID(i)
		if got := g.TypeName(g.Type(id)); got != want {
			t.Errorf("TypeName(object %d) = %q, want %q", i, got, want)
		}
		if got := g.Addr(id); got != uint64(2*i+1) {
			t.Errorf("Addr(%d) = %d, want %d", i, got, 2*i+1)
		}
	}
	if got, want := g.TotalSize(), uint64(40+32+32+64+32+16+24+48+20+20+80+24+32); got != want {
		t.Errorf("TotalSize() = %d, want %d", got, want)
	}
	roots := g.Roots()
	if len(roots) != 1 || roots[0].Object != 0 || roots[0].Kind != heap.RootVM || g.String(roots[0].Name) != "(root)" {
		t.Errorf("Roots() = %+v, want one VM root (root) at 0", roots)
	}
	for i := 0; i < 16; i++ {
		want := heap.Flags(0)
		if i < 3 {
			want = heap.FlagSynthetic
		}
		if got := g.Flags(heap.ObjectID(i)); got != want {
			t.Errorf("Flags(%d) = %v, want %v", i, got, want)
		}
	}
	for _, tc := range []struct {
		from heap.ObjectID
		name string
		to   heap.ObjectID
		kind heap.EdgeKind
		idx  bool
	}{
		{0, "[1]", 1, heap.Strong, true},
		{0, "1", 3, heap.Shortcut, false},
		{2, "0 / handle", 3, heap.Weak, false}, // outside the page into it
		{2, "1 / handle", 9, heap.Internal, false},
		{3, "cache", 4, heap.Strong, false},
		{4, "table", 6, heap.Internal, false},
		{6, "[1]", 12, heap.Internal, true}, // hidden
		{9, "held", 4, heap.Weak, false},    // Holder is not in the page
		{10, "[2]", 15, heap.Strong, true},  // element
		{8, "1 / part of key (Key @17) -> value (LeakItem @29) pair in WeakMap (table @27)", 14, heap.Internal, false},
		{13, "1 / part of key (Key @17) -> value (LeakItem @29) pair in WeakMap (table @27)", 14, heap.Weak, false},
		{13, "w", 8, heap.Weak, false},
	} {
		e := edge(t, g, tc.from, tc.name)
		if e.To != tc.to || e.Label.Kind() != tc.kind || e.Label.IsIndex() != tc.idx {
			t.Errorf("edge %d %q = to %d, %v, index %v; want to %d, %v, index %v",
				tc.from, tc.name, e.To, e.Label.Kind(), e.Label.IsIndex(), tc.to, tc.kind, tc.idx)
		}
	}
	for id, want := range map[heap.ObjectID]string{11: "hello"} {
		if got, ok := g.Value(id); !ok || got != want {
			t.Errorf("Value(%d) = %q, %v, want %q", id, got, ok, want)
		}
	}
	// Closures and synthetic nodes carry their names in their types.
	for _, id := range []heap.ObjectID{1, 15} {
		if v, ok := g.Value(id); ok {
			t.Errorf("Value(%d) = %q, want none", id, v)
		}
	}
	d11, ok1 := g.Digest(11)
	d12, ok2 := g.Digest(12)
	if !ok1 || !ok2 || d11 != d12 {
		t.Errorf("digests of equal strings: %x %v, %x %v", d11, ok1, d12, ok2)
	}
	if _, ok := g.Digest(15); ok {
		t.Errorf("closure has a digest")
	}
	if g.Meta().Runtime != "v8" {
		t.Errorf("Meta().Runtime = %q", g.Meta().Runtime)
	}

	// AllEdges keeps V8's kinds; SkipValues drops the values.
	g = mustRead(t, tinySnap().bytes(), Options{AllEdges: true, SkipValues: true})
	if e := edge(t, g, 2, "0 / handle"); e.Label.Kind() != heap.Internal {
		t.Errorf("AllEdges: (Global handles) edge is %v, want internal", e.Label.Kind())
	}
	if e := edge(t, g, 9, "held"); e.Label.Kind() != heap.Strong {
		t.Errorf("AllEdges: held edge is %v, want strong", e.Label.Kind())
	}
	if g.NumValues() != 0 {
		t.Errorf("SkipValues: %d values", g.NumValues())
	}
	if _, ok := g.Digest(11); ok {
		t.Errorf("SkipValues: digest present")
	}
}

// TestLayouts checks that the field layout comes from the meta: without
// detachedness, with fields in another order, with unknown fields.
func TestLayouts(t *testing.T) {
	want := mustRead(t, tinySnap().bytes(), Options{})
	for _, fields := range [][]string{
		{"type", "name", "id", "self_size", "edge_count", "trace_node_id"},
		{"type", "name", "id", "self_size", "edge_count"},
		{"edge_count", "self_size", "extra", "id", "name", "type", "detachedness", "extra2"},
	} {
		s := tinySnap()
		s.nodeFields = fields
		g := mustRead(t, s.bytes(), Options{})
		if g.NumObjects() != want.NumObjects() || g.NumEdges() != want.NumEdges() || g.TotalSize() != want.TotalSize() {
			t.Errorf("fields %q: %d objects %d edges %d bytes, want %d %d %d", fields,
				g.NumObjects(), g.NumEdges(), g.TotalSize(), want.NumObjects(), want.NumEdges(), want.TotalSize())
			continue
		}
		for id := range g.Objects() {
			if g.TypeName(g.Type(id)) != want.TypeName(want.Type(id)) || g.Addr(id) != want.Addr(id) {
				t.Errorf("fields %q: object %d differs", fields, id)
			}
		}
	}
}

func TestStrings(t *testing.T) {
	s := tinySnap()
	long := strings.Repeat("é", 70)
	s.nodes[11].name = "a\"b\\c\n\u00e9\U0001F600 end"
	s.nodes[12].name = long
	s.nodes[4].name = "<div id=x>"
	g := mustRead(t, s.bytes(), Options{})
	if v, _ := g.Value(11); v != s.nodes[11].name {
		t.Errorf("Value(11) = %q, want %q", v, s.nodes[11].name)
	}
	if v, _ := g.Value(12); v != strings.Repeat("é", 64) {
		t.Errorf("Value(12) = %q, want 64 characters", v)
	}
	if got := g.TypeName(g.Type(4)); got != "<div>" {
		t.Errorf("class of <div id=x> = %q, want <div>", got)
	}
	// Lone surrogates become U+FFFD.
	got, err := decodeString([]byte(`x\ud800y\udc00`), -1)
	if err != nil || got != "x\ufffdy\ufffd" {
		t.Errorf("decodeString(lone surrogates) = %q, %v", got, err)
	}
}

func TestMatch(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want bool
	}{
		{`{"snapshot":{"meta":`, true},
		{" \n{ \"snapshot\"", true},
		{"\xef\xbb\xbf{\"snapshot\":", true},
		{`{"nodes":[]}`, false},
		{`{"snap`, false},
		{"JAVA PROFILE 1.0.2\x00", false},
		{"", false},
	} {
		if got := Match([]byte(tc.in)); got != tc.want {
			t.Errorf("Match(%q) = %v, want %v", tc.in, got, tc.want)
		}
	}
}

func TestBadInput(t *testing.T) {
	good := string(tinySnap().bytes())
	replace := func(old, new string) string {
		if !strings.Contains(good, old) {
			t.Fatalf("%q not in the tiny snapshot", old)
		}
		return strings.Replace(good, old, new, 1)
	}
	for _, tc := range []struct {
		name, in, want string
	}{
		{"empty", "", "input ends early"},
		{"not json", "hello", `found 'h', want '{'`},
		{"no meta field", replace(`"self_size",`, `"size",`), `meta.node_fields lacks "self_size"`},
		{"bad node types", replace(`"node_types":[[`, `"node_types":[[1],[`), `meta.node_types[0] is not a list`},
		{"node count", replace(`"node_count":16`, `"node_count":15`), "more nodes than node_count 15"},
		{"node count low", replace(`"node_count":16`, `"node_count":17`), "node_count is 17 but nodes holds 16"},
		{"edge count", replace(`"edge_count":20`, `"edge_count":21`), "edge_count is 21 but the nodes' edge counts add up to 20"},
		{"to_node multiple", replace(`"edges":[1,1,7`, `"edges":[1,1,8`), "to_node 8 is not a multiple of 7"},
		{"to_node range", replace(`"edges":[1,1,7`, `"edges":[1,1,700`), "to_node 700 out of range: 16 nodes"},
		{"node type", replace(`"nodes":[9,`, `"nodes":[99,`), "node type 99 out of range"},
		{"edge type", replace(`"edges":[1,`, `"edges":[9,`), "edge type 9 out of range"},
		{"negative", replace(`"nodes":[9,`, `"nodes":[-9,`), "negative number"},
		{"float", replace(`"nodes":[9,`, `"nodes":[9.5,`), `found '.' in an array of unsigned integers`},
		{"big", replace(`"nodes":[9,`, `"nodes":[99999999999999999999999,`), "does not fit in 64 bits"},
		{"ragged", replace(`"nodes":[9,`, `"nodes":[9,9,`), "array length is not a multiple of 7"},
		{"trailing comma", replace("],\n\"edges\"", ",],\n\"edges\""), `found ']'`},
		{"missing comma", replace(`"nodes":[9,`, `"nodes":[9 `), "missing comma"},
		{"string index", replace(`"strings":["<dummy>",`, `"strings":[`), "out of range"},
		{"order", replace(`"nodes":`, `"nodez":`), `"edges" before "nodes"`},
		{"duplicate", replace(`"trace_tree":[]`, `"nodes":[]`), `"nodes" given twice`},
		{"bad escape", replace(`"hello"`, `"hel\x"`), `bad escape`},
		{"trailing data", good + "{}", "data after the end"},
		{"root index", replace(`"node_count"`, `"root_index":6,"node_count"`), "root_index 6 is not a multiple of 7"},
		{"no strings", replace(`"strings":[`, `"strangs":[`), `no "strings" array`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Read(strings.NewReader(tc.in))
			if err == nil {
				t.Fatalf("Read() succeeded, want error containing %q", tc.want)
			}
			var fe *FormatError
			if !errors.As(err, &fe) {
				t.Errorf("Read() error %v is not a *FormatError", err)
			}
			if !strings.Contains(err.Error(), tc.want) {
				t.Errorf("Read() error = %q, want it to contain %q", err, tc.want)
			}
		})
	}
}

// TestTruncated cuts the tiny snapshot at every byte: each cut is an
// error that wraps io.ErrUnexpectedEOF (or, at a few places, another
// format error), never a panic or a graph.
func TestTruncated(t *testing.T) {
	data := tinySnap().bytes()
	for n := 0; n < len(data)-1; n++ {
		_, err := Read(bytes.NewReader(data[:n]))
		if err == nil {
			t.Fatalf("Read(first %d bytes) succeeded", n)
		}
		var fe *FormatError
		if !errors.As(err, &fe) {
			t.Fatalf("Read(first %d bytes) = %v, not a *FormatError", n, err)
		}
		if !errors.Is(err, io.ErrUnexpectedEOF) {
			t.Fatalf("Read(first %d bytes) = %v, does not wrap io.ErrUnexpectedEOF", n, err)
		}
		if fe.Offset > int64(n) {
			t.Fatalf("Read(first %d bytes): offset %d beyond the input", n, fe.Offset)
		}
	}
}

// oneByteReader returns one byte per Read, to exercise buffer refills in
// the middle of every token.
type oneByteReader struct{ r io.Reader }

func (o oneByteReader) Read(p []byte) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	return o.r.Read(p[:1])
}

func TestSmallReads(t *testing.T) {
	data := tinySnap().bytes()
	want := mustRead(t, data, Options{})
	g, err := Read(oneByteReader{bytes.NewReader(data)})
	if err != nil {
		t.Fatal(err)
	}
	if g.NumObjects() != want.NumObjects() || g.NumEdges() != want.NumEdges() || g.NumValues() != want.NumValues() {
		t.Errorf("byte-at-a-time read differs")
	}
}

func TestSynthetic(t *testing.T) {
	s := synthSnap(10001)
	g := mustRead(t, s.bytes(), Options{})
	var size uint64
	for _, n := range s.nodes {
		size += n.size
	}
	if g.NumObjects() != len(s.nodes) || g.TotalSize() != size {
		t.Errorf("got %d objects %d bytes, want %d %d", g.NumObjects(), g.TotalSize(), len(s.nodes), size)
	}
}

func TestTestdata(t *testing.T) {
	for _, name := range []string{"tiny.heapsnapshot", "tiny-nodetach.heapsnapshot"} {
		t.Run(name, func(t *testing.T) {
			g, err := Open("testdata/" + name)
			if err != nil {
				t.Fatal(err)
			}
			if err := g.Validate(); err != nil {
				t.Fatal(err)
			}
			if n, _ := countType(g, "LeakItem"); n != 1 || g.NumObjects() != 16 {
				t.Errorf("%d objects, %d LeakItems; want 16, 1", g.NumObjects(), n)
			}
		})
	}
}

// TestBigNumbers checks that sizes and ids beyond 32 bits survive.
func TestBigNumbers(t *testing.T) {
	s := tinySnap()
	s.nodes[14].size = 5_000_000_000
	s.nodes[14].id = 1 << 40
	g := mustRead(t, s.bytes(), Options{})
	if g.Size(14) != 5_000_000_000 || g.Addr(14) != 1<<40 {
		t.Errorf("Size, Addr = %d, %d; want 5e9, 2^40", g.Size(14), g.Addr(14))
	}
	if id, ok := g.FindAddr(1 << 40); !ok || id != 14 {
		t.Errorf("FindAddr(2^40) = %d, %v", id, ok)
	}
}
