package analyze

import (
	"math/rand/v2"
	"reflect"
	"slices"
	"testing"
)

// TestAggregate checks rows on a leak that grows on every process, one on
// one process, a finding that reads alike twice in one process, and the
// classes other processes gave a thing.
func TestAggregate(t *testing.T) {
	vals := []ProcessValue{
		{Key: "ctx", Process: 0, Class: "grows", Count: 400, Bytes: 40 << 20},
		{Key: "ctx", Process: 1, Class: "grows", Count: 400, Bytes: 42 << 20},
		{Key: "ctx", Process: 2, Class: "grows", Count: 200, Bytes: 20 << 20},
		{Key: "ctx", Process: 2, Class: "grows", Count: 200, Bytes: 20 << 20}, // two findings that read alike
		{Key: "ctx", Process: 3, Class: "stopped", Count: 10, Bytes: 1 << 20},
		{Key: "cache", Process: 3, Class: "grows", Count: 50, Bytes: 1 << 10},
		{Key: "cache", Process: 3, Class: "stopped", Count: 5, Bytes: 1 << 8}, // less alarming: not summed
		{Key: "noise", Process: 1, Class: "unknown", Count: 1, Bytes: 1},
	}
	got := Aggregate(vals, VerdictRank)
	want := []FleetRow{
		{Key: "ctx", Class: "grows", On: []int{0, 1, 2},
			Count:  Spread{Median: 400, Min: 400, Max: 400, Sum: 1200},
			Bytes:  Spread{Median: 40 << 20, Min: 40 << 20, Max: 42 << 20, Sum: 122 << 20},
			Others: []ClassCount{{"stopped", 1}}},
		{Key: "cache", Class: "grows", On: []int{3},
			Count: Spread{Median: 50, Min: 50, Max: 50, Sum: 50},
			Bytes: Spread{Median: 1 << 10, Min: 1 << 10, Max: 1 << 10, Sum: 1 << 10}},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Aggregate:\n got %+v\nwant %+v", got, want)
	}
}

// TestAggregateNaive compares Aggregate with a naive computation, process
// by process, on random values.
func TestAggregateNaive(t *testing.T) {
	classes := []string{"grows", "bounded", "stopped", "other"}
	r := rand.New(rand.NewPCG(1, 2))
	for round := range 500 {
		var vals []ProcessValue
		for range r.IntN(30) {
			vals = append(vals, ProcessValue{Key: string(rune('a' + r.IntN(4))), Process: r.IntN(5),
				Class: classes[r.IntN(len(classes))], Count: int64(r.IntN(100)), Bytes: int64(r.IntN(1000))})
		}
		got := Aggregate(slices.Clone(vals), VerdictRank)
		if len(got) != len(naiveAggregate(vals)) {
			t.Fatalf("round %d: %d rows, naive %d", round, len(got), len(naiveAggregate(vals)))
		}
		for _, row := range got {
			want := naiveAggregate(vals)[row.Key]
			if row.Class != want.Class || !slices.Equal(row.On, want.On) || row.Count.Sum != want.Count.Sum ||
				row.Bytes.Sum != want.Bytes.Sum || row.Bytes.Max != want.Bytes.Max || row.Count.Median != want.Count.Median ||
				!slices.Equal(row.Others, want.Others) {
				t.Fatalf("round %d: %+v, naive %+v\nvalues %+v", round, row, want, vals)
			}
		}
		for i := 1; i < len(got); i++ {
			a, b := got[i-1], got[i]
			if VerdictRank(a.Class) > VerdictRank(b.Class) || a.Class == b.Class && a.Bytes.Sum < b.Bytes.Sum {
				t.Fatalf("round %d: rows out of order: %+v before %+v", round, a, b)
			}
		}
	}
}

// naiveAggregate is Aggregate written the plain way: for each key, each
// process's most alarming class and the sum of its values of that class.
func naiveAggregate(vals []ProcessValue) map[string]FleetRow {
	out := map[string]FleetRow{}
	keys := map[string]bool{}
	for _, v := range vals {
		if VerdictRank(v.Class) >= 0 {
			keys[v.Key] = true
		}
	}
	for key := range keys {
		best := map[int]string{}
		for _, v := range vals {
			if v.Key == key && VerdictRank(v.Class) >= 0 && (best[v.Process] == "" || VerdictRank(v.Class) < VerdictRank(best[v.Process])) {
				best[v.Process] = v.Class
			}
		}
		top := ""
		for _, c := range best {
			if top == "" || VerdictRank(c) < VerdictRank(top) {
				top = c
			}
		}
		row := FleetRow{Key: key, Class: top}
		var counts, bytes []int64
		others := map[string]int{}
		for p := range 5 {
			c, ok := best[p]
			if !ok {
				continue
			}
			if c != top {
				others[c]++
				continue
			}
			var n, b int64
			for _, v := range vals {
				if v.Key == key && v.Process == p && v.Class == c {
					n, b = n+v.Count, b+v.Bytes
				}
			}
			row.On = append(row.On, p)
			counts, bytes = append(counts, n), append(bytes, b)
		}
		row.Count, row.Bytes = spreadOf(counts), spreadOf(bytes)
		for _, c := range []string{"grows", "bounded", "stopped"} {
			if others[c] > 0 {
				row.Others = append(row.Others, ClassCount{c, others[c]})
			}
		}
		out[key] = row
	}
	return out
}
