package hprof

import (
	"bytes"
	"compress/gzip"
	"io"
	"os"
	"path/filepath"
	"testing"
)

// writeGzip writes b as a multi-member gzip stream of members members, as
// HotSpot's -gz option does.
func writeGzip(t testing.TB, w io.Writer, b []byte, members int) {
	t.Helper()
	step := (len(b) + members - 1) / members
	for len(b) > 0 {
		n := min(step, len(b))
		zw, _ := gzip.NewWriterLevel(w, 1)
		zw.Comment = "HPROF BLOCKSIZE=1048576"
		if _, err := zw.Write(b[:n]); err != nil {
			t.Fatal(err)
		}
		if err := zw.Close(); err != nil {
			t.Fatal(err)
		}
		b = b[n:]
	}
}

func TestOpen(t *testing.T) {
	dump := tinyDump(8)
	dir := t.TempDir()
	plain := filepath.Join(dir, "tiny.hprof")
	if err := os.WriteFile(plain, dump, 0o644); err != nil {
		t.Fatal(err)
	}
	var gz bytes.Buffer
	writeGzip(t, &gz, dump, 3)
	zipped := filepath.Join(dir, "tiny.hprof.gz")
	if err := os.WriteFile(zipped, gz.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	cut := filepath.Join(dir, "cut.hprof.gz")
	if err := os.WriteFile(cut, gz.Bytes()[:gz.Len()*2/3], 0o644); err != nil {
		t.Fatal(err)
	}
	want, err := Open(plain)
	if err != nil {
		t.Fatal(err)
	}
	got, err := Open(zipped)
	if err != nil {
		t.Fatal(err)
	}
	if got.NumObjects() != want.NumObjects() || got.NumEdges() != want.NumEdges() {
		t.Errorf("gzip: %d objects, %d edges; want %d, %d", got.NumObjects(), got.NumEdges(), want.NumObjects(), want.NumEdges())
	}
	if g, err := Open(cut); err == nil {
		t.Errorf("Open(cut gzip) = %d objects, no error; want an error", g.NumObjects())
	}
	if _, err := Open(filepath.Join(dir, "missing")); !os.IsNotExist(err) {
		t.Errorf("Open(missing) error = %v, want not-exist", err)
	}
}
