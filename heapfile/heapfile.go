// Package heapfile opens a heap snapshot of any format heapscope reads.
// It sniffs the first bytes and hands the file to the reader whose Match
// accepts them; the formats are tried in the order of one explicit table.
//
// Besides regular files it reads streams: a named pipe, a character
// device such as /dev/stdin, and standard input, named "-". Opening never
// waits for a writer: a named pipe that no process writes to reads as
// empty, which is an error. V8 snapshots are read from the stream as it
// comes; Python snapshots and HPROF dumps, which are read more than
// once, are first copied into a temporary file without a name (see
// package input), up to [Options].MaxInflated bytes.
package heapfile

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strings"

	"github.com/heapscope/heapscope/heap"
	"github.com/heapscope/heapscope/heapsnapshot"
	"github.com/heapscope/heapscope/hprof"
	"github.com/heapscope/heapscope/internal/input"
	"github.com/heapscope/heapscope/pysnap"
)

// ErrFormat means no reader recognizes the file.
var ErrFormat = errors.New("not a heap snapshot heapscope can read (Python .pysnap, HPROF, V8 .heapsnapshot)")

// ErrTooLarge is wrapped by the error for a snapshot that needs a
// temporary file larger than [Options].MaxInflated.
var ErrTooLarge = input.ErrTooLarge

// Options tunes reading. The zero value is the default.
type Options struct {
	// MaxInflated bounds what reading one snapshot may write to a
	// temporary file: a gzip-compressed HPROF dump decompressed, or a
	// Python or HPROF snapshot that comes through a pipe. 0 means the
	// default: 64 times the compressed size of a gzip dump, and at least
	// 1 GiB (for a pipe, 1 GiB). It also bounds the text of a
	// gzip-compressed V8 snapshot, which is read as it streams
	// (heapsnapshot.Options.MaxInflated).
	MaxInflated int64
	// Dump is the heap dump to read of an HPROF file that holds several
	// (hprof.Options.Dump); 0 reads the last. Other formats hold one
	// snapshot: a Dump above 1 is an error for them.
	Dump int
	// SkipEdges leaves the references out, but for the few that names
	// need (heap.Graph.EdgesSkipped), where the format allows: enough
	// for a summary or a diff, in less time and memory.
	SkipEdges bool
}

type format struct {
	name  string
	match func(prefix []byte) bool
	// read reads a regular file of size bytes.
	read func(f *os.File, size int64, o Options) (*heap.Graph, error)
	// stream reads a stream that may be read once.
	stream func(r io.Reader, o Options) (*heap.Graph, error)
}

// formats is every format heapscope reads, in the order they are tried.
var formats = []format{
	{"python", pysnap.Match,
		func(f *os.File, size int64, o Options) (*heap.Graph, error) {
			return pysnap.Options{SkipEdges: o.SkipEdges}.Read(f, size)
		},
		func(r io.Reader, o Options) (*heap.Graph, error) {
			return spooled(r, o, func(f *os.File, size int64) (*heap.Graph, error) {
				return pysnap.Options{SkipEdges: o.SkipEdges}.Read(f, size)
			})
		}},
	{"hprof", hprof.Match,
		func(f *os.File, size int64, o Options) (*heap.Graph, error) {
			return hprof.Options{MaxInflated: o.MaxInflated, Dump: o.Dump, SkipEdges: o.SkipEdges}.Read(f, size)
		},
		func(r io.Reader, o Options) (*heap.Graph, error) {
			return spooled(r, o, func(f *os.File, size int64) (*heap.Graph, error) {
				return hprof.Options{MaxInflated: o.MaxInflated, Dump: o.Dump, SkipEdges: o.SkipEdges}.Read(f, size)
			})
		}},
	{"v8", heapsnapshot.Match,
		func(f *os.File, _ int64, o Options) (*heap.Graph, error) {
			return heapsnapshot.Options{MaxInflated: o.MaxInflated, SkipEdges: o.SkipEdges}.Read(f)
		},
		func(r io.Reader, o Options) (*heap.Graph, error) {
			return heapsnapshot.Options{MaxInflated: o.MaxInflated, SkipEdges: o.SkipEdges}.Read(r)
		}},
}

