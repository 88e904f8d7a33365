package hprof

import (
	"bytes"
	"errors"
	"flag"
	"io"
	"os"
	"testing"
)

var update = flag.Bool("update", false, "rewrite testdata/*.hprof from the test writer")

// testdataFiles are the dumps under testdata, as the test writer makes
// them; they seed FuzzRead and are read by tools outside this package.
func testdataFiles() map[string][]byte {
	tiny := tinyDump(8)
	w := newDumpWriter("JAVA PROFILE 1.0.2", 8)
	writeJavaBase(w)
	w.objArray(0x2000, clsObjArr, 0xdead0, 0x2000)
	w.root(subRootJNIGlobal, 0x2000)
	w.root(subRootJNIGlobal, 0xbad0)
	return map[string][]byte{
		"testdata/tiny.hprof":      tiny,
		"testdata/tiny4.hprof":     tinyDump(4),
		"testdata/truncated.hprof": tiny[:len(tiny)-20],
		"testdata/dangling.hprof":  w.bytes(),
	}
}

func TestTestdata(t *testing.T) {
	for name, want := range testdataFiles() {
		if *update {
			if err := os.WriteFile(name, want, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		got, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%s differs from the test writer's output; run go test -update", name)
		}
		g, err := Open(name)
		switch name {
		case "testdata/truncated.hprof":
			if !errors.Is(err, io.ErrUnexpectedEOF) || g == nil {
				t.Errorf("Open(%s) = %v, %v; want a partial graph and io.ErrUnexpectedEOF", name, g, err)
			}
		case "testdata/dangling.hprof":
			if err != nil || len(g.Warnings()) != 2 {
				t.Errorf("Open(%s): %v, warnings %v; want 2 warnings", name, err, g.Warnings())
			}
		default:
			if err != nil {
				t.Errorf("Open(%s): %v", name, err)
			}
		}
	}
}
