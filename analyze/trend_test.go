package analyze_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/heapscope/heapscope/analyze"
	"github.com/heapscope/heapscope/heap"
	"github.com/heapscope/heapscope/internal/heaptest"
)

func TestClassify(t *testing.T) {
	tests := []struct {
		series []int64
		want   analyze.Growth
	}{
		{[]int64{1, 2, 3, 4}, analyze.Steady},
		{[]int64{1, 2}, analyze.Steady},
		{[]int64{1, 5, 5, 5}, analyze.WarmUp},
		{[]int64{1, 5, 9, 9}, analyze.WarmUp},
		{[]int64{1, 1, 5, 5}, analyze.WarmUp}, // waited, grew, stopped
		{[]int64{1, 1, 2}, analyze.Growing},   // flat, then grew: still growing
		{[]int64{1, 2, 2, 3}, analyze.Growing},
		{[]int64{3, 3, 3}, analyze.Flat},
		{[]int64{980, 980, 980}, analyze.Flat},
		{[]int64{3, 2, 1}, analyze.Shrinking},
		{[]int64{3, 3, 1}, analyze.Shrinking},
		{[]int64{1, 3, 2, 4}, analyze.Fluctuating},
		{[]int64{5, 3, 3, 4}, analyze.Fluctuating},
		{[]int64{7}, analyze.Flat},
		{nil, analyze.Flat},
	}
	for _, tc := range tests {
		if got := analyze.Classify(tc.series); got != tc.want {
			t.Errorf("Classify(%v) = %s, want %s", tc.series, got, tc.want)
		}
	}
}

// heapWith builds a graph with n objects of each named type.
func heapWith(t *testing.T, counts map[string]int) *heap.Graph {
	var b strings.Builder
	i := 0
	for _, typ := range []string{"Leak", "Cache", "Churn", "Stable"} {
		for k := 0; k < counts[typ]; k++ {
			fmt.Fprintf(&b, "o%d %s 10\n", i, typ)
			i++
		}
	}
	return heaptest.MustParse(t, b.String())
}

func TestTrend(t *testing.T) {
	snaps := []*heap.Graph{
		heapWith(t, map[string]int{"Leak": 1, "Cache": 1, "Churn": 3, "Stable": 2}),
		heapWith(t, map[string]int{"Leak": 3, "Cache": 4, "Churn": 1, "Stable": 2}),
		heapWith(t, map[string]int{"Leak": 5, "Cache": 4, "Churn": 4, "Stable": 2}),
	}
	got := analyze.Trend(snaps)
	var summary []string
	for _, r := range got {
		summary = append(summary, fmt.Sprintf("%s:%s:%.0f", r.Type, r.Growth, r.PerSnapshot))
	}
	want := "Leak:steady:2 Cache:warm-up:2 Churn:fluctuating:0"
	if strings.Join(summary, " ") != want {
		t.Errorf("Trend() = %v, want %s", summary, want)
	}
}

// TestTrendByBytes: a type is classed by its counts or its bytes,
// whichever moved the more alarming way, and says which.
func TestTrendByBytes(t *testing.T) {
	snap := func(objs string) *heap.Graph { return heaptest.MustParse(t, objs) }
	snaps := []*heap.Graph{
		snap("a Buf 100\nb Tab 10\nc Tab 10\nd Tab 10\ne Same 8\nf Both 8"),
		snap("a Buf 200\nb Tab 50\nc Tab 10\ne Same 8\nf Both 8\ng Both 8"),
		snap("a Buf 300\nb Tab 90\ne Same 8\nf Both 8\ng Both 8\nh Both 4"),
	}
	var got []string
	for _, r := range analyze.Trend(snaps) {
		got = append(got, fmt.Sprintf("%s:%s:%s", r.Type, r.Growth, r.By))
	}
	// Buf: 1 -> 1 -> 1 objects, 100 -> 200 -> 300 bytes. Tab: 3 -> 2 -> 1
	// objects, 30 -> 60 -> 90 bytes. Both: counts 1 -> 2 -> 3 and bytes
	// 8 -> 16 -> 20, both steady: by count. Same never changes.
	want := "Buf:steady:bytes Tab:steady:bytes Both:steady:count"
	if strings.Join(got, " ") != want {
		t.Errorf("Trend() = %v, want %s", got, want)
	}
}
