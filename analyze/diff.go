package analyze

import (
	"sort"

	"github.com/heapscope/heapscope/heap"
)

// TypeDelta is how one type changed between two snapshots.
type TypeDelta struct {
	Type        string `json:"type"`
	CountBefore int    `json:"count_before"`
	CountAfter  int    `json:"count_after"`
	CountDelta  int    `json:"count_delta"`
	BytesBefore uint64 `json:"bytes_before"`
	BytesAfter  uint64 `json:"bytes_after"`
	BytesDelta  int64  `json:"bytes_delta"`
	// Status is "appeared" (none before), "vanished" (none after) or "".
	Status string `json:"status,omitempty"`
	// New counts objects of the type in the second snapshot whose identity
	// the first does not have; -1 when identities are not compared.
	New int `json:"new"`
}

// DiffOptions tunes [Diff].
type DiffOptions struct {
	// Identity compares objects by their runtime identity (heap.Graph.Addr)
	// as well as by type. Only meaningful when identities are stable across
	// snapshots of one process (V8 node ids); Python and HPROF addresses
	// are reused or move.
	Identity bool
}

// Diff compares two snapshots per type name. Rows are sorted by bytes
// change, largest growth first (then count change, then name); types whose
// count and bytes did not change are left out.
func Diff(before, after *heap.Graph, opt DiffOptions) []TypeDelta {
	rows := map[string]*TypeDelta{}
	get := func(name string) *TypeDelta {
		d, ok := rows[name]
		if !ok {
			d = &TypeDelta{Type: name, New: -1}
			rows[name] = d
		}
		return d
	}
	for _, s := range Summary(before) {
		d := get(s.Type)
		d.CountBefore, d.BytesBefore = s.Count, s.Bytes
	}
	for _, s := range Summary(after) {
		d := get(s.Type)
		d.CountAfter, d.BytesAfter = s.Count, s.Bytes
	}
	if opt.Identity {
		for _, d := range rows {
			d.New = 0
		}
		old := make(map[uint64]struct{}, before.NumObjects())
		for id := range before.Objects() {
			old[before.Addr(id)] = struct{}{}
		}
		newByType := make([]int, after.NumTypes())
		for id := range after.Objects() {
			if _, ok := old[after.Addr(id)]; !ok {
				newByType[after.Type(id)]++
			}
		}
		for t, n := range newByType {
			if n > 0 {
				get(after.TypeName(heap.TypeID(t))).New += n
			}
		}
	}
	out := make([]TypeDelta, 0, len(rows))
	for _, d := range rows {
		d.CountDelta = d.CountAfter - d.CountBefore
		d.BytesDelta = int64(d.BytesAfter) - int64(d.BytesBefore)
		switch {
		case d.CountBefore == 0 && d.CountAfter > 0:
			d.Status = "appeared"
		case d.CountBefore > 0 && d.CountAfter == 0:
			d.Status = "vanished"
		}
		if d.CountDelta == 0 && d.BytesDelta == 0 && d.New <= 0 {
			continue
		}
		out = append(out, *d)
	}
	sort.Slice(out, func(i, j int) bool {
		a, b := out[i], out[j]
		if a.BytesDelta != b.BytesDelta {
			return a.BytesDelta > b.BytesDelta
		}
		if a.CountDelta != b.CountDelta {
			return a.CountDelta > b.CountDelta
		}
		return a.Type < b.Type
	})
	return out
}
