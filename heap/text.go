package heap

import (
	"sort"
	"unsafe"
)

// texts is a list of short strings kept in one byte array: item i is
// data[end[i-1]:end[i]]. Millions of value labels then cost the garbage
// collector one object instead of millions.
type texts struct {
	data []byte
	end  []uint32
}

func (t *texts) add(s string) {
	t.data = append(t.data, s...)
	t.end = append(t.end, uint32(len(t.data)))
}

func (t *texts) addBytes(s []byte) {
	t.data = append(t.data, s...)
	t.end = append(t.end, uint32(len(t.data)))
}

func (t *texts) len() int { return len(t.end) }

// at returns item i. The string shares the array's memory, which is never
// written again once the Graph is built.
func (t *texts) at(i int) string {
	start := uint32(0)
	if i > 0 {
		start = t.end[i-1]
	}
	if start == t.end[i] {
		return ""
	}
	return unsafe.String(&t.data[start], int(t.end[i]-start))
}

func (t *texts) grow(n, bytes int) {
	t.end = growTo(t.end, n)
	// data stays in the Go heap: at's strings share it, and a string
	// taken while building must not outlive a mapping growTo releases.
	if cap(t.data)-len(t.data) < bytes {
		d := make([]byte, len(t.data), max(len(t.data)+bytes, 2*cap(t.data)))
		copy(d, t.data)
		t.data = d
	}
}

// sortTexts orders a sparse per-object text column by object (stable),
// keeping the first text of an object given twice and dropping objects
// out of range. It copies only when the column is out of order.
func sortTexts(ids []ObjectID, t texts, n int) ([]ObjectID, texts) {
	sorted := sort.SliceIsSorted(ids, func(i, j int) bool { return ids[i] < ids[j] })
	if sorted {
		dup := false
		for i := range ids {
			if int(ids[i]) >= n || (i > 0 && ids[i-1] == ids[i]) {
				dup = true
				break
			}
		}
		if !dup {
			return ids, t
		}
	}
	perm := make([]int, len(ids))
	for i := range perm {
		perm[i] = i
	}
	if !sorted {
		sort.SliceStable(perm, func(i, j int) bool { return ids[perm[i]] < ids[perm[j]] })
	}
	var out texts
	out.grow(len(ids), len(t.data))
	outIDs := make([]ObjectID, 0, len(ids))
	for _, p := range perm {
		id := ids[p]
		if int(id) >= n || (len(outIDs) > 0 && outIDs[len(outIDs)-1] == id) {
			continue
		}
		outIDs = append(outIDs, id)
		out.add(t.at(p))
	}
	return outIDs, out
}
