package heapfile_test

import (
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/heapscope/heapscope/analyze"
	"github.com/heapscope/heapscope/heap"
	"github.com/heapscope/heapscope/heapfile"
	"github.com/heapscope/heapscope/heapsnapshot"
	"github.com/heapscope/heapscope/hprof"
	"github.com/heapscope/heapscope/pysnap"
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

// fifo makes a named pipe in a new directory and returns its path.
func fifo(t *testing.T) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "pipe")
	if err := syscall.Mkfifo(p, 0o600); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	return p
}

// within runs fn and fails the test if it has not returned after a
// minute: opening a pipe must never wait for a writer.
func within(t *testing.T, what string, fn func()) {
	t.Helper()
	done := make(chan struct{})
	go func() {
		defer close(done)
		fn()
	}()
	select {
	case <-done:
	case <-time.After(time.Minute):
		t.Fatalf("%s: still waiting after a minute", what)
	}
}

// TestPipeWithoutWriter opens named pipes that no process writes to:
// every opener returns at once, with an error that says what it is.
func TestPipeWithoutWriter(t *testing.T) {
	p := fifo(t)
	for name, open := range map[string]func(string) (*heap.Graph, error){
		"heapfile":     heapfile.Open,
		"hprof":        hprof.Open,
		"pysnap":       pysnap.Open,
		"heapsnapshot": heapsnapshot.Open,
	} {
		var err error
		within(t, name, func() { _, err = open(p) })
		if err == nil || !strings.Contains(err.Error(), "pipe") && !errors.Is(err, io.ErrUnexpectedEOF) {
			t.Errorf("%s.Open(pipe without writer) = %v, want an error", name, err)
		}
	}
	_, err := heapfile.Open(p)
	if err == nil || !strings.Contains(err.Error(), "named pipe") || !strings.HasPrefix(err.Error(), p+": ") {
		t.Errorf("heapfile.Open(pipe without writer) = %v; want an error that names the file and says it is a named pipe", err)
	}
}

// gzipped returns b compressed with gzip.
func gzipped(b []byte) []byte {
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	zw.Write(b)
	zw.Close()
	return buf.Bytes()
}

// TestPipe reads a snapshot of each format through a named pipe that a
// writer holds open and fills, and from standard input: the same graph
// as from the file.
func TestPipe(t *testing.T) {
	hprofBytes, err := os.ReadFile("../hprof/testdata/tiny.hprof")
	if err != nil {
		t.Fatal(err)
	}
	v8Bytes, err := os.ReadFile("../heapsnapshot/testdata/tiny.heapsnapshot")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		data func() []byte
		path string // the same snapshot as a file
	}{
		{"python", nil, "../cmd/heapscope/testdata/before.pysnap"},
		{"hprof", nil, "../hprof/testdata/tiny.hprof"},
		{"hprof gzip", func() []byte { return gzipped(hprofBytes) }, "../hprof/testdata/tiny.hprof"},
		{"v8", nil, "../heapsnapshot/testdata/tiny.heapsnapshot"},
		{"v8 gzip", func() []byte { return gzipped(v8Bytes) }, "../heapsnapshot/testdata/tiny.heapsnapshot"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Setenv("TMPDIR", t.TempDir())
			want, err := heapfile.Open(tc.path)
			if err != nil {
				t.Fatal(err)
			}
			data, err := os.ReadFile(tc.path)
			if err != nil {
				t.Fatal(err)
			}
			if tc.data != nil {
				data = tc.data()
			}
			check := func(how string, g *heap.Graph, err error) {
				t.Helper()
				if err != nil {
					t.Fatalf("%s: %v", how, err)
				}
				if g.NumObjects() != want.NumObjects() || g.NumEdges() != want.NumEdges() {
					t.Errorf("%s: %d objects, %d edges; want %d, %d", how, g.NumObjects(), g.NumEdges(), want.NumObjects(), want.NumEdges())
				}
			}

			// A named pipe: the writer opens it first (read-write, which
			// does not wait), so the reader finds a writer, and closes
			// it once the reader has it open too: a pipe's data goes
			// when no one has it open.
			p := fifo(t)
			w, err := os.OpenFile(p, os.O_RDWR, 0)
			if err != nil {
				t.Fatal(err)
			}
			go func() {
				w.Write(data)
				for opened(p) < 2 {
					time.Sleep(time.Millisecond)
				}
				w.Close()
			}()
			var g *heap.Graph
			within(t, "named pipe", func() { g, err = heapfile.Open(p) })
			check("named pipe", g, err)

			// Standard input, "-".
			r, pw, err := os.Pipe()
			if err != nil {
				t.Fatal(err)
			}
			stdin := os.Stdin
			os.Stdin = r
			defer func() { os.Stdin = stdin; r.Close() }()
			go func() {
				pw.Write(data)
				pw.Close()
			}()
			within(t, "standard input", func() { g, err = heapfile.Open("-") })
			check("standard input", g, err)
			if left, _ := os.ReadDir(os.Getenv("TMPDIR")); len(left) != 0 {
				t.Errorf("temporary files left: %v", left)
			}
		})
	}
}

// opened returns how many files of this process are path.
func opened(path string) int {
	ents, _ := os.ReadDir("/proc/self/fd")
	n := 0
	for _, e := range ents {
		if l, err := os.Readlink("/proc/self/fd/" + e.Name()); err == nil && l == path {
			n++
		}
	}
	return n
}

