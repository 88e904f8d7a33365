package supervisor

import (
	"io"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// overlapWriter records whether two writes ever ran at once (each
// takes a while, as a slow terminal or a test's buffer copy may).
type overlapWriter struct {
	in, overlaps atomic.Int32
	n            atomic.Int32
}

func (o *overlapWriter) Write(p []byte) (int, error) {
	if o.in.Add(1) > 1 {
		o.overlaps.Add(1)
	}
	time.Sleep(200 * time.Microsecond)
	o.n.Add(1)
	o.in.Add(-1)
	return len(p), nil
}

// writeFunc is an io.Writer of a type == cannot compare.
type writeFunc func([]byte) (int, error)

func (f writeFunc) Write(p []byte) (int, error) { return f(p) }

// TestSerialize: writes through the writers Serialize returns reach
// their writer one at a time, from any number of goroutines (os/exec's
// copies of the program's output and heapscope's messages); one writer
// given twice gets one wrapper, a file none.
func TestSerialize(t *testing.T) {
	var w overlapWriter
	out, errw := Serialize(&w, &w)
	if out != errw {
		t.Errorf("one writer given twice got two wrappers")
	}
	var wg sync.WaitGroup
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 50; i++ {
				io.WriteString(out, strings.Repeat("x", 10))
			}
		}()
	}
	wg.Wait()
	if n, o := w.n.Load(), w.overlaps.Load(); n != 400 || o != 0 {
		t.Errorf("%d writes, %d of them while another ran; want 400 and none", n, o)
	}
	if a, b := Serialize(os.Stdout, os.Stderr); a != io.Writer(os.Stdout) || b != io.Writer(os.Stderr) {
		t.Errorf("files were wrapped: %T %T", a, b)
	}
	f := writeFunc(func(p []byte) (int, error) { return len(p), nil })
	if a, b := Serialize(f, f); a == nil || b == nil {
		t.Errorf("a writer == cannot compare: %v %v", a, b)
	}
}
