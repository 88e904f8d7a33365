package pysnap_test

import (
	"bytes"
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/heapscope/heapscope/heap"
	"github.com/heapscope/heapscope/internal/heaptest"
	"github.com/heapscope/heapscope/pysnap"
)

const sample = `
runtime python
root module mod sys
root stack frame thread MainThread
mod module 72 -> __dict__=d
d dict 232 -> <key>=k ['cache']=cache weak:ref=w ['log']=q
k str 54
cache dict 640 -> [0]=x [1]=y
x tuple 56 -> internal:__class__=t
y tuple 56
w weakref.ReferenceType 80 -> weak:referent=x
t type 1072
frame frame 400 -> <local>_x=x
q collections.deque 624 -> [0]=y
refcount x 3
value k cache
limit q 100000
site x handle@app.py:12 app.py:40
site y app.py:13 app.py:40
site cache app.py:40
`

func encode(t testing.TB, g *heap.Graph, chunk int) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := pysnap.Write(&buf, g, chunk); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func read(p []byte) (*heap.Graph, error) {
	return pysnap.Read(bytes.NewReader(p), int64(len(p)))
}

func TestRoundTrip(t *testing.T) {
	g := heaptest.MustParse(t, sample)
	for _, chunk := range []int{0, 1, 3} {
		got, err := read(encode(t, g, chunk))
		if err != nil {
			t.Fatalf("chunk %d: %v", chunk, err)
		}
		if err := got.Validate(); err != nil {
			t.Fatal(err)
		}
		if err := heaptest.Equal(g, got); err != nil {
			t.Errorf("chunk %d: round trip: %v", chunk, err)
		}
		if len(got.Warnings()) != 0 {
			t.Errorf("chunk %d: warnings %v", chunk, got.Warnings())
		}
		if got.Meta().Runtime != "python" {
			t.Errorf("runtime %q", got.Meta().Runtime)
		}
	}
}

func TestNotASnapshot(t *testing.T) {
	for _, in := range []string{"", "JAVA PROFILE 1.0.2\x00", "{\"snapshot\":", "HSPYSNAQ........"} {
		_, err := read([]byte(in))
		if err == nil {
			t.Errorf("Read(%q) = nil error", in)
		}
	}
	if _, err := read([]byte("JAVA PROFILE 1.0.2\x00....")); !errors.Is(err, pysnap.ErrFormat) {
		t.Errorf("Read(hprof) = %v, want ErrFormat", err)
	}
}

// TestTruncated cuts a snapshot at every length: each must fail with a
// FormatError that wraps io.ErrUnexpectedEOF, never succeed or panic.
func TestTruncated(t *testing.T) {
	p := encode(t, heaptest.MustParse(t, sample), 2)
	for n := 0; n < len(p); n++ {
		_, err := read(p[:n])
		if err == nil {
			t.Fatalf("Read(first %d of %d bytes) succeeded", n, len(p))
		}
		var fe *pysnap.FormatError
		if n >= 8 && (!errors.As(err, &fe) || !errors.Is(err, io.ErrUnexpectedEOF)) {
			t.Fatalf("Read(first %d bytes) = %v, want a FormatError wrapping ErrUnexpectedEOF", n, err)
		}
	}
}

// TestCorrupt flips each byte in turn: the reader must reject the file
// (most often by its checksum) and never panic.
func TestCorrupt(t *testing.T) {
	p := encode(t, heaptest.MustParse(t, sample), 2)
	for i := range p {
		q := bytes.Clone(p)
		q[i] ^= 0x41
		g, err := read(q)
		if err == nil {
			t.Fatalf("flipping byte %d went unnoticed", i)
		}
		if g != nil {
			t.Fatalf("flipping byte %d: got a graph and an error", i)
		}
		if !strings.HasPrefix(err.Error(), "pysnap: ") {
			t.Fatalf("error %q lacks the package prefix", err)
		}
	}
}

func TestErrorNamesOffset(t *testing.T) {
	p := encode(t, heaptest.MustParse(t, sample), 0)
	_, err := read(p[:len(p)-10])
	if err == nil || !strings.Contains(err.Error(), "offset") {
		t.Fatalf("error %v does not name an offset", err)
	}
}