// TestPipeLimit reads an HPROF dump from a pipe with a limit below its
// size: an error that says so, wrapping ErrTooLarge.
func TestPipeLimit(t *testing.T) {
	data, err := os.ReadFile("../hprof/testdata/tiny.hprof")
	if err != nil {
		t.Fatal(err)
	}
	stdinFrom(t, data)
	_, err = heapfile.Options{MaxInflated: 1000}.Open("-")
	if !errors.Is(err, heapfile.ErrTooLarge) || !strings.HasPrefix(err.Error(), "standard input: ") || !strings.Contains(err.Error(), "1000 bytes") {
		t.Errorf("Open(%d bytes with a limit of 1000) = %v; want ErrTooLarge, naming the input and the limit", len(data), err)
	}
}

// stdinFrom makes os.Stdin, until the test ends, a pipe that gives data.
func stdinFrom(t *testing.T, data []byte) {
	t.Helper()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	go func() {
		w.Write(data)
		w.Close()
	}()
	stdin := os.Stdin
	os.Stdin = r
	t.Cleanup(func() { os.Stdin = stdin; r.Close() })
}

// TestV8GzipLimit reads a gzip-compressed V8 snapshot, from a file and
// from a pipe, with a limit below its text's size: ErrTooLarge, naming
// the file and the limit; with a limit above it, the snapshot.
func TestV8GzipLimit(t *testing.T) {
	data, err := os.ReadFile("../heapsnapshot/testdata/tiny.heapsnapshot")
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(t.TempDir(), "tiny.heapsnapshot.gz")
	if err := os.WriteFile(p, gzipped(data), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := (heapfile.Options{MaxInflated: int64(len(data))}).Open(p); err != nil {
		t.Errorf("Open(%d bytes of text with a limit of as many) = %v; want the snapshot", len(data), err)
	}
	_, err = heapfile.Options{MaxInflated: 1000}.Open(p)
	if !errors.Is(err, heapfile.ErrTooLarge) || !strings.HasPrefix(err.Error(), p+": ") || !strings.Contains(err.Error(), "1000 bytes") {
		t.Errorf("Open(%d bytes of text with a limit of 1000) = %v; want ErrTooLarge, naming the file and the limit", len(data), err)
	}
	stdinFrom(t, gzipped(data))
	_, err = heapfile.Options{MaxInflated: 1000}.Open("-")
	if !errors.Is(err, heapfile.ErrTooLarge) || !strings.HasPrefix(err.Error(), "standard input: ") || !strings.Contains(err.Error(), "1000 bytes") {
		t.Errorf("Open(standard input, %d bytes of text with a limit of 1000) = %v; want ErrTooLarge, naming the input and the limit", len(data), err)
	}
}

// TestNotAFile opens a directory and a device.
func TestNotAFile(t *testing.T) {
	dir := t.TempDir()
	if _, err := heapfile.Open(dir); err == nil || !strings.Contains(err.Error(), "is a directory") {
		t.Errorf("Open(directory) = %v, want an error saying it is a directory", err)
	}
	if _, err := heapfile.Open("/dev/null"); err == nil || !strings.Contains(err.Error(), "nothing to read") {
		t.Errorf("Open(/dev/null) = %v, want an error saying it is empty", err)
	}
}

// TestKilledLeavesNothing kills (SIGKILL) a process while it copies a
// snapshot from its standard input into a temporary file: the file was
// unlinked before the copy began, so nothing is left.
func TestKilledLeavesNothing(t *testing.T) {
	if os.Getenv("HEAPFILE_TEST_SPOOL") == "1" {
		heapfile.Open("-") // reads until killed
		return
	}
	data, err := os.ReadFile("../hprof/testdata/tiny.hprof")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	cmd := exec.Command(os.Args[0], "-test.run=^TestKilledLeavesNothing$")
	cmd.Env = append(os.Environ(), "HEAPFILE_TEST_SPOOL=1", "TMPDIR="+dir)
	w, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	// A dump without its end, then records of unknown tag 0 (zeros):
	// more than the first 4 KiB the format is sniffed from.
	w.Write(data[:len(data)-9])
	w.Write(make([]byte, 64<<10))
	// Wait until the child holds its temporary file open.
	fds := fmt.Sprintf("/proc/%d/fd", cmd.Process.Pid)
	var held string
	within(t, "the child's temporary file", func() {
		for held == "" {
			ents, err := os.ReadDir(fds)
			if err != nil {
				return
			}
			for _, e := range ents {
				if l, err := os.Readlink(filepath.Join(fds, e.Name())); err == nil && strings.HasPrefix(l, dir+"/") {
					held = l
				}
			}
			time.Sleep(10 * time.Millisecond)
		}
	})
	if held == "" {
		t.Fatalf("the child (%s) never opened a temporary file in %s", fds, dir)
	}
	if !strings.HasSuffix(held, " (deleted)") {
		t.Errorf("the child's temporary file %q still has a name", held)
	}
	left, _ := os.ReadDir(dir)
	cmd.Process.Signal(syscall.SIGKILL)
	cmd.Wait()
	w.Close()
	after, _ := os.ReadDir(dir)
	if len(left) != 0 || len(after) != 0 {
		t.Errorf("files in the temporary directory while copying: %v; after SIGKILL: %v", left, after)
	}
}
