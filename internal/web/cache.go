package web

import (
	"container/list"
	"context"
	"sync"
	"sync/atomic"
	"time"
)

// The server's results are computed on request and kept for the next
// one. A page on the same machine can ask for many at once, each
// different (why?value=a, value=b...), so the work and what is kept are
// bounded:
//   - one computation per key at a time: a request for a key being
//     computed waits for that computation;
//   - at most Options.Workers computations at once; the others wait for
//     a turn, and give it up when their client goes;
//   - a computation whose every client has gone is told so (the stop
//     function it is handed), and its result is dropped; the analyses
//     that can stop midway (retainers and references) do;
//   - what is kept is bounded by Options.CacheBytes, the results used
//     least recently dropped first; the size of a result is estimated
//     (see sizeOf).

// result is one computation's outcome, or its progress.
type result struct {
	key     string
	done    chan struct{} // closed when v and err are set
	v       any
	err     error
	size    int64
	waiters atomic.Int32 // clients waiting for it
	elem    *list.Element
}

// cache holds the results and bounds the work that makes them.
type cache struct {
	mu      sync.Mutex
	byKey   map[string]*result
	lru     *list.List // of *result, most recently used first; only done results
	bytes   int64
	limit   int64
	workers chan struct{}
}

func newCache(limit int64, workers int) *cache {
	return &cache{byKey: map[string]*result{}, lru: list.New(), limit: limit, workers: make(chan struct{}, max(workers, 1))}
}

// errGone is what a request whose client has gone gets.
var errGone = context.Canceled

// get returns the value fn computes for key: kept from an earlier
// request, being computed for another, or computed now when a worker is
// free. It gives up, with ctx's error, when ctx ends first (the client
// went). fn is handed a function that reports whether every client
// waiting for the result has gone; fn may then give up, and what it
// returns is not kept. Errors are not kept either: the next request
// tries again.
func (c *cache) get(ctx context.Context, key string, fn func(stop func() bool) (any, error)) (any, error) {
	c.mu.Lock()
	r, ok := c.byKey[key]
	if ok {
		select {
		case <-r.done:
			c.lru.MoveToFront(r.elem)
			c.mu.Unlock()
			return r.v, r.err
		default:
		}
		r.waiters.Add(1)
	} else {
		r = &result{key: key, done: make(chan struct{})}
		r.waiters.Add(1)
		c.byKey[key] = r
		go c.compute(r, fn)
	}
	c.mu.Unlock()
	defer r.waiters.Add(-1)
	select {
	case <-r.done:
		return r.v, r.err
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// compute runs fn for r when a worker is free, unless every client has
// gone by then, and keeps the result within the bound.
func (c *cache) compute(r *result, fn func(stop func() bool) (any, error)) {
	gone := func() bool { return r.waiters.Load() <= 0 }
	// Wait for a worker, looking now and then whether anyone still
	// wants the result; requests join under c.mu, so the look is final.
	abandoned := func() bool {
		c.mu.Lock()
		defer c.mu.Unlock()
		if !gone() {
			return false
		}
		delete(c.byKey, r.key)
		r.err = errGone
		close(r.done)
		return true
	}
	tick := time.NewTicker(50 * time.Millisecond)
	defer tick.Stop()
	for acquired := false; !acquired; {
		select {
		case c.workers <- struct{}{}:
			acquired = true
		case <-tick.C:
			if abandoned() {
				return
			}
		}
	}
	defer func() { <-c.workers }()
	if abandoned() {
		return
	}
	v, err := fn(gone)
	c.finish(r, v, err, err == nil && !gone())
}

// finish publishes r's outcome and keeps it when keep says so, dropping
// the results used least recently while the total is over the limit.
func (c *cache) finish(r *result, v any, err error, keep bool) {
	size := int64(0)
	if keep {
		size = sizeOf(v)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	r.v, r.err = v, err
	close(r.done)
	if !keep || size > c.limit {
		delete(c.byKey, r.key)
		return
	}
	r.size = size
	r.elem = c.lru.PushFront(r)
	c.bytes += size
	for c.bytes > c.limit {
		old := c.lru.Back().Value.(*result)
		c.lru.Remove(old.elem)
		delete(c.byKey, old.key)
		c.bytes -= old.size
	}
}

// stats returns how many results are kept and their estimated size.
func (c *cache) stats() (int, int64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.lru.Len(), c.bytes
}
