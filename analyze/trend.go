package analyze

import (
	"sort"

	"github.com/heapscope/heapscope/heap"
)

// Growth classifies how a series of values changed over snapshots. The
// classes follow the intervals between snapshots, each up, down or
// unchanged, with no tolerance: a label never says more than the numbers
// show.
type Growth string

const (
	// Steady: it grew in every interval. The signature of a leak.
	Steady Growth = "steady"
	// Growing: it never went down, and grew in the last interval, but not
	// in every one (it paused): a leak that follows uneven work.
	Growing Growth = "growing"
	// WarmUp: it never went down, grew, and then stopped (the last
	// interval is unchanged): a cache that fills once, lazy imports,
	// interned names.
	WarmUp Growth = "warm-up"
	// Flat: it never changed.
	Flat Growth = "flat"
	// Shrinking: it went down, and never up.
	Shrinking Growth = "shrinking"
	// Fluctuating: it went both up and down: churn.
	Fluctuating Growth = "fluctuating"
)

// Classify returns the growth class of a series of values; a series of
// fewer than two is Flat.
func Classify(series []int64) Growth {
	if len(series) < 2 {
		return Flat
	}
	up, down := 0, 0
	lastUp := false
	for i := 1; i < len(series); i++ {
		d := series[i] - series[i-1]
		switch {
		case d > 0:
			up++
		case d < 0:
			down++
		}
		lastUp = d > 0
	}
	switch n := len(series) - 1; {
	case up == n:
		return Steady
	case up == 0 && down == 0:
		return Flat
	case up == 0:
		return Shrinking
	case down > 0:
		return Fluctuating
	case lastUp:
		return Growing
	}
	return WarmUp
}

// Measure names the series a [TypeTrend]'s growth class describes.
type Measure string

const (
	ByCount Measure = "count"
	ByBytes Measure = "bytes"
)

// TypeTrend is one type's counts and bytes over a series of snapshots.
type TypeTrend struct {
	Type   string   `json:"type"`
	Counts []int64  `json:"counts"`
	Bytes  []uint64 `json:"bytes"`
	// Growth classifies the counts or the bytes, whichever is the more
	// alarming (steady, growing, warm-up, fluctuating, shrinking, in that
	// order; the counts when both are alike); By says which. So a type
	// whose count stays but whose objects grow (one list, one buffer) is
	// "steady" by bytes, not flat; one whose count falls while its bytes
	// grow (fewer dicts, one of them bigger) is not called shrinking.
	Growth Growth  `json:"growth"`
	By     Measure `json:"by"`
	// PerSnapshot is the average growth in count per interval, and
	// BytesPerSnapshot in bytes, from the first snapshot to the last.
	PerSnapshot      float64 `json:"count_per_snapshot"`
	BytesPerSnapshot float64 `json:"bytes_per_snapshot"`
}

// classifyType sets t's Growth and By from its counts and bytes.
func classifyType(t *TypeTrend) {
	b := make([]int64, len(t.Bytes))
	for i, x := range t.Bytes {
		b[i] = int64(x)
	}
	byCount, byBytes := Classify(t.Counts), Classify(b)
	t.Growth, t.By = byCount, ByCount
	if growthRank[byBytes] < growthRank[byCount] {
		t.Growth, t.By = byBytes, ByBytes
	}
}

// Trend follows every type through a series of snapshots, oldest first.
// Types that grew steadily come first (largest bytes growth first), then
// growing, warm-up, fluctuating, shrinking; flat types are left out.
func Trend(snaps []*heap.Graph) []TypeTrend {
	n := len(snaps)
	rows := map[string]*TypeTrend{}
	for i, g := range snaps {
		for _, s := range Summary(g) {
			t, ok := rows[s.Type]
			if !ok {
				t = &TypeTrend{Type: s.Type, Counts: make([]int64, n), Bytes: make([]uint64, n)}
				rows[s.Type] = t
			}
			t.Counts[i] = int64(s.Count)
			t.Bytes[i] = s.Bytes
		}
	}
	var out []TypeTrend
	for _, t := range rows {
		classifyType(t)
		if t.Growth == Flat {
			continue
		}
		if n > 1 {
			t.PerSnapshot = float64(t.Counts[n-1]-t.Counts[0]) / float64(n-1)
			t.BytesPerSnapshot = (float64(t.Bytes[n-1]) - float64(t.Bytes[0])) / float64(n-1)
		}
		out = append(out, *t)
	}
	sort.Slice(out, func(i, j int) bool {
		a, b := out[i], out[j]
		if ra, rb := growthRank[a.Growth], growthRank[b.Growth]; ra != rb {
			return ra < rb
		}
		if a.BytesPerSnapshot != b.BytesPerSnapshot {
			return a.BytesPerSnapshot > b.BytesPerSnapshot
		}
		return a.Type < b.Type
	})
	return out
}

var growthRank = map[Growth]int{Steady: 0, Growing: 1, WarmUp: 2, Fluctuating: 3, Shrinking: 4, Flat: 5}
