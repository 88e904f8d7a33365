package hprof

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"errors"
	"io"
	"os"

	"github.com/heapscope/heapscope/heap"
)

// magic is the start of every HPROF file this package reads.
const magic = "JAVA PROFILE 1.0."

// Match reports whether prefix, the first bytes of a file, starts an
// HPROF dump: "JAVA PROFILE 1.0." followed by 1, 2 or 3, or a gzip stream
// (magic 0x1f 0x8b) whose decompressed data starts that way. For gzip,
// Match decompresses prefix and reports false when prefix is too short
// to yield the first 18 bytes of the dump; 4 KiB always suffice for
// HotSpot's -gz dumps (the gzip header carries a short comment).
func Match(prefix []byte) bool {
	if len(prefix) >= 2 && prefix[0] == 0x1f && prefix[1] == 0x8b {
		zr, err := gzip.NewReader(bytes.NewReader(prefix))
		if err != nil {
			return false
		}
		head := make([]byte, len(magic)+1)
		n, _ := io.ReadFull(zr, head)
		return n == len(head) && isMagic(head)
	}
	return len(prefix) > len(magic) && isMagic(prefix)
}

func isMagic(b []byte) bool {
	return bytes.HasPrefix(b, []byte(magic)) && b[len(magic)] >= '1' && b[len(magic)] <= '3'
}

// Open reads the HPROF dump in the named file, plain or gzip-compressed
// (as `jcmd PID GC.heap_dump -gz=N` writes it: one or more gzip members).
// A compressed dump is first decompressed into a temporary file in
// [os.TempDir], which Open removes before it returns; it needs as much
// free space as the dump has bytes. Results and errors are as for
// [Read]; errors of the file system are returned as they are, and a
// damaged gzip stream gives a *[FormatError] whose Record is "gzip"; a
// cut one is read as far as it goes, as Read reads a cut dump.
func Open(path string) (*heap.Graph, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var m [2]byte
	n, err := f.ReadAt(m[:], 0)
	if err != nil && err != io.EOF {
		return nil, err
	}
	if n < 2 || m[0] != 0x1f || m[1] != 0x8b {
		st, err := f.Stat()
		if err != nil {
			return nil, err
		}
		return Read(f, st.Size())
	}
	return openGzip(f)
}

// openGzip decompresses f into a temporary file and reads that.
func openGzip(f *os.File) (*heap.Graph, error) {
	zr, err := gzip.NewReader(bufio.NewReaderSize(f, 1<<20))
	if err != nil {
		return nil, &FormatError{Offset: 0, Record: "gzip", Err: err}
	}
	tmp, err := os.CreateTemp("", "heapscope-*.hprof")
	if err != nil {
		return nil, err
	}
	defer os.Remove(tmp.Name())
	defer tmp.Close()
	size, zerr := io.Copy(tmp, zr)
	if zerr != nil && !errors.Is(zerr, io.ErrUnexpectedEOF) {
		var pe *os.PathError
		if errors.As(zerr, &pe) {
			return nil, zerr // the temporary file, not the input
		}
		return nil, &FormatError{Offset: size, Record: "gzip", Err: zerr}
	}
	g, err := Read(tmp, size)
	if err == nil && zerr != nil {
		// The stream is cut, but at the end of a record: the graph is
		// sound, and incomplete as Read's contract says.
		return g, &FormatError{Offset: size, Record: "gzip", Err: zerr}
	}
	return g, err
}
