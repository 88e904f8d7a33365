package analyze

import (
	"cmp"
	"slices"
)

// ProcessValue is what one process's own analysis says of one thing: a
// type, a path, a collection or a leak finding, named by Key as people
// read it (its type name, its path's text), so that the same thing in
// two processes, whose object ids and type ids have nothing in common,
// has the same key.
type ProcessValue struct {
	Key     string
	Process int    // the process's index in the set
	Class   string // what the analysis calls it there: steady, grew, leak...
	Count   int64  // its change in objects (or entries)
	Bytes   int64  // its change in bytes (or its retained bytes)
}

// Spread sums up one measure over processes.
type Spread struct {
	Median int64 `json:"median"`
	Min    int64 `json:"min"`
	Max    int64 `json:"max"`
	Sum    int64 `json:"sum"`
}

// spreadOf returns the spread of xs (not empty); it sorts xs. The median
// of an even number of values is the mean of the middle two.
func spreadOf(xs []int64) Spread {
	slices.Sort(xs)
	s := Spread{Min: xs[0], Max: xs[len(xs)-1]}
	for _, x := range xs {
		s.Sum += x
	}
	m := len(xs) / 2
	s.Median = xs[m]
	if len(xs)%2 == 0 {
		s.Median = xs[m-1] + (xs[m]-xs[m-1])/2
	}
	return s
}

// ClassCount is how many processes gave a thing one class.
type ClassCount struct {
	Class     string `json:"class"`
	Processes int    `json:"processes"`
}

// FleetRow is one thing across the processes of a set.
type FleetRow struct {
	Key string `json:"key"`
	// Class is the most alarming class a process gave it, and On the
	// processes that gave it that class, in order.
	Class string `json:"class"`
	On    []int  `json:"on"`
	// Count and Bytes spread the values of the processes in On.
	Count Spread `json:"count"`
	Bytes Spread `json:"bytes"`
	// Others counts the processes that gave it another class, most
	// alarming first.
	Others []ClassCount `json:"others,omitempty"`
}

// Aggregate groups what processes said of each thing by its key, so that
// a thing that grows on every process (a leak in code all of them run)
// reads apart from one that grows on one (a leak in what only one
// process does, or in its data). A row's class is the most alarming one
// (the lowest rank) a process gave the thing; classes rank does not know
// (a negative rank) are left out. Rows come most alarming class first,
// then by the bytes summed over their processes, largest first, then by
// more processes, then by key. Several values of one key from one
// process (two leak findings that read alike) are one: the most
// alarming class, and the sum of the values of that class.
func Aggregate(vals []ProcessValue, rank func(class string) int) []FleetRow {
	type keyProc struct {
		key  string
		proc int
	}
	merged := map[keyProc]int{} // index in byKey[key]
	byKey := map[string][]ProcessValue{}
	for _, v := range vals {
		if rank(v.Class) < 0 {
			continue
		}
		i, ok := merged[keyProc{v.Key, v.Process}]
		if !ok {
			merged[keyProc{v.Key, v.Process}] = len(byKey[v.Key])
			byKey[v.Key] = append(byKey[v.Key], v)
			continue
		}
		switch m := &byKey[v.Key][i]; {
		case rank(v.Class) < rank(m.Class):
			*m = v
		case v.Class == m.Class:
			m.Count += v.Count
			m.Bytes += v.Bytes
		}
	}
	rows := make([]FleetRow, 0, len(byKey))
	for key, vs := range byKey {
		best := slices.MinFunc(vs, func(a, b ProcessValue) int { return cmp.Compare(rank(a.Class), rank(b.Class)) }).Class
		r := FleetRow{Key: key, Class: best}
		var counts, bytes []int64
		others := map[string]int{}
		for _, v := range vs {
			if v.Class != best {
				others[v.Class]++
				continue
			}
			r.On = append(r.On, v.Process)
			counts = append(counts, v.Count)
			bytes = append(bytes, v.Bytes)
		}
		slices.Sort(r.On)
		r.Count, r.Bytes = spreadOf(counts), spreadOf(bytes)
		for c, n := range others {
			r.Others = append(r.Others, ClassCount{c, n})
		}
		slices.SortFunc(r.Others, func(a, b ClassCount) int {
			return cmp.Or(cmp.Compare(rank(a.Class), rank(b.Class)), cmp.Compare(a.Class, b.Class))
		})
		rows = append(rows, r)
	}
	slices.SortFunc(rows, func(a, b FleetRow) int {
		return cmp.Or(
			cmp.Compare(rank(a.Class), rank(b.Class)),
			cmp.Compare(b.Bytes.Sum, a.Bytes.Sum),
			cmp.Compare(len(b.On), len(a.On)),
			cmp.Compare(a.Key, b.Key))
	})
	return rows
}

// GrowthRank ranks the growth classes of [Trend] for [Aggregate]: steady
// first, then growing, warm-up, fluctuating, shrinking; flat, which
// trend does not report, is -1.
func GrowthRank(class string) int {
	if g := Growth(class); g != Flat {
		if r, ok := growthRank[g]; ok {
			return r
		}
	}
	return -1
}

// VerdictRank ranks the verdicts of leak findings for [Aggregate]: what
// grows first, then what is bounded, then what stopped; anything else
// is -1.
func VerdictRank(class string) int {
	switch v := Verdict(class); v {
	case Grows, Bounded, Stopped:
		return v.rank()
	}
	return -1
}
