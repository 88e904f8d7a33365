// Package input opens the files the snapshot readers read, and copies
// what cannot be read in place into temporary files that leave nothing
// behind.
//
// [Open] never blocks: a named pipe that no process writes to opens at
// once and reads as empty, where a plain open would wait forever for a
// writer. [Spool] copies a stream (a pipe, or a decompressed gzip stream)
// into a temporary file that has no name (Linux's O_TMPFILE; elsewhere
// it is unlinked as soon as it is created), so that its bytes go away
// when the file is closed or the process ends, even by SIGKILL; a limit
// bounds how much it writes.
package input

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"syscall"
)

// Open opens the named file for reading without blocking, and returns it
// with what fstat says of it. For a named pipe with no writer, reads
// return io.EOF at once. A directory is an error.
func Open(path string) (*os.File, fs.FileInfo, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, nil, err
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, nil, err
	}
	if fi.IsDir() {
		f.Close()
		return nil, nil, &fs.PathError{Op: "read", Path: path, Err: errors.New("is a directory")}
	}
	return f, fi, nil
}

// Kind names the kind of a file that is not a regular file, for
// messages: "a named pipe", "a device", "a socket".
func Kind(fi fs.FileInfo) string {
	m := fi.Mode()
	switch {
	case m&fs.ModeNamedPipe != 0:
		return "a named pipe"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeDevice != 0:
		return "a device"
	case m.IsRegular():
		return "a regular file"
	}
	return "not a regular file"
}

// IsStream reports whether fi is a file that is read as a stream: a
// named pipe, a character device (a terminal, /dev/stdin) or a socket.
func IsStream(fi fs.FileInfo) bool {
	m := fi.Mode()
	return m&(fs.ModeNamedPipe|fs.ModeSocket|fs.ModeCharDevice) != 0
}

// NotRegular returns the error of a reader that needs a regular file
// (it reads it more than once) and was given something else.
func NotRegular(path string, fi fs.FileInfo) error {
	return &fs.PathError{Op: "read", Path: path,
		Err: fmt.Errorf("is %s, not a regular file; heapfile.Open copies a pipe into a temporary file first", Kind(fi))}
}

// Limits of Spool.
const (
	// MinLimit is the least default limit: a small compressed file may
	// decompress to this much whatever its size.
	MinLimit = 1 << 30
	// Ratio is how many times its compressed size a stream may grow to
	// by default. HPROF dumps compress 3 to 10 times with gzip; a gzip
	// stream can grow about 1000 times.
	Ratio = 64
)

// DefaultLimit returns the default limit of Spool for a stream that
// decompresses from compressed bytes (0 when not known, as for a pipe):
// Ratio times that, and at least MinLimit.
func DefaultLimit(compressed int64) int64 {
	if compressed > 0 && compressed <= (1<<62)/Ratio {
		return max(MinLimit, compressed*Ratio)
	}
	if compressed > 0 {
		return 1 << 62
	}
	return MinLimit
}

// LimitError is the error of a stream longer than the limit of Spool.
type LimitError struct {
	Limit int64
}

func (e *LimitError) Error() string {
	return fmt.Sprintf("more than the limit of %s", Size(e.Limit))
}

// Is makes errors.Is(err, ErrTooLarge) true for every LimitError.
func (e *LimitError) Is(target error) bool { return target == ErrTooLarge }

// ErrTooLarge matches every *LimitError.
var ErrTooLarge = errors.New("larger than the limit")

// Size formats n bytes as "1 GiB", "64 MiB" or "1234 bytes".
func Size(n int64) string {
	for _, u := range []struct {
		shift uint
		name  string
	}{{40, "TiB"}, {30, "GiB"}, {20, "MiB"}, {10, "KiB"}} {
		if n >= 1<<u.shift && n%(1<<u.shift) == 0 {
			return fmt.Sprintf("%d %s", n>>u.shift, u.name)
		}
		if n >= 1<<u.shift {
			return fmt.Sprintf("%.1f %s", float64(n)/float64(int64(1)<<u.shift), u.name)
		}
	}
	return fmt.Sprintf("%d bytes", n)
}

// Spooled is a stream copied into a temporary file.
type Spooled struct {
	*os.File       // the copy, unnamed; Close frees its bytes
	Size     int64 // bytes copied
	// ReadErr is the error that ended the copy early, if reading the
	// stream failed: the file holds what came before it.
	ReadErr error
}

// Spool copies r into a new temporary file and returns it. The file is
// created in the temporary directory ([os.TempDir]: $TMPDIR, else /tmp),
// mode 0600, without a name where the system allows it (Linux's
// O_TMPFILE), else with a random name that must not exist yet (O_EXCL),
// unlinked before anything is written to it. If r holds more than limit
// bytes, Spool stops there and returns a *[LimitError]. Errors of the
// temporary file are returned as they are; an error reading r ends the
// copy and is returned in Spooled.ReadErr.
func Spool(r io.Reader, limit int64) (*Spooled, error) {
	f, err := createTemp()
	if err != nil {
		return nil, err
	}
	er := &errReader{r: r}
	n, err := io.Copy(f, io.LimitReader(er, limit+1))
	if err == nil && n > limit {
		err = &LimitError{Limit: limit}
	}
	if err != nil {
		f.Close()
		return nil, err
	}
	return &Spooled{File: f, Size: n, ReadErr: er.err}, nil
}

// createTemp creates a temporary file that has no name.
func createTemp() (*os.File, error) {
	dir := os.TempDir()
	if f, ok := createUnnamed(dir); ok {
		return f, nil
	}
	f, err := os.CreateTemp(dir, "heapscope-*.tmp")
	if err != nil {
		return nil, err
	}
	if err := os.Remove(f.Name()); err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}

// errReader keeps the read error of r apart from the write errors of
// io.Copy, and reads io.EOF after it.
type errReader struct {
	r   io.Reader
	err error
}

func (e *errReader) Read(p []byte) (int, error) {
	if e.err != nil {
		return 0, io.EOF
	}
	n, err := e.r.Read(p)
	if err != nil && err != io.EOF {
		e.err = err
		err = io.EOF
	}
	return n, err
}
