package pysnap

import (
	"testing"

	"github.com/heapscope/heapscope/heap"
)

// TestObjectFlags: each flag bit of the format maps to its heap flag, the
// interned bit to heap.FlagInterned whatever its place among heap.Flags
// (never to a flag of another runtime, such as heap.FlagTransient), and
// undefined bits to nothing; the writer maps them back.
func TestObjectFlags(t *testing.T) {
	for _, c := range []struct {
		b    byte
		want heap.Flags
	}{
		{1, heap.FlagGCTracked}, {2, heap.FlagImmortal}, {4, heap.FlagOpaque}, {8, heap.FlagSynthetic},
		{16, heap.FlagInterned}, {1 | 16, heap.FlagGCTracked | heap.FlagInterned}, {32, heap.FlagWhole},
		{0xc0, 0}, {0xe0, heap.FlagWhole},
	} {
		if got := objectFlags[c.b]; got != c.want {
			t.Errorf("flags byte %#x: %v, want %v", c.b, got, c.want)
		}
		if got := flagsByte(c.want); got != c.b&0x3f {
			t.Errorf("heap flags %v: byte %#x, want %#x", c.want, got, c.b&0x3f)
		}
	}
	if got := flagsByte(heap.FlagTransient); got != 0 {
		t.Errorf("heap.FlagTransient, which the format has no bit for, is written as %#x", got)
	}
}
