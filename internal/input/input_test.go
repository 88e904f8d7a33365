package input

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"testing/iotest"
)

// TestSpool copies streams into temporary files: the bytes come back,
// the directory stays empty, a stream over the limit is an error and a
// failing stream keeps what came before its error.
func TestSpool(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("TMPDIR", dir)
	data := bytes.Repeat([]byte("heapscope"), 1000)

	s, err := Spool(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		t.Fatal(err)
	}
	if left, _ := os.ReadDir(dir); len(left) != 0 {
		t.Errorf("the temporary file has a name: %v", left)
	}
	got := make([]byte, s.Size)
	if _, err := s.ReadAt(got, 0); err != nil || !bytes.Equal(got, data) || s.ReadErr != nil {
		t.Errorf("read back %d bytes (%v, %v), want the %d written", len(got), err, s.ReadErr, len(data))
	}
	if fi, err := s.Stat(); err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("mode %v (%v), want 0600", fi.Mode().Perm(), err)
	}
	s.Close()

	_, err = Spool(bytes.NewReader(data), int64(len(data))-1)
	var le *LimitError
	if !errors.As(err, &le) || !errors.Is(err, ErrTooLarge) || le.Limit != int64(len(data))-1 {
		t.Errorf("Spool over the limit = %v, want a *LimitError", err)
	}

	boom := errors.New("boom")
	s, err = Spool(io.MultiReader(bytes.NewReader(data[:100]), iotest.ErrReader(boom)), 1<<20)
	if err != nil || s.Size != 100 || !errors.Is(s.ReadErr, boom) {
		t.Errorf("Spool(failing stream) = %v, %d bytes, ReadErr %v; want 100 bytes and the stream's error", err, s.Size, s.ReadErr)
	}
	s.Close()
	if left, _ := os.ReadDir(dir); len(left) != 0 {
		t.Errorf("files left: %v", left)
	}
}

func TestDefaultLimit(t *testing.T) {
	for _, tc := range []struct{ in, want int64 }{
		{0, 1 << 30},            // a pipe
		{7 << 20, 1 << 30},      // a 7 MB gzip bomb: 1 GiB, not the 3.4 GB it holds
		{100 << 20, 6400 << 20}, // 100 MB compressed: 6.25 GiB
		{1 << 60, 1 << 62},      // no overflow
	} {
		if got := DefaultLimit(tc.in); got != tc.want {
			t.Errorf("DefaultLimit(%d) = %d, want %d", tc.in, got, tc.want)
		}
	}
}

func TestSize(t *testing.T) {
	for in, want := range map[int64]string{1000: "1000 bytes", 1 << 30: "1 GiB", 3 << 19: "1.5 MiB", 64 << 20: "64 MiB"} {
		if got := Size(in); got != want {
			t.Errorf("Size(%d) = %q, want %q", in, got, want)
		}
	}
}

// TestOpen opens a named pipe without a writer (at once), a directory
// (an error) and a regular file.
func TestOpen(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "pipe")
	if err := syscall.Mkfifo(p, 0o600); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	f, fi, err := Open(p)
	if err != nil {
		t.Fatal(err)
	}
	if !IsStream(fi) || Kind(fi) != "a named pipe" {
		t.Errorf("pipe: IsStream %v, Kind %q", IsStream(fi), Kind(fi))
	}
	if n, err := f.Read(make([]byte, 10)); n != 0 || err != io.EOF {
		t.Errorf("read of a pipe without writer = %d, %v; want 0, EOF", n, err)
	}
	f.Close()
	if _, _, err := Open(dir); err == nil || !strings.Contains(err.Error(), "is a directory") {
		t.Errorf("Open(directory) = %v", err)
	}
	file := filepath.Join(dir, "file")
	os.WriteFile(file, []byte("x"), 0o600)
	f, fi, err = Open(file)
	if err != nil || IsStream(fi) || !fi.Mode().IsRegular() {
		t.Errorf("Open(file) = %v, %v", fi, err)
	}
	f.Close()
	if err := NotRegular(p, fi); err == nil {
		t.Error("NotRegular = nil")
	}
}
