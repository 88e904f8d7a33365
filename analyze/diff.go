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
	// the first does not have, and NewBytes their shallow sizes; Deleted
	// and DeletedBytes the objects of the first whose identity the second
	// does not have (the memory freed), as DevTools' Comparison counts
	// them; all -1 when identities are not compared.
	New          int   `json:"new"`
	NewBytes     int64 `json:"new_bytes"`
	Deleted      int   `json:"deleted"`
	DeletedBytes int64 `json:"deleted_bytes"`
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
			d = &TypeDelta{Type: name, Classes: classes, New: -1, NewBytes: -1, Deleted: -1, DeletedBytes: -1}
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
			d.New, d.NewBytes, d.Deleted, d.DeletedBytes = 0, 0, 0, 0
		}
		// Objects in one snapshot and not the other, by row: after's are
		// new, before's deleted.
		count := func(g *heap.Graph, keys []uint64, other map[uint64]struct{}, of func(heap.ObjectID) *familyStat, add func(*TypeDelta, int, int64)) {
			n := make([]int, g.NumTypes())
			b := make([]int64, g.NumTypes())
			for id := range g.Objects() {
				if _, ok := other[keys[id]]; ok {
					continue
				}
				if f := of(id); f != nil {
					add(get(f.typ, f.label), 1, int64(g.Size(id)))
					continue
				}
				n[g.Type(id)]++
				b[g.Type(id)] += int64(g.Size(id))
			}
			for t := range n {
				if n[t] > 0 {
					add(row(g.TypeName(heap.TypeID(t))), n[t], b[t])
				}
			}
		}
		oldKeys, newKeys := Identities(before, IdentityStable), Identities(after, IdentityStable)
		old := keySet(oldKeys)
		count(after, newKeys, old, fam.of, func(d *TypeDelta, n int, b int64) { d.New += n; d.NewBytes += b })
		old = nil
		count(before, oldKeys, keySet(newKeys), fam.ofBefore, func(d *TypeDelta, n int, b int64) { d.Deleted += n; d.DeletedBytes += b })
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
		if d.CountDelta == 0 && d.BytesDelta == 0 && d.New <= 0 && d.Deleted <= 0 {
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

// keySet returns the set of keys.
func keySet(keys []uint64) map[uint64]struct{} {
	set := make(map[uint64]struct{}, len(keys))
	for _, k := range keys {
		set[k] = struct{}{}
	}
	return set
}
