package web

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/heapscope/heapscope/analyze"
	"github.com/heapscope/heapscope/internal/heaptest"
)

// TestCacheOnce: requests for one key share one computation.
func TestCacheOnce(t *testing.T) {
	c := newCache(1<<20, 2)
	var calls atomic.Int32
	release := make(chan struct{})
	var wg sync.WaitGroup
	for range 10 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			v, err := c.get(context.Background(), "k", func(func() bool) (any, error) {
				calls.Add(1)
				<-release
				return "v", nil
			})
			if v != "v" || err != nil {
				t.Errorf("get = %v, %v", v, err)
			}
		}()
	}
	time.Sleep(50 * time.Millisecond)
	close(release)
	wg.Wait()
	if calls.Load() != 1 {
		t.Errorf("10 requests for one key computed it %d times", calls.Load())
	}
	if v, _ := c.get(context.Background(), "k", func(func() bool) (any, error) { return "again", nil }); v != "v" {
		t.Errorf("the kept result is %v", v)
	}
}

// TestCacheWorkers: with one worker busy, a request for another key
// waits; when its client goes, it gives up and its computation never
// runs.
func TestCacheWorkers(t *testing.T) {
	c := newCache(1<<20, 1)
	release := make(chan struct{})
	started := make(chan struct{})
	go c.get(context.Background(), "busy", func(func() bool) (any, error) {
		close(started)
		<-release
		return 1, nil
	})
	<-started
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	ran := false
	_, err := c.get(ctx, "other", func(func() bool) (any, error) { ran = true; return 2, nil })
	if err == nil {
		t.Fatal("a request that waited for a worker past its deadline got an answer")
	}
	close(release)
	// The abandoned computation is dropped once the waiting loop looks.
	deadline := time.Now().Add(10 * time.Second)
	for {
		c.mu.Lock()
		_, still := c.byKey["other"]
		c.mu.Unlock()
		if !still {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the abandoned request is still waiting for a worker")
		}
		time.Sleep(10 * time.Millisecond)
	}
	if ran {
		t.Error("the computation of a request whose client went ran")
	}
}

// TestCacheStop: a computation is told when its every client has gone,
// and what it returns then is not kept.
func TestCacheStop(t *testing.T) {
	c := newCache(1<<20, 2)
	ctx, cancel := context.WithCancel(context.Background())
	stopped := make(chan struct{})
	go func() {
		time.Sleep(50 * time.Millisecond)
		cancel()
	}()
	_, err := c.get(ctx, "k", func(stop func() bool) (any, error) {
		for !stop() {
			time.Sleep(5 * time.Millisecond)
		}
		close(stopped)
		return "partial", nil
	})
	if err == nil {
		t.Fatal("the request whose client went got an answer")
	}
	select {
	case <-stopped:
	case <-time.After(10 * time.Second):
		t.Fatal("the computation was not told that its client went")
	}
	time.Sleep(20 * time.Millisecond)
	v, _ := c.get(context.Background(), "k", func(func() bool) (any, error) { return "whole", nil })
	if v != "whole" {
		t.Errorf("after a stopped computation the cache answers %v", v)
	}
}

// TestCacheBound: the kept results stay under the limit, the least
// recently used dropped first; a result over the limit is not kept.
func TestCacheBound(t *testing.T) {
	c := newCache(1000, 2)
	val := func(s string) func(func() bool) (any, error) {
		return func(func() bool) (any, error) { return strings.Repeat(s, 400), nil }
	}
	ctx := context.Background()
	c.get(ctx, "a", val("a"))
	c.get(ctx, "b", val("b"))
	c.get(ctx, "a", val("x")) // a is used again: b is the oldest
	c.get(ctx, "c", val("c"))
	n, bytes := c.stats()
	if n != 2 || bytes > 1000 {
		t.Errorf("%d results, %d bytes kept; want 2 within 1000", n, bytes)
	}
	if v, _ := c.get(ctx, "a", val("y")); v != strings.Repeat("a", 400) {
		t.Error("the result used most recently was dropped")
	}
	if v, _ := c.get(ctx, "b", val("z")); v != strings.Repeat("z", 400) {
		t.Error("the result used least recently was kept")
	}
	c.get(ctx, "big", val(strings.Repeat("q", 10)))
	c.mu.Lock()
	_, kept := c.byKey["big"]
	c.mu.Unlock()
	if kept {
		t.Error("a result over the whole limit was kept")
	}
}

