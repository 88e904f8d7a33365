package analyze_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/heapscope/heapscope/analyze"
	"github.com/heapscope/heapscope/heap"
	"github.com/heapscope/heapscope/internal/heaptest"
)

// dequeHeap is a Python heap after n rounds of a workload that appends
// an app.Event to two deques of module app each round: log, which has
// maxlen (the snapshot records it unless maxlen is 0) and keeps the
// newest, and history, which has none. A deque's items are unnamed
// edges, as the agent writes them.
func dequeHeap(t *testing.T, n, maxlen int) *heap.Graph {
	var b strings.Builder
	b.WriteString("runtime python\nroot module app app\n")
	b.WriteString("app@0x100 module 72 -> __dict__=ns\nns@0x200 dict 360 -> .log=log .history=hist\n")
	var log, hist []string
	for i := 0; i < n; i++ {
		fmt.Fprintf(&b, "h%d@%x app.Event 48\n", i, 0x10000+i*0x40)
		hist = append(hist, fmt.Sprintf("h%d", i))
		if maxlen == 0 || i >= n-maxlen {
			fmt.Fprintf(&b, "l%d@%x app.Event 48\n", i, 0x80000+i*0x40)
			log = append(log, fmt.Sprintf("l%d", i))
		}
	}
	fmt.Fprintf(&b, "log@0x300 collections.deque 624 -> %s\n", strings.Join(log, " "))
	fmt.Fprintf(&b, "hist@0x380 collections.deque 624 -> %s\n", strings.Join(hist, " "))
	if maxlen > 0 {
		fmt.Fprintf(&b, "limit log %d\n", maxlen)
	}
	return heaptest.MustParse(t, b.String())
}

// TestLeaksDequeMaxlen: a deque whose maxlen the snapshot records is
// bounded, filling or full (from then on each item appended pushes out
// the oldest), and ranks after the deque without one, which grows; its
// bound says the maxlen and the items it holds in final. Without the
// record (a snapshot from before LIMITS), the same deque grows.
func TestLeaksDequeMaxlen(t *testing.T) {
	for _, tc := range []struct {
		name    string
		maxlen  int
		verdict analyze.Verdict
		bound   *analyze.Bound
		full    bool
	}{
		{"filling", 100, analyze.Bounded, &analyze.Bound{Kind: "maxlen", Max: 100, Filled: 30}, false},
		{"full", 30, analyze.Bounded, &analyze.Bound{Kind: "maxlen", Max: 30, Filled: 30}, true},
		{"evicting", 15, analyze.Bounded, &analyze.Bound{Kind: "maxlen", Max: 15, Filled: 15}, true},
		{"no record", 0, analyze.Grows, nil, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rep := analyze.Leaks(dequeHeap(t, 10, tc.maxlen), dequeHeap(t, 20, tc.maxlen), dequeHeap(t, 30, tc.maxlen), analyze.LeakOptions{})
			byPlace := map[string]analyze.LeakFinding{}
			var order []string
			for _, f := range rep.Findings {
				at := ""
				if n := len(f.Place.Path.Steps); n > 0 {
					at = f.Place.Path.Steps[n-1].Type + " " + f.Place.Path.Steps[n-1].Edge
				}
				byPlace[at] = f
				order = append(order, at)
			}
			hist, ok := byPlace["collections.deque .history"]
			if !ok || hist.Verdict != analyze.Grows || hist.Bound != nil {
				t.Fatalf("findings %q: want the history growing, unbounded, got %+v", order, hist)
			}
			log, ok := byPlace["collections.deque .log"]
			if !ok {
				t.Fatalf("findings %q: no finding at the log", order)
			}
			if log.Verdict != tc.verdict || (log.Bound == nil) != (tc.bound == nil) || (tc.bound != nil && *log.Bound != *tc.bound) {
				t.Errorf("log: %s, bound %+v; want %s, bound %+v", log.Verdict, log.Bound, tc.verdict, tc.bound)
			}
			if log.Bound.Full() != tc.full {
				t.Errorf("log: Full() = %v, want %v", log.Bound.Full(), tc.full)
			}
			if tc.verdict == analyze.Bounded && order[0] != "collections.deque .history" {
				t.Errorf("findings %q: want the history first", order)
			}
		})
	}
}

// TestTrendDequeMaxlen: trend lists a deque that grew in every snapshot
// among the unbounded collections, with its items counted, unless the
// snapshots record its maxlen.
func TestTrendDequeMaxlen(t *testing.T) {
	for _, maxlen := range []int{0, 100} {
		rep := analyze.TrendAll([]*heap.Graph{dequeHeap(t, 10, maxlen), dequeHeap(t, 20, maxlen), dequeHeap(t, 30, maxlen)})
		var got []string
		for _, c := range rep.Collections {
			got = append(got, fmt.Sprintf("%s %s %v", c.Type, c.Path.Steps[len(c.Path.Steps)-1].Edge, c.Entries))
		}
		want := []string{"collections.deque .history [10 20 30]"}
		if maxlen == 0 {
			want = append(want, "collections.deque .log [10 20 30]")
		}
		slices.Sort(got)
		if strings.Join(got, "|") != strings.Join(want, "|") {
			t.Errorf("maxlen %d: unbounded collections %q, want %q", maxlen, got, want)
		}
	}
}
