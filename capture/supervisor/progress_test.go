package supervisor

import (
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// syncBuffer is what a terminal would show, safe to read while written.
type syncBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// waitFor polls until the output contains want.
func waitFor(t *testing.T, out *syncBuffer, want string) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for !strings.Contains(out.String(), want) {
		if time.Now().After(deadline) {
			t.Fatalf("no %q in %q", want, out.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestProgress: after the snapshot signal, a wait of over a second is
// shown; a temporary snapshot file being written is shown with its
// size; once renamed, what was written.
func TestProgress(t *testing.T) {
	dir := t.TempDir()
	out := &syncBuffer{}
	p := startProgress(dir, out, 20*time.Millisecond)
	defer p.stop()
	p.asked()
	waitFor(t, out, "waiting 1s for the program to take the snapshot")
	// The Node agent's temporary name.
	tmp := filepath.Join(dir, ".0001-42-signal.heapsnapshot.tmp")
	if err := os.WriteFile(tmp, make([]byte, 3<<20), 0o600); err != nil {
		t.Fatal(err)
	}
	waitFor(t, out, "the program is taking 0001-42-signal.heapsnapshot: 3.0 MiB written in ")
	if err := os.Rename(tmp, filepath.Join(dir, "0001-42-signal.heapsnapshot")); err != nil {
		t.Fatal(err)
	}
	waitFor(t, out, "heapscope: wrote 0001-42-signal.heapsnapshot (3.0 MiB in ")
	// The Python agent's.
	tmp = filepath.Join(dir, ".0002-42-signal.pysnap.42.0.tmp")
	if err := os.WriteFile(tmp, make([]byte, 1<<20), 0o600); err != nil {
		t.Fatal(err)
	}
	waitFor(t, out, "taking 0002-42-signal.pysnap: 1.0 MiB")
	if err := os.Remove(tmp); err != nil { // a failed snapshot: nothing written
		t.Fatal(err)
	}
	time.Sleep(200 * time.Millisecond)
	if strings.Contains(out.String(), "wrote 0002") {
		t.Errorf("a snapshot whose temporary file went without a file is said to be written: %q", out.String())
	}
}

func TestFinalName(t *testing.T) {
	for tmp, want := range map[string]string{
		".0001-42-signal.heapsnapshot.tmp": "0001-42-signal.heapsnapshot",
		".0002-42-exit.pysnap.42.3.tmp":    "0002-42-exit.pysnap",
		".something.tmp":                   "something",
	} {
		if got := finalName(tmp); got != want {
			t.Errorf("finalName(%q) = %q, want %q", tmp, got, want)
		}
	}
}

// TestProgressNotTerminal: nothing is shown on a pipe.
func TestProgressNotTerminal(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	defer w.Close()
	if p := newProgress(t.TempDir(), w); p != nil {
		p.stop()
		t.Error("progress on a pipe")
	}
}
