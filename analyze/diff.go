package analyze

import (
	"sort"

	"github.com/heapscope/heapscope/heap"
)

// TypeDelta is how one type changed between two snapshots.
type TypeDelta struct {
	Type string `json:"type"`
	// Classes, for a row of class objects, names the family of classes
	// the row counts (see [FoldName]): the name they share
	// ("app.make.<locals>.Handler") or the pattern of their names
	// ("app.Model_*"). Families of more than one class in either
	// snapshot, the classes a factory makes, have rows of their own, so
	// that two factories are two rows; the other classes stay in their
	// type's row, with Classes "".
	Classes string `json:"classes,omitempty"`
	// Types, when not 0, is how many types the row sums: the instances
	// of the classes of one large family (a type per class, as a factory
	// makes them: sympy's f_0 ... f_599), whose names' pattern is Type.
	Types       int    `json:"types,omitempty"`
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
	// and type (see IdentityStable) as well as counting them by type.
	// Only meaningful when identities are stable across
	// snapshots of one process (V8 node ids); Python and HPROF addresses
	// are reused or move.
	Identity bool
}

// Diff compares two snapshots per type name. Rows are sorted by bytes
// change, largest growth first (then count change, then name); types whose
// count and bytes did not change are left out.
func Diff(before, after *heap.Graph, opt DiffOptions) []TypeDelta {
	rows := map[string]*TypeDelta{}
	get := func(name, classes string) *TypeDelta {
		k := name + "\x00" + classes
		d, ok := rows[k]
		if !ok {
			d = &TypeDelta{Type: name, Classes: classes, New: -1}
			rows[k] = d
		}
		return d
	}
	fam := splitFamilies(before, after)
	folded := map[string]map[string]bool{} // pattern -> the type names in its row
	row := func(name string) *TypeDelta {
		p, ok := fam.fold[name]
		if !ok {
			return get(name, "")
		}
		if folded[p] == nil {
			folded[p] = map[string]bool{}
		}
		folded[p][name] = true
		return get(p, "")
	}
	for _, s := range Summary(before) {
		d := row(s.Type)
		d.CountBefore += s.Count
		d.BytesBefore += s.Bytes
	}
	for _, s := range Summary(after) {
		d := row(s.Type)
		d.CountAfter += s.Count
		d.BytesAfter += s.Bytes
	}
	for p, ns := range folded {
		get(p, "").Types = len(ns)
	}
	for _, f := range fam.stats {
		whole, own := get(f.typ, ""), get(f.typ, f.label)
		whole.CountBefore -= f.count[0]
		whole.BytesBefore -= f.bytes[0]
		whole.CountAfter -= f.count[1]
		whole.BytesAfter -= f.bytes[1]
		own.CountBefore, own.BytesBefore = f.count[0], f.bytes[0]
		own.CountAfter, own.BytesAfter = f.count[1], f.bytes[1]
	}
	if opt.Identity {
		for _, d := range rows {
			d.New = 0
		}
		old := make(map[uint64]struct{}, before.NumObjects())
		for _, k := range Identities(before, IdentityStable) {
			old[k] = struct{}{}
		}
		newByType := make([]int, after.NumTypes())
		keys := Identities(after, IdentityStable)
		for id := range after.Objects() {
			if _, ok := old[keys[id]]; !ok {
				if f := fam.of(id); f != nil {
					get(f.typ, f.label).New++
					continue
				}
				newByType[after.Type(id)]++
			}
		}
		for t, n := range newByType {
			if n > 0 {
				row(after.TypeName(heap.TypeID(t))).New += n
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
		if a.Type != b.Type {
			return a.Type < b.Type
		}
		return a.Classes < b.Classes
	})
	return out
}
