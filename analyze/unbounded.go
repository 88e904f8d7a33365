package analyze

import (
	"cmp"
	"slices"

	"github.com/heapscope/heapscope/heap"
)

// PathTrend is the number of objects of one type that one kind of path
// holds, over a series of snapshots.
type PathTrend struct {
	Type   string    `json:"type"`
	Path   string    `json:"-"` // the signature's key, for matching
	Group  PathGroup `json:"-"`
	Counts []int64   `json:"counts"`
	Growth Growth    `json:"growth"`
	// PerSnapshot is the average growth in count per interval.
	PerSnapshot float64 `json:"count_per_snapshot"`
}

// CollectionTrend is one container followed through a series of
// snapshots.
type CollectionTrend struct {
	Type    string  `json:"type"`
	Entries []int64 `json:"entries"`
	// Retained is the container's retained size in the last snapshot.
	Retained uint64 `json:"retained_bytes"`
	// Path is the container's shortest path in the last snapshot.
	Path Path `json:"-"`
	// PerSnapshot is the average growth in entries per interval.
	PerSnapshot float64 `json:"entries_per_snapshot"`
}

// TrendReport is what [TrendAll] finds.
type TrendReport struct {
	Mode        IdentityMode      `json:"identity"`
	Types       []TypeTrend       `json:"types"`
	Paths       []PathTrend       `json:"paths"`
	Collections []CollectionTrend `json:"collections"`
}

// TrendAll follows a series of snapshots of one process, oldest first:
// growth per type ([Trend]); for the types whose count grew steadily,
// growth per path signature (see [MergePaths]), so that a type that leaks
// through one path and is stable elsewhere shows where; and unbounded
// collections:
// containers (see [Containers]) whose entry count grew in every interval,
// biggest retained size first, but for those the snapshots record a
// limit for (a deque with a maxlen: see [heap.Graph.Limit]). Containers are matched across snapshots by
// identity (see [Identities]); where identities cannot be compared
// (IdentityNone), by their path signature when it is unique in every
// snapshot.
func TrendAll(snaps []*heap.Graph) TrendReport {
	rep := TrendReport{Types: Trend(snaps)}
	if len(snaps) == 0 {
		return rep
	}
	rep.Mode = Identify(snaps[len(snaps)-1])
	var steady []string
	for _, t := range rep.Types {
		if t.Growth == Steady && t.By == ByCount {
			steady = append(steady, t.Type)
		}
	}
	slices.Sort(steady)
	n := len(snaps)
	paths := map[string]*PathTrend{}
	colls := map[uint64]*CollectionTrend{}
	sigColl := map[string]*CollectionTrend{}
	for i, g := range snaps {
		tree := Dominators(g, DomOptions{})
		r := ShortestPaths(g, PathOptions{})
		byType := objectsOfTypes(g, steady, nil)
		for _, name := range steady {
			grps := countPaths(r, byType[name])
			for _, grp := range grps {
				k := signatureKey(grp)
				p, ok := paths[k]
				if !ok {
					p = &PathTrend{Type: name, Path: k, Counts: make([]int64, n)}
					paths[k] = p
				}
				p.Counts[i] = int64(grp.Count)
				p.Group = grp
			}
		}
		var keys []uint64
		if rep.Mode != IdentityNone {
			keys = Identities(g, rep.Mode)
		}
		seen := map[string]int{}
		type pending struct {
			key string
			c   Container
		}
		var bySig []pending
		for _, c := range Containers(tree, 0) {
			if _, ok := g.Limit(c.Object); ok {
				continue // bounded: a deque with a maxlen
			}
			if keys != nil {
				ct, ok := colls[keys[c.Object]]
				if !ok {
					if i > 0 {
						continue // not there from the start
					}
					ct = &CollectionTrend{Type: c.Type, Entries: make([]int64, n)}
					colls[keys[c.Object]] = ct
				}
				ct.Entries[i] = int64(c.Entries)
				ct.Retained = c.Retained
				if i == n-1 {
					ct.Path, _ = r.Path(c.Object)
				}
				continue
			}
			sig, kind, root := r.signature(c.Object)
			k := signatureKey(PathGroup{RootKind: kind, RootName: root, Signature: sig})
			seen[k]++
			bySig = append(bySig, pending{k, c})
		}
		for _, p := range bySig {
			if seen[p.key] != 1 {
				continue // ambiguous: several containers share the path
			}
			ct, ok := sigColl[p.key]
			if !ok {
				if i > 0 {
					continue
				}
				ct = &CollectionTrend{Type: p.c.Type, Entries: make([]int64, n)}
				sigColl[p.key] = ct
			}
			ct.Entries[i] = int64(p.c.Entries)
			ct.Retained = p.c.Retained
			if i == n-1 {
				ct.Path, _ = r.Path(p.c.Object)
			}
		}
	}
	for _, p := range paths {
		p.Growth = Classify(p.Counts)
		if p.Growth != Steady {
			continue
		}
		p.PerSnapshot = float64(p.Counts[n-1]-p.Counts[0]) / float64(n-1)
		rep.Paths = append(rep.Paths, *p)
	}
	slices.SortFunc(rep.Paths, func(a, b PathTrend) int {
		if c := cmp.Compare(b.PerSnapshot, a.PerSnapshot); c != 0 {
			return c
		}
		return cmp.Compare(a.Path, b.Path)
	})
	add := func(ct *CollectionTrend) {
		if n >= 2 && Classify(ct.Entries) == Steady {
			ct.PerSnapshot = float64(ct.Entries[n-1]-ct.Entries[0]) / float64(n-1)
			rep.Collections = append(rep.Collections, *ct)
		}
	}
	for _, ct := range colls {
		add(ct)
	}
	for _, ct := range sigColl {
		add(ct)
	}
	slices.SortFunc(rep.Collections, func(a, b CollectionTrend) int {
		if c := cmp.Compare(b.Retained, a.Retained); c != 0 {
			return c
		}
		if c := cmp.Compare(b.PerSnapshot, a.PerSnapshot); c != 0 {
			return c
		}
		if c := cmp.Compare(a.Type, b.Type); c != 0 {
			return c
		}
		return cmp.Compare(lastObject(a.Path), lastObject(b.Path))
	})
	return rep
}

func lastObject(p Path) heap.ObjectID {
	if len(p.Steps) == 0 {
		return heap.None
	}
	return p.Steps[len(p.Steps)-1].Object
}
