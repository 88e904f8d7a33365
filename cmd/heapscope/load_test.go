package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"
)

// lockedBuffer is a terminal's screen, safe to read while written.
type lockedBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// TestShowProgress: work that outlasts the wait is shown with its
// seconds, redrawn in place, and the line is cleared when it ends; work
// that ends first shows nothing.
func TestShowProgress(t *testing.T) {
	var out lockedBuffer
	err := showProgress(&out, "reading a.hprof (1 of 3, 1.0 GiB)", time.Millisecond, func() error {
		// Done once the line has been redrawn at least once.
		for deadline := time.Now().Add(30 * time.Second); strings.Count(out.String(), "reading a.hprof") < 2; {
			if time.Now().After(deadline) {
				t.Fatalf("no progress redrawn: %q", out.String())
			}
			time.Sleep(10 * time.Millisecond)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	s := out.String()
	if !regexp.MustCompile(`^\r\033\[Kreading a\.hprof \(1 of 3, 1\.0 GiB\)\.\.\. 0s(\r\033\[Kreading a\.hprof \(1 of 3, 1\.0 GiB\)\.\.\. [1-9][0-9]*s)+\r\033\[K$`).MatchString(s) {
		t.Errorf("progress %q: want the line, its seconds, redrawn, then cleared", s)
	}
	out = lockedBuffer{}
	if err := showProgress(&out, "reading", time.Hour, func() error { return nil }); err != nil || out.String() != "" {
		t.Errorf("quick work: %v, shown %q", err, out.String())
	}
}

// TestReadingText: the progress of a read names which of the snapshots
// it is and the file's size.
func TestReadingText(t *testing.T) {
	p := filepath.Join(t.TempDir(), "b.heapsnapshot")
	if err := os.WriteFile(p, make([]byte, 3<<20), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		path string
		i, n int
		want string
	}{
		{p, 2, 3, "reading " + p + " (2 of 3, 3.0 MiB)"},
		{p, 0, 0, "reading " + p + " (3.0 MiB)"},
		{p, 1, 1, "reading " + p + " (3.0 MiB)"},
		{"-", 1, 2, "reading - (1 of 2)"},
		{"-", 0, 0, "reading -"},
	} {
		if got := readingText(c.path, c.i, c.n); got != c.want {
			t.Errorf("readingText(%q, %d, %d) = %q, want %q", c.path, c.i, c.n, got, c.want)
		}
	}
}
