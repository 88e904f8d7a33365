package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/heapscope/heapscope/analyze"
	"github.com/heapscope/heapscope/heap"
	"github.com/heapscope/heapscope/heapfile"
	"github.com/heapscope/heapscope/internal/crash"
	"github.com/heapscope/heapscope/internal/report"
)

// load reads a snapshot with the options of --max-inflated, telling a
// person at a terminal what it is doing when that takes more than a
// second. With verbose, it lists the snapshot's warnings on stderr.
func load(path string, stderr io.Writer, verbose bool, inflate inflateFlag) (*heap.Graph, report.Source, error) {
	return loadNth(path, 0, 0, stderr, verbose, inflate)
}

// loadNth is load of the i-th snapshot (from 1) of n a command reads,
// which its progress says; n 0: one snapshot.
func loadNth(path string, i, n int, stderr io.Writer, verbose bool, inflate inflateFlag) (*heap.Graph, report.Source, error) {
	g, src, err := loadQuietNth(path, i, n, stderr, inflate)
	if err == nil {
		writeWarnings(stderr, path, g, verbose)
	}
	return g, src, err
}

// loadQuiet is load without the snapshot's warnings, for a caller that
// sums them up over many snapshots.
func loadQuiet(path string, stderr io.Writer, inflate inflateFlag) (*heap.Graph, report.Source, error) {
	return loadQuietNth(path, 0, 0, stderr, inflate)
}

func loadQuietNth(path string, i, n int, stderr io.Writer, inflate inflateFlag) (*heap.Graph, report.Source, error) {
	var g *heap.Graph
	inflate.memory.apply()
	err := withProgress(stderr, readingText(path, i, n), func() error {
		var err error
		g, err = inflate.open.Open(path)
		return err
	})
	if err != nil {
		return nil, report.Source{}, openError(err)
	}
	return g, report.Source{Path: path, Overview: analyze.Describe(g)}, nil
}

// openError is the error of a snapshot that could not be read, with
// what to do when it was too large.
func openError(err error) error {
	if errors.Is(err, heapfile.ErrTooLarge) {
		return fmt.Errorf("%w (--max-inflated SIZE raises the limit)", err)
	}
	return err
}

// loadBoth is loadNth of two snapshots (a diff's), read at the same
// time: reading is mostly the first touch of fresh memory, which two
// cores do in about half the time of one. The progress names both; the
// warnings follow in the order of paths, and of two errors the first
// path's is returned.
func loadBoth(paths [2]string, stderr io.Writer, verbose bool, inflate inflateFlag) ([2]*heap.Graph, [2]report.Source, error) {
	var gs [2]*heap.Graph
	var srcs [2]report.Source
	inflate.memory.apply()
	var errs [2]error
	msg := readingText(paths[0], 1, 2) + " and " + strings.TrimPrefix(readingText(paths[1], 2, 2), "reading ")
	withProgress(stderr, msg, func() error {
		var wg sync.WaitGroup
		for i, p := range paths {
			wg.Add(1)
			go func() {
				defer wg.Done()
				gs[i], errs[i] = inflate.open.Open(p)
			}()
		}
		wg.Wait()
		return nil
	})
	for i, p := range paths {
		if err := errs[i]; err != nil {
			return [2]*heap.Graph{}, srcs, openError(err)
		}
		srcs[i] = report.Source{Path: p, Overview: analyze.Describe(gs[i])}
	}
	for i, p := range paths {
		writeWarnings(stderr, p, gs[i], verbose)
	}
	return gs, srcs, nil
}

// readingText is what the progress says while path is read: its size
// when it is a file, and which of n snapshots it is ("reading
// b.heapsnapshot (2 of 3, 113.0 MiB)").
func readingText(path string, i, n int) string {
	var what []string
	if n > 1 {
		what = append(what, fmt.Sprintf("%d of %d", i, n))
	}
	if fi, err := os.Stat(path); err == nil && fi.Mode().IsRegular() && path != "-" {
		what = append(what, report.Bytes(uint64(fi.Size())))
	}
	if len(what) == 0 {
		return "reading " + path
	}
	return "reading " + path + " (" + strings.Join(what, ", ") + ")"
}

// withProgress runs fn; if stderr is a terminal and fn takes more than a
// second, it shows msg on stderr until fn returns (see showProgress).
func withProgress(stderr io.Writer, msg string, fn func() error) (err error) {
	crash.Note(msg)
	defer crash.Note("")
	f, ok := stderr.(*os.File)
	if !ok || !isTerminal(f) {
		timed(msg, func() { err = fn() })
		return err
	}
	return showProgress(f, msg, time.Second, func() error {
		timed(msg, func() { err = fn() })
		return err
	})
}

// showProgress runs fn; once fn has run for after, it shows msg on w
// with the seconds since fn started ("reading a.hprof (1.0 GiB)... 7s"),
// redrawn in place each second, and clears the line when fn returns.
func showProgress(w io.Writer, msg string, after time.Duration, fn func() error) error {
	start := time.Now()
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		wait := time.NewTimer(after)
		defer wait.Stop()
		select {
		case <-done:
			return
		case <-wait.C:
		}
		tick := time.NewTicker(time.Second)
		defer tick.Stop()
		for {
			fmt.Fprintf(w, "\r\033[K%s... %ds", msg, int(time.Since(start).Seconds()))
			select {
			case <-done:
				fmt.Fprint(w, "\r\033[K")
				return
			case <-tick.C:
			}
		}
	}()
	err := fn()
	close(done)
	wg.Wait()
	return err
}

func isTerminal(f *os.File) bool {
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}
