package supervisor

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"
)

// progress tells a person at a terminal what a snapshot the program
// takes is doing, which can take minutes (a V8 snapshot of a big heap;
// a Node program runs its signal handler only between two tasks, so a
// long synchronous one, a compile, delays it): after a second of
// waiting, that heapscope is waiting for the program to take it; while
// the program writes it (the agents write a temporary file, ".NAME...
// .tmp", then rename it), how much it has written; then what it wrote.
// The line is redrawn in place; nothing is shown when stderr is not a
// terminal.
type progress struct {
	dir   string
	w     io.Writer
	every time.Duration

	mu     sync.Mutex
	askedT time.Time // when the snapshot signal was passed on; zero when not waiting
	last   string    // the line on the terminal, "" for none
	quit   chan struct{}
	done   chan struct{}
}

// newProgress starts showing the progress of the snapshots written into
// dir on stderr, when stderr is a terminal; nil otherwise.
func newProgress(dir string, stderr io.Writer) *progress {
	f, ok := stderr.(*os.File)
	if !ok {
		return nil
	}
	if st, err := f.Stat(); err != nil || st.Mode()&os.ModeCharDevice == 0 {
		return nil
	}
	return startProgress(dir, stderr, 500*time.Millisecond)
}

// startProgress shows progress on w, looking at dir every so often.
func startProgress(dir string, w io.Writer, every time.Duration) *progress {
	p := &progress{dir: dir, w: w, every: every, quit: make(chan struct{}), done: make(chan struct{})}
	go p.run()
	return p
}

// asked notes that the snapshot signal was passed on to the program.
func (p *progress) asked() {
	if p == nil {
		return
	}
	p.mu.Lock()
	p.askedT = time.Now()
	p.mu.Unlock()
}

// stop ends the progress and clears its line.
func (p *progress) stop() {
	if p == nil {
		return
	}
	close(p.quit)
	<-p.done
}

func (p *progress) run() {
	defer close(p.done)
	tick := time.NewTicker(p.every)
	defer tick.Stop()
	seen := map[string]time.Time{} // temporary files, when first seen
	for {
		select {
		case <-p.quit:
			p.line("")
			return
		case <-tick.C:
		}
		now := time.Now()
		tmps := temporaries(p.dir)
		// A temporary file gone: renamed whole, or dropped on failure.
		for name, first := range seen {
			if _, ok := tmps[name]; ok {
				continue
			}
			delete(seen, name)
			final := finalName(name)
			if st, err := os.Stat(filepath.Join(p.dir, final)); err == nil && st.ModTime().After(first.Add(-time.Second)) {
				p.line("")
				fmt.Fprintf(p.w, "heapscope: wrote %s (%s in %s)\n", final, mib(st.Size()), now.Sub(first).Round(time.Second))
			}
			p.mu.Lock()
			p.askedT = time.Time{}
			p.mu.Unlock()
		}
		writing := ""
		var size int64
		var since time.Time
		for name, sz := range tmps {
			if _, ok := seen[name]; !ok {
				seen[name] = now
			}
			if now.Sub(seen[name]) >= time.Second {
				writing, size, since = name, sz, seen[name]
			}
		}
		p.mu.Lock()
		asked := p.askedT
		if len(tmps) > 0 {
			p.askedT = time.Time{}
		}
		p.mu.Unlock()
		switch {
		case writing != "":
			p.line(fmt.Sprintf("heapscope: the program is taking %s: %s written in %s...", finalName(writing), mib(size), now.Sub(since).Round(time.Second)))
		case !asked.IsZero() && now.Sub(asked) >= time.Second:
			p.line(fmt.Sprintf("heapscope: waiting %s for the program to take the snapshot (a Node program runs the handler between two tasks: a long one delays it)...", now.Sub(asked).Round(time.Second)))
		default:
			p.line("")
		}
	}
}

// line shows s in place of the line shown before ("" clears it).
func (p *progress) line(s string) {
	if s == p.last {
		return
	}
	fmt.Fprint(p.w, "\r\033[K"+s)
	p.last = s
}

// temporaries returns the temporary files of snapshots being written
// in dir, with their sizes.
func temporaries(dir string) map[string]int64 {
	out := map[string]int64{}
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		n := e.Name()
		if !strings.HasPrefix(n, ".") || !strings.HasSuffix(n, ".tmp") {
			continue
		}
		if info, err := e.Info(); err == nil {
			out[n] = info.Size()
		}
	}
	return out
}

// finalName is the snapshot a temporary file becomes: ".NAME.tmp" (the
// Node agent's) or ".NAME.PID.N.tmp" (the Python agent's) is NAME.
func finalName(tmp string) string {
	n := strings.TrimSuffix(strings.TrimPrefix(tmp, "."), ".tmp")
	for _, ext := range []string{".heapsnapshot", ".pysnap", ".hprof"} {
		if i := strings.Index(n, ext); i > 0 {
			return n[:i+len(ext)]
		}
	}
	return n
}

// mib formats a file size in MiB, to a tenth.
func mib(n int64) string { return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20)) }