func TestSizeOf(t *testing.T) {
	type node struct {
		name string
		next *node
		ids  []uint32
	}
	a := &node{name: "abcd", ids: make([]uint32, 1000)}
	a.next = a // a cycle is counted once
	for _, tc := range []struct {
		v        any
		min, max int64
	}{
		{nil, 0, 0},
		{strings.Repeat("x", 1000), 1000, 1100},
		{make([]uint64, 1000), 8000, 8100},
		{[]string{strings.Repeat("x", 500), strings.Repeat("y", 500)}, 1000, 1100},
		{a, 4000, 4200},
		{map[string]int{"a": 1, "b": 2}, 2, 200},
	} {
		if got := sizeOf(tc.v); got < tc.min || got > tc.max {
			t.Errorf("sizeOf(%T) = %d, want %d to %d", tc.v, got, tc.min, tc.max)
		}
	}
}

// chainGraph is a chain of n objects of alternating types (so that no
// run folds), each with a value, under one module: a hostile page's
// favourite, a path as long as the heap.
func chainGraph(n int) string {
	var b strings.Builder
	b.WriteString("runtime python\nroot module m m\nm module 72 -> .head=c0\n")
	for i := range n {
		typ := []string{"app.A", "app.B", "app.C"}[i%3]
		if i+1 < n {
			fmt.Fprintf(&b, "c%d %s 32 -> .next=c%d\n", i, typ, i+1)
		} else {
			fmt.Fprintf(&b, "c%d %s 32\n", i, typ)
		}
		fmt.Fprintf(&b, "value c%d node %d\n", i, i)
	}
	return b.String()
}

// TestLongPaths: a path down a chain of 30,000 objects comes to the page
// folded to its first and last steps, with the count of those between,
// and its text too.
func TestLongPaths(t *testing.T) {
	g := heaptest.MustParse(t, chainGraph(30000))
	snap := &Snapshot{Path: "chain", Graph: g, Analyze: func() (*Analysis, error) {
		return &Analysis{Tree: analyze.Dominators(g, analyze.DomOptions{}), Paths: analyze.ShortestPaths(g, analyze.PathOptions{})}, nil
	}}
	srv := httptest.NewServer(Handler([]*Snapshot{snap}, Options{}))
	defer srv.Close()
	_, _, body := get(t, srv, "/api/snapshots/0/why?value=node%2029999")
	var why struct {
		Rows []groupJSON `json:"rows"`
	}
	if err := json.Unmarshal(body, &why); err != nil || len(why.Rows) != 1 {
		t.Fatalf("why: %v %.200s", err, body)
	}
	p := why.Rows[0].Sample
	steps, gap := 0, 0
	for _, s := range p.Steps {
		if s.Gap > 0 {
			gap += s.Gap
		} else {
			steps++
		}
	}
	if steps != maxPathSteps || steps+gap != 30001 {
		t.Errorf("the path has %d steps and a gap of %d; want %d and the rest of 30,001", steps, gap, maxPathSteps)
	}
	if len(p.Text) > 20000 || !strings.Contains(p.Text, "… 29,") {
		t.Errorf("the path's text is %d bytes: %.200s", len(p.Text), p.Text)
	}
	if len(body) > 200<<10 {
		t.Errorf("the answer is %d bytes", len(body))
	}
}

// TestMaxResponse: an answer over the bound is refused, with what to do.
func TestMaxResponse(t *testing.T) {
	srv := httptest.NewServer(Handler([]*Snapshot{snapshot(t, "third")}, Options{MaxResponse: 300}))
	defer srv.Close()
	code, _, body := get(t, srv, "/api/snapshots/0/summary")
	if code != http.StatusInternalServerError || !strings.Contains(string(body), "ask for less") {
		t.Errorf("an answer over 300 bytes: %d %s", code, body)
	}
	if code, _, _ := get(t, srv, "/api/snapshots/0/summary?limit=1"); code != http.StatusOK {
		t.Errorf("a small page: %d", code)
	}
}
