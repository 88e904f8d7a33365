package analyze

import (
	"sort"

	"github.com/heapscope/heapscope/heap"
)

// Growth classifies how a series of counts changed over snapshots.
type Growth string

const (
	// Steady: it grew in every interval. The signature of a leak.
	Steady Growth = "steady"
	// WarmUp: it grew in the first intervals and then stopped: a cache
	// that fills once, lazy imports, interned names.
	WarmUp Growth = "warm-up"
	// Flat: it never changed.
	Flat Growth = "flat"
	// Shrinking: it only went down.
	Shrinking Growth = "shrinking"
	// Fluctuating: up and down: churn.
	Fluctuating Growth = "fluctuating"
)

// Classify returns the growth class of a series of at least two values.
// A series that grew in every interval is Steady; one that grew and then
// stayed flat for at least its last interval is WarmUp.
func Classify(series []int64) Growth {
	if len(series) < 2 {
		return Flat
	}
	up, down := 0, 0
	lastUp := -1
	for i := 1; i < len(series); i++ {
		switch d := series[i] - series[i-1]; {
		case d > 0:
			up++
			lastUp = i
		case d < 0:
			down++
		}
	}
	n := len(series) - 1
	switch {
	case up == n:
		return Steady
	case up == 0 && down == 0:
		return Flat
	case up == 0:
		return Shrinking
	case down == 0 && lastUp < n:
		return WarmUp
	}
	return Fluctuating
}

// TypeTrend is one type's counts and bytes over a series of snapshots.
type TypeTrend struct {
	Type   string   `json:"type"`
	Counts []int64  `json:"counts"`
	Bytes  []uint64 `json:"bytes"`
	// Growth classifies the counts (the bytes when counts are flat).
	Growth Growth `json:"growth"`
	// PerSnapshot is the average growth in count per interval, and
	// BytesPerSnapshot in bytes, from the first snapshot to the last.
	PerSnapshot      float64 `json:"count_per_snapshot"`
	BytesPerSnapshot float64 `json:"bytes_per_snapshot"`
}

// Trend follows every type through a series of snapshots, oldest first.
// Types that grew steadily come first (largest bytes growth first), then
// warm-up, fluctuating, shrinking; flat types are left out.
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
		t.Growth = Classify(t.Counts)
		if t.Growth == Flat {
			b := make([]int64, n)
			for i, x := range t.Bytes {
				b[i] = int64(x)
			}
			t.Growth = Classify(b)
		}
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

var growthRank = map[Growth]int{Steady: 0, WarmUp: 1, Fluctuating: 2, Shrinking: 3, Flat: 4}
