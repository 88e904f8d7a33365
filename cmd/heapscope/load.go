package main

import (
	"errors"
	"fmt"
	"io"
	"os"
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
	g, src, err := loadQuiet(path, stderr, inflate)
	if err == nil {
		writeWarnings(stderr, path, g, verbose)
	}
	return g, src, err
}

// loadQuiet is load without the snapshot's warnings, for a caller that
// sums them up over many snapshots.
func loadQuiet(path string, stderr io.Writer, inflate inflateFlag) (*heap.Graph, report.Source, error) {
	var g *heap.Graph
	err := withProgress(stderr, "reading "+path, func() error {
		var err error
		g, err = inflate.open.Open(path)
		return err
	})
	if errors.Is(err, heapfile.ErrTooLarge) {
		err = fmt.Errorf("%w (--max-inflated SIZE raises the limit)", err)
	}
	if err != nil {
		return nil, report.Source{}, err
	}
	return g, report.Source{Path: path, Overview: analyze.Describe(g)}, nil
}

// withProgress runs fn; if stderr is a terminal and fn takes more than a
// second, it shows msg on stderr until fn returns.
func withProgress(stderr io.Writer, msg string, fn func() error) (err error) {
	crash.Note(msg)
	defer crash.Note("")
	f, ok := stderr.(*os.File)
	if !ok || !isTerminal(f) {
		timed(msg, func() { err = fn() })
		return err
	}
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		select {
		case <-done:
			return
		case <-time.After(time.Second):
		}
		fmt.Fprintf(f, "%s...", msg)
		<-done
		fmt.Fprint(f, "\r\033[K")
	}()
	timed(msg, func() { err = fn() })
	close(done)
	wg.Wait()
	return err
}

func isTerminal(f *os.File) bool {
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}
