package hprof

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"
)

// FuzzRead checks that Read never panics and that it returns either an
// error or a valid graph, and that its errors are *FormatErrors. Inputs
// that start like gzip go through Options.Read, with a small limit on
// their decompressed size. The hostile dumps of hostile_test.go, small,
// are seeds.
func FuzzRead(f *testing.F) {
	f.Setenv("TMPDIR", f.TempDir())
	f.Add(chainDump(3, 40, 20, true))
	f.Add(chainDump(40, 1, 10, false))
	f.Add(rootsDump(3000, 40, 300))
	f.Add(substringDump(500, 20))
	cut := tinyDump(8)
	f.Add(cut[:len(cut)-recordHeaderBytes]) // no HEAP_DUMP_END
	f.Add(bomb(f, 1))
	f.Add(tinyDump(8))
	f.Add(tinyDump(4))
	w := newDumpWriter("JAVA PROFILE 1.0.1", 8)
	writeJavaBase(w)
	w.instance(0x2000, clsObject, nil)
	w.flush(tagHeapDump)
	f.Add(w.bytes())
	w = newDumpWriter("JAVA PROFILE 1.0.3", 4)
	writeJavaBase(w)
	w.seg.Write(w.data().u1(subHeapDumpInfo).u4('A').ref(0).bytes())
	w.root(subRootInterned, clsObject)
	w.root(subRootJNIMonitor, clsObject)
	f.Add(w.bytes())
	files, _ := filepath.Glob("testdata/*.hprof")
	for _, name := range files {
		if b, err := os.ReadFile(name); err == nil {
			f.Add(b)
		}
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		g, err := Options{MaxInflated: 1 << 20}.Read(bytes.NewReader(b), int64(len(b)))
		if err != nil {
			var fe *FormatError
			if !errors.As(err, &fe) {
				t.Fatalf("error %v is not a *FormatError", err)
			}
			if g != nil && !errors.Is(err, io.ErrUnexpectedEOF) {
				t.Fatalf("graph with error %v", err)
			}
		}
		if g != nil {
			if verr := g.Validate(); verr != nil {
				t.Fatalf("Validate() = %v", verr)
			}
		}
		// Without edges: the same error and objects, a sound graph.
		s, serr := Options{MaxInflated: 1 << 20, SkipEdges: true}.Read(bytes.NewReader(b), int64(len(b)))
		if (err == nil) != (serr == nil) || (err != nil && err.Error() != serr.Error()) {
			t.Fatalf("error %v with SkipEdges, %v whole", serr, err)
		}
		if (g == nil) != (s == nil) {
			t.Fatalf("graph %v with SkipEdges, %v whole", s != nil, g != nil)
		}
		if s != nil {
			if verr := s.Validate(); verr != nil {
				t.Fatalf("Validate() with SkipEdges = %v", verr)
			}
			if s.NumObjects() != g.NumObjects() {
				t.Fatalf("%d objects with SkipEdges, %d whole", s.NumObjects(), g.NumObjects())
			}
		}
	})
}
