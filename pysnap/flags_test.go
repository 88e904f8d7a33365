package pysnap

import (
	"testing"

	"github.com/heapscope/heapscope/heap"
)

// TestObjectFlags: each flag bit of the format maps to its heap flag, the
// interned bit to heap.FlagInterned whatever its place among heap.Flags
// (never to a flag of another runtime, such as heap.FlagTransient), and
// undefined bits to nothing.
func TestObjectFlags(t *testing.T) {
	for _, c := range []struct {
		b    byte
		want heap.Flags
	}{
		{1, heap.FlagGCTracked}, {2, heap.FlagImmortal}, {4, heap.FlagOpaque}, {8, heap.FlagSynthetic},
		{16, heap.FlagInterned}, {1 | 16, heap.FlagGCTracked | heap.FlagInterned}, {32, 0}, {0xe0, 0},
	} {
		if got := objectFlags[c.b]; got != c.want {
			t.Errorf("flags byte %#x: %v, want %v", c.b, got, c.want)
		}
	}
}