// spooled copies stream r into a temporary file and reads that.
func spooled(r io.Reader, o Options, read func(*os.File, int64) (*heap.Graph, error)) (*heap.Graph, error) {
	limit := o.MaxInflated
	if limit <= 0 {
		limit = input.DefaultLimit(0)
	}
	tmp, err := input.Spool(r, limit)
	if err != nil {
		if errors.Is(err, input.ErrTooLarge) {
			return nil, fmt.Errorf("copying the stream into a temporary file: %w", err)
		}
		return nil, err
	}
	defer tmp.Close()
	if tmp.ReadErr != nil {
		return nil, fmt.Errorf("reading at offset %d: %w", tmp.Size, tmp.ReadErr)
	}
	return read(tmp.File, tmp.Size)
}

// prefixLen is how many bytes of a file the Match functions see.
const prefixLen = 4096

// Open reads the snapshot in the named file with the default options.
func Open(path string) (*heap.Graph, error) { return Options{}.Open(path) }

// Open reads the snapshot in the named file, whatever its format; "-"
// is standard input. Errors start with the path.
func (o Options) Open(path string) (*heap.Graph, error) {
	g, err := o.open(path)
	if err != nil {
		var pe *fs.PathError
		if errors.As(err, &pe) && pe.Path == path {
			return nil, err // already says which file
		}
		name := path
		if path == "-" {
			name = "standard input"
		}
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return g, nil
}

func (o Options) open(path string) (*heap.Graph, error) {
	var f *os.File
	var fi fs.FileInfo
	var err error
	if path == "-" {
		f = os.Stdin
		if fi, err = f.Stat(); err != nil {
			return nil, err
		}
		if fi.Mode()&fs.ModeCharDevice != 0 && stdinIsTerminal() {
			return nil, errors.New("is a terminal: pipe a snapshot into heapscope, or name its file")
		}
	} else {
		if f, fi, err = input.Open(path); err != nil {
			return nil, err
		}
		defer f.Close()
	}
	if fi.Mode().IsRegular() {
		prefix := make([]byte, min(prefixLen, max(fi.Size(), 0)))
		n, err := f.ReadAt(prefix, 0)
		if err != nil && err != io.EOF {
			return nil, err
		}
		fm, ok := match(prefix[:n])
		if !ok {
			return nil, ErrFormat
		}
		if err := o.oneDump(fm); err != nil {
			return nil, err
		}
		return fm.read(f, fi.Size(), o)
	}
	if !input.IsStream(fi) {
		return nil, fmt.Errorf("is %s: heapscope reads regular files, pipes and standard input", input.Kind(fi))
	}
	prefix := make([]byte, prefixLen)
	n, err := io.ReadFull(f, prefix)
	if err != nil && err != io.ErrUnexpectedEOF && err != io.EOF {
		return nil, err
	}
	if n == 0 {
		return nil, fmt.Errorf("is %s that gave nothing to read: no process writes to it, or its writer closed it at once", input.Kind(fi))
	}
	fm, ok := match(prefix[:n])
	if !ok {
		return nil, ErrFormat
	}
	if err := o.oneDump(fm); err != nil {
		return nil, err
	}
	return fm.stream(io.MultiReader(bytes.NewReader(prefix[:n]), f), o)
}

// oneDump fails for a dump number above 1 in a format that holds one
// snapshot per file.
func (o Options) oneDump(fm format) error {
	if o.Dump > 1 && fm.name != "hprof" {
		return fmt.Errorf("%w: a %s snapshot holds one heap; only HPROF files hold several dumps", hprof.ErrNoSuchDump, fm.name)
	}
	return nil
}

// stdinIsTerminal reports whether standard input, a character device,
// is a terminal (a person would have to type the snapshot), as far as
// Linux's /proc tells.
func stdinIsTerminal() bool {
	name, err := os.Readlink("/proc/self/fd/0")
	return err == nil && (strings.HasPrefix(name, "/dev/pts/") || strings.HasPrefix(name, "/dev/tty"))
}

func match(prefix []byte) (format, bool) {
	for _, fm := range formats {
		if fm.match(prefix) {
			return fm, true
		}
	}
	return format{}, false
}

// Format returns the name of the format of a file that starts with
// prefix ("python", "hprof", "v8"), or "" when none matches.
func Format(prefix []byte) string {
	fm, _ := match(prefix)
	return fm.name
}
