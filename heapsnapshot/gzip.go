package heapsnapshot

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"io"

	"github.com/heapscope/heapscope/heap"
	"github.com/heapscope/heapscope/internal/input"
)

// isGzip reports whether b starts with the gzip magic.
func isGzip(b []byte) bool { return len(b) >= 2 && b[0] == 0x1f && b[1] == 0x8b }

// maxDecompressed returns the bound on the decompressed size of a gzip
// stream of csize bytes (-1 if unknown).
func (o Options) maxDecompressed(csize int64) int64 {
	switch {
	case o.MaxInflated > 0:
		return o.MaxInflated
	case csize < 0:
		return 64 << 30
	}
	return max(64*csize, 1<<30)
}

// readGzip reads a gzip-compressed snapshot of csize bytes (-1 if
// unknown) from r, streaming as Read does. Offsets in errors are offsets
// in the decompressed text.
func (o Options) readGzip(r io.Reader, csize int64) (*heap.Graph, error) {
	zr, err := gzip.NewReader(r)
	if err != nil {
		return nil, &FormatError{Offset: 0, Section: "gzip", Err: err}
	}
	limit := o.maxDecompressed(csize)
	hint := int64(-1)
	if csize >= 0 {
		hint = min(10*csize, limit) // the usual ratio, to preallocate
	}
	return o.read(&capReader{r: zr, left: limit, limit: limit}, -1, hint)
}

// capReader reads at most limit bytes of decompressed text from r, then
// fails with an error that wraps an *input.LimitError; the errors of the decompressor (a damaged or cut stream) become
// FormatErrors at the offset in the text where they happen.
type capReader struct {
	r           io.Reader
	left, limit int64
}

func (c *capReader) Read(p []byte) (int, error) {
	if c.left <= 0 {
		return 0, &FormatError{Offset: c.limit, Section: "gzip",
			Err: fmt.Errorf("decompresses to %w (Options.MaxInflated)", &input.LimitError{Limit: c.limit})}
	}
	if int64(len(p)) > c.left {
		p = p[:c.left]
	}
	n, err := c.r.Read(p)
	c.left -= int64(n)
	if err != nil && err != io.EOF {
		err = &FormatError{Offset: c.limit - c.left, Section: "gzip", Err: err}
	}
	return n, err
}

// matchGzip reports whether prefix is the start of a gzip stream whose
// decompressed text starts a snapshot.
func matchGzip(prefix []byte) bool {
	zr, err := gzip.NewReader(bytes.NewReader(prefix))
	if err != nil {
		return false
	}
	head := make([]byte, 64)
	n, _ := io.ReadFull(zr, head)
	return matchPlain(head[:n])
}
