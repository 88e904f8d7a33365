// Package heapfile opens a heap snapshot of any format heapscope reads.
// It sniffs the first bytes and hands the file to the reader whose Match
// accepts them; the formats are tried in the order of one explicit table.
package heapfile

import (
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/heapscope/heapscope/heap"
	"github.com/heapscope/heapscope/heapsnapshot"
	"github.com/heapscope/heapscope/hprof"
	"github.com/heapscope/heapscope/pysnap"
)

// ErrFormat means no reader recognizes the file.
var ErrFormat = errors.New("not a heap snapshot heapscope can read (Python .pysnap, HPROF, V8 .heapsnapshot)")

type format struct {
	name  string
	match func(prefix []byte) bool
	open  func(path string) (*heap.Graph, error)
}

// formats is every format heapscope reads, in the order they are tried.
var formats = []format{
	{"python", pysnap.Match, pysnap.Open},
	{"hprof", hprof.Match, hprof.Open},
	{"v8", heapsnapshot.Match, heapsnapshot.Open},
}

// prefixLen is how many bytes of a file the Match functions see.
const prefixLen = 4096

// Open reads the snapshot in the named file, whatever its format.
func Open(path string) (*heap.Graph, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	prefix := make([]byte, prefixLen)
	n, err := io.ReadFull(f, prefix)
	f.Close()
	if err != nil && err != io.ErrUnexpectedEOF && err != io.EOF {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	prefix = prefix[:n]
	for _, fm := range formats {
		if fm.match(prefix) {
			g, err := fm.open(path)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", path, err)
			}
			return g, nil
		}
	}
	return nil, fmt.Errorf("%s: %w", path, ErrFormat)
}

// Format returns the name of the format of a file that starts with
// prefix ("python", "hprof", "v8"), or "" when none matches.
func Format(prefix []byte) string {
	for _, fm := range formats {
		if fm.match(prefix) {
			return fm.name
		}
	}
	return ""
}
