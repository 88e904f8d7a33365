package heapsnapshot

import (
	"bytes"
	"compress/gzip"
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"
)

// FuzzRead checks that Read never panics, that a graph it returns is
// valid, and that its errors are FormatErrors (for plain input, at an
// offset within it).
func FuzzRead(f *testing.F) {
	f.Add(tinySnap().bytes())
	f.Add(synthSnap(40).bytes())
	s := tinySnap()
	s.nodeFields = []string{"type", "name", "id", "self_size", "edge_count"}
	f.Add(s.bytes())
	f.Add(edgeNameBomb())
	f.Add((&tsnap{}).bytes())
	s = tinySnap()
	s.nodes[10].edges = append(s.nodes[10].edges, tedge{typ: "element", index: 1 << 33, to: 14})
	s.nodes[4].dom = domDetached
	f.Add(s.bytes())
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write(tinySnap().bytes())
	zw.Close()
	f.Add(gz.Bytes())
	f.Add(tracedSnap().bytes())
	files, _ := filepath.Glob("testdata/*.heapsnapshot")
	for _, name := range files {
		if data, err := os.ReadFile(name); err == nil {
			f.Add(data)
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, opt := range []Options{{}, {SkipValues: true, AllEdges: true}} {
			g, err := opt.Read(bytes.NewReader(data))
			if err != nil {
				var fe *FormatError
				if !errors.As(err, &fe) {
					t.Fatalf("error %v is not a *FormatError", err)
				}
				if isGzip(data) {
					continue // offsets are in the decompressed text
				}
				if fe.Offset < 0 || fe.Offset > int64(len(data)) {
					t.Fatalf("error %v: offset out of the input", err)
				}
				if errors.Is(err, io.ErrUnexpectedEOF) && Match(data) && len(data) > 0 && fe.Offset != int64(len(bytes.TrimRight(data, " \t\r\n"))) && fe.Offset != int64(len(data)) {
					t.Fatalf("truncation error %v not at the end (%d bytes)", err, len(data))
				}
				continue
			}
			if err := g.Validate(); err != nil {
				t.Fatalf("Validate() = %v", err)
			}
		}
	})
}
