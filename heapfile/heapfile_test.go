package heapfile_test

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/heapscope/heapscope/analyze"
	"github.com/heapscope/heapscope/heapfile"
)

// TestOpen opens a small snapshot of each format through the one entry
// point, and a file of no format.
func TestOpen(t *testing.T) {
	for _, tc := range []struct {
		path, runtime string
	}{
		{"../cmd/heapscope/testdata/before.pysnap", "python"},
		{"../hprof/testdata/tiny.hprof", "java"},
		{"../hprof/testdata/tiny4.hprof", "java"},
		{"../heapsnapshot/testdata/tiny.heapsnapshot", "v8"},
	} {
		g, err := heapfile.Open(tc.path)
		if err != nil {
			t.Errorf("Open(%s): %v", tc.path, err)
			continue
		}
		if err := g.Validate(); err != nil {
			t.Errorf("Open(%s): %v", tc.path, err)
		}
		if got := analyze.Describe(g).Runtime; got != tc.runtime {
			t.Errorf("Open(%s): runtime %q, want %q", tc.path, got, tc.runtime)
		}
	}
	junk := filepath.Join(t.TempDir(), "junk")
	os.WriteFile(junk, []byte("this is not a heap snapshot"), 0o644)
	if _, err := heapfile.Open(junk); !errors.Is(err, heapfile.ErrFormat) {
		t.Errorf("Open(junk) = %v, want ErrFormat", err)
	}
	empty := filepath.Join(t.TempDir(), "empty")
	os.WriteFile(empty, nil, 0o644)
	if _, err := heapfile.Open(empty); !errors.Is(err, heapfile.ErrFormat) {
		t.Errorf("Open(empty) = %v, want ErrFormat", err)
	}
}
