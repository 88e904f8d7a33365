package hprof

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"io"

	"github.com/heapscope/heapscope/heap"
	"github.com/heapscope/heapscope/internal/input"
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

// Options tunes [Options.Open] and [Options.Read]. The zero value is the
// default.
type Options struct {
	// MaxInflated bounds the decompressed size of a gzip-compressed
	// dump, which is decompressed into a temporary file; 0 means the
	// default of input.DefaultLimit: 64 times the compressed size, and
	// at least 1 GiB.
	MaxInflated int64
	// Dump is the heap dump to read, from 1, of a file that holds
	// several (the old hprof agent wrote one per dump request into one
	// file); 0 reads the last, the latest state. A number the file does
	// not have is an error that wraps [ErrNoSuchDump].
	Dump int
	// SkipEdges leaves the references out (heap.Graph.EdgesSkipped) but
	// for those of thread objects, whose names come from their name
	// field, and the class objects' "<super>", which tells the class
	// hierarchy: enough for a summary or a diff, in less time and memory.
	// Every reference is still looked up, so that the warnings about
	// references to no object are those of a whole read.
	SkipEdges bool
}

// Open reads the HPROF dump in the named file with the default options.
func Open(path string) (*heap.Graph, error) { return Options{}.Open(path) }

// Open reads the HPROF dump in the named file, plain or gzip-compressed
// (as `jcmd PID GC.heap_dump -gz=N` writes it: one or more gzip
// members). The file must be a regular file: Open refuses a named pipe
// (without waiting for a writer), which heapfile.Open reads. Results and
// errors are as for [Options.Read]; errors of the file system are
// returned as they are.
func (o Options) Open(path string) (*heap.Graph, error) {
	f, fi, err := input.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if !fi.Mode().IsRegular() {
		return nil, input.NotRegular(path, fi)
	}
	return o.Read(f, fi.Size())
}

// Read reads an HPROF dump of size bytes from r, plain or
// gzip-compressed. A compressed dump is first decompressed into a
// temporary file that has no name (see package input: $TMPDIR, mode
// 0600, unlinked at once, so nothing is left behind even if the process
// is killed); it needs as much free space as the dump has bytes, and
// more than MaxInflated bytes is a *[FormatError] whose Record is "gzip"
// and whose Err wraps *input.LimitError. A damaged gzip stream also
// gives a *FormatError whose Record is "gzip"; a cut one is read as far
// as it goes, as [Read] reads a cut dump. Other results and errors are
// as for [Read].
func (o Options) Read(r io.ReaderAt, size int64) (*heap.Graph, error) {
	var m [2]byte
	n, err := r.ReadAt(m[:], 0)
	if err != nil && err != io.EOF {
		return nil, err
	}
	if n < 2 || m[0] != 0x1f || m[1] != 0x8b {
		return readDump(r, size, o)
	}
	limit := o.MaxInflated
	if limit <= 0 {
		limit = input.DefaultLimit(size)
	}
	return readGzip(io.NewSectionReader(r, 0, size), limit, o)
}

// readGzip decompresses r into a temporary file and reads that.
func readGzip(r io.Reader, limit int64, o Options) (*heap.Graph, error) {
	zr, err := gzip.NewReader(bufio.NewReaderSize(r, 1<<20))
	if err != nil {
		return nil, &FormatError{Offset: 0, Record: "gzip", Err: err}
	}
	tmp, err := input.Spool(zr, limit)
	if err != nil {
		var le *input.LimitError
		if errors.As(err, &le) {
			return nil, &FormatError{Offset: limit, Record: "gzip", Err: fmt.Errorf("decompresses to %w", err)}
		}
		return nil, err // the temporary file, not the input
	}
	defer tmp.Close()
	size, zerr := tmp.Size, tmp.ReadErr
	if zerr != nil && !errors.Is(zerr, io.ErrUnexpectedEOF) {
		return nil, &FormatError{Offset: size, Record: "gzip", Err: zerr}
	}
	g, err := readDump(tmp, size, o)
	if err == nil && zerr != nil {
		// The stream is cut, but at the end of a record: the graph is
		// sound, and incomplete as Read's contract says.
		return g, &FormatError{Offset: size, Record: "gzip", Err: zerr}
	}
	return g, err
}
