package analyze

import (
	"unsafe"

	"github.com/heapscope/heapscope/heap"
)

// bitset is a set of small integers, one bit each. The nil bitset is
// empty and must not be set.
type bitset []uint64

func newBitset(n int) bitset { return make(bitset, (n+63)/64) }

func (b bitset) set(i uint32) { b[i>>6] |= 1 << (i & 63) }

func (b bitset) has(i uint32) bool {
	return int(i>>6) < len(b) && b[i>>6]&(1<<(i&63)) != 0
}

// u32ids views a []uint32 as []heap.ObjectID (same size and layout)
// without copying.
func u32ids(s []uint32) []heap.ObjectID {
	if len(s) == 0 {
		return nil
	}
	return unsafe.Slice((*heap.ObjectID)(unsafe.Pointer(&s[0])), len(s))
}

// u64as32 views a []uint64 as a []uint32 twice as long, without copying.
func u64as32(s []uint64) []uint32 {
	if len(s) == 0 {
		return nil
	}
	return unsafe.Slice((*uint32)(unsafe.Pointer(&s[0])), 2*len(s))
}

func (b bitset) clear(i uint32) { b[i>>6] &^= 1 << (i & 63) }
