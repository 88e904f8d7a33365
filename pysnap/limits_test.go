package pysnap_test

import (
	"bytes"
	"encoding/binary"
	"errors"
	"testing"

	"github.com/heapscope/heapscope/heap"
	"github.com/heapscope/heapscope/internal/heaptest"
	"github.com/heapscope/heapscope/pysnap"
)

const secLimits = 12

// u64s is v little-endian.
func u64s(v ...uint64) (b []byte) {
	for _, x := range v {
		b = append(b, u32s(uint32(x), uint32(x>>32))...)
	}
	return b
}

// TestLimits reads LIMITS sections (1.3) written after the objects:
// each address's limit goes to its object, one of no object is dropped
// without an error, and a file without LIMITS (1.2 and before) reads
// with no limit. A section whose length does not fit its count (more
// records than bytes, fewer, a count near 2^32, addresses alone) is a
// FormatError that names LIMITS and the offset of its payload, never a
// panic or an allocation by the count.
func TestLimits(t *testing.T) {
	g := heaptest.MustParse(t, `
a collections.deque 624
b collections.deque 624
c list 56
root module a m
`)
	base := encode(t, g, 0)
	v12 := bytes.Clone(base)
	binary.LittleEndian.PutUint16(v12[10:], 2) // minor version 2
	fixChecksum(v12)
	old, err := read(v12)
	if err != nil {
		t.Fatal(err)
	}
	if n := len(collect(old)); n != 0 {
		t.Errorf("a 1.2 file (no LIMITS): %d limits", n)
	}
	p := withSection(base, secLimits, 2, u64s(g.Addr(1), 0xdead0, 100000, 7))
	p = withSection(p, secLimits, 1, u64s(g.Addr(0), 3))
	got, err := read(p)
	if err != nil {
		t.Fatal(err)
	}
	if lims := collect(got); len(lims) != 2 || lims[0] != 3 || lims[1] != 100000 {
		t.Errorf("limits %v, want a 3 and b 100000", lims)
	}
	for _, tc := range []struct {
		name    string
		count   uint32
		payload []byte
	}{
		{"count over the bytes", 3, u64s(g.Addr(0), 3)},
		{"count under the bytes", 0, u64s(g.Addr(0), 3)},
		{"count near 2^32", 1<<32 - 1, u64s(g.Addr(0), 3)},
		{"addresses only", 1, u64s(g.Addr(0))},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := withSection(base, secLimits, tc.count, tc.payload)
			got, err := read(p)
			payload := int64(len(base) - 16 - 32 + 16)
			var fe *pysnap.FormatError
			if got != nil || !errors.As(err, &fe) || fe.Section != "LIMITS" || fe.Offset != payload {
				t.Errorf("Read() = %v, want a FormatError in LIMITS at offset %d (its payload)", err, payload)
			}
		})
	}
}

// collect returns g's limits by object.
func collect(g *heap.Graph) map[heap.ObjectID]uint64 {
	out := map[heap.ObjectID]uint64{}
	for id, l := range g.Limits() {
		out[id] = l
		if m, ok := g.Limit(id); !ok || m != l {
			out[id] = ^uint64(0) // Limit disagrees with Limits
		}
	}
	return out
}
