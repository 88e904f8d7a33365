package supervisor

import (
	"io"
	"os"
	"sync"
)

// lockedWriter serializes the writes to w.
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

// Serialize returns writers for the program's output and heapscope's
// messages that are safe to write at once: the program's output is
// copied into them by goroutines of os/exec (for any writer but a
// file) while heapscope's own goroutines write its messages (the
// child's PID, the JVM's censuses, the metrics server). A file is
// returned as it is (each write is one system call); any other writer
// is wrapped so that one write at a time reaches it, and the same
// writer given twice gets the same wrapper (os/exec then copies both
// streams with one goroutine, as it does for one writer).
func Serialize(stdout, stderr io.Writer) (io.Writer, io.Writer) {
	wrap := func(w io.Writer) io.Writer {
		switch w.(type) {
		case nil, *os.File, *lockedWriter:
			return w
		}
		return &lockedWriter{w: w}
	}
	out := wrap(stdout)
	if same(stdout, stderr) {
		return out, out
	}
	return out, wrap(stderr)
}

// same reports whether a and b are the same writer (false for writers
// of a type that cannot be compared, which == would panic on).
func same(a, b io.Writer) (eq bool) {
	defer func() {
		if recover() != nil {
			eq = false
		}
	}()
	return a == b
}
