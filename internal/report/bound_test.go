package report

import (
	"testing"

	"github.com/heapscope/heapscope/analyze"
)

// TestGrowthTextBounds: a bounded place says its limit and how full it
// is, an lru_cache and a deque in the same words; a full one (an
// lru_cache at its maxsize, a deque at its maxlen) says it evicts.
func TestGrowthTextBounds(t *testing.T) {
	gains := analyze.Gains{New: [2]int{40, 40}}
	for _, c := range []struct {
		bound analyze.Bound
		want  string
	}{
		{analyze.Bound{Kind: "lru_cache", Max: 1000, Filled: 540}, "bounded: lru_cache maxsize 1,000, 540 filled; grew by 40, then 40"},
		{analyze.Bound{Kind: "lru_cache", Max: 1000, Filled: 1000}, "bounded, full and evicting: lru_cache maxsize 1,000, 1,000 filled; grew by 40, then 40"},
		{analyze.Bound{Kind: "maxlen", Max: 100000, Filled: 4210}, "bounded: deque maxlen 100,000, 4,210 filled; grew by 40, then 40"},
		{analyze.Bound{Kind: "maxlen", Max: 100, Filled: 100}, "bounded, full and evicting: deque maxlen 100, 100 filled; grew by 40, then 40"},
		// Set once on each old object: full is no eviction.
		{analyze.Bound{Kind: "per-object", Max: 40, Filled: 40}, "bounded: set once on objects the baseline had, 40 of 40; grew by 40, then 40"},
	} {
		f := analyze.LeakFinding{Gains: gains, Bound: &c.bound, Verdict: analyze.Bounded}
		if got := GrowthText(f); got != c.want {
			t.Errorf("GrowthText(%+v) = %q, want %q", c.bound, got, c.want)
		}
	}
}
