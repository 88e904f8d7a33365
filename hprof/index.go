package hprof

import (
	"math/bits"
	"sort"
)

// addrIndex maps object ids (heap addresses) to the dense ObjectIDs the
// reader assigned in file order. It keeps the addresses sorted, with the
// ObjectID of each, and a directory of buckets over the address range so
// that a lookup is a short search in one bucket. Unlike a hash table it
// keeps the locality of the dump: objects mostly refer to objects near
// them, and HotSpot writes objects in address order, so consecutive
// lookups touch neighbouring memory. Cost: 16 bytes per object (8 key,
// 4 ObjectID, 4 directory), and 12 more while sorting.
type addrIndex struct {
	keys  []uint64 // sorted addresses
	ids   []uint32 // ids[i] is the object at keys[i]; nil means ids[i] == i
	dir   []uint32 // dir[b]: first i with (keys[i]-min)>>shift >= b
	min   uint64
	max   uint64
	shift uint
	dups  int // addresses that occur more than once
}

// newAddrIndex indexes addrs, where addrs[i] is the address of object i.
// It takes ownership of addrs. When an address occurs
// twice, the first object wins.
func newAddrIndex(addrs []uint64) *addrIndex {
	x := &addrIndex{keys: addrs}
	n := len(addrs)
	if n == 0 {
		return x
	}
	sorted := true
	x.min, x.max = addrs[0], addrs[0]
	var or uint64
	for i, a := range addrs {
		if a < x.min {
			x.min = a
		}
		if a > x.max {
			x.max = a
		}
		if i > 0 && a < addrs[i-1] {
			sorted = false
		}
	}
	for _, a := range addrs {
		or |= a - x.min
	}
	if !sorted {
		x.keys, x.ids = sortAddrs(addrs, x.min, or)
	}
	for i := 1; i < n; i++ {
		if x.keys[i] == x.keys[i-1] {
			x.dups++
		}
	}
	// About one bucket per object.
	span := x.max - x.min
	for span>>x.shift >= uint64(n) {
		x.shift++
	}
	nb := int(span>>x.shift) + 1
	x.dir = make([]uint32, nb+1)
	b := 0
	for i, a := range x.keys {
		k := int((a - x.min) >> x.shift)
		for b <= k {
			x.dir[b] = uint32(i)
			b++
		}
	}
	for b <= nb {
		x.dir[b] = uint32(n)
		b++
	}
	return x
}

// sortAddrs returns addrs sorted, with the index of each in addrs. Dumps
// are nearly sorted: HotSpot writes the class mirrors first, then the
// heap in address order. So sortAddrs takes the longest ascending run as
// it is, sorts the rest, and merges the two; equal addresses keep their
// file order.
func sortAddrs(addrs []uint64, min, or uint64) ([]uint64, []uint32) {
	n := len(addrs)
	rs, re := 0, 0 // longest ascending run
	for i := 0; i < n; {
		j := i + 1
		for j < n && addrs[j] >= addrs[j-1] {
			j++
		}
		if j-i > re-rs {
			rs, re = i, j
		}
		i = j
	}
	restK := make([]uint64, 0, n-(re-rs))
	restI := make([]uint32, 0, n-(re-rs))
	for i := 0; i < n; i++ {
		if i == rs {
			i = re
			if i == n {
				break
			}
		}
		restK = append(restK, addrs[i])
		restI = append(restI, uint32(i))
	}
	if len(restK) > 1<<12 {
		radixSort(restK, restI, min, or)
	} else {
		sort.Stable(pairs{restK, restI})
	}
	keys := make([]uint64, n)
	ids := make([]uint32, n)
	run := addrs[rs:re]
	i, j := 0, 0
	for k := range keys {
		if j >= len(restK) || (i < len(run) && (run[i] < restK[j] || run[i] == restK[j] && uint32(rs+i) < restI[j])) {
			keys[k], ids[k] = run[i], uint32(rs+i)
			i++
		} else {
			keys[k], ids[k] = restK[j], restI[j]
			j++
		}
	}
	return keys, ids
}

// pairs sorts keys, carrying ids along.
type pairs struct {
	k []uint64
	i []uint32
}

func (p pairs) Len() int           { return len(p.k) }
func (p pairs) Less(a, b int) bool { return p.k[a] < p.k[b] }
func (p pairs) Swap(a, b int) {
	p.k[a], p.k[b] = p.k[b], p.k[a]
	p.i[a], p.i[b] = p.i[b], p.i[a]
}

// radixSort sorts keys ascending by the bits of key-min that vary (or is
// the OR of all key-min), carrying ids along; it is stable (LSD, 11-bit
// digits), so equal keys keep their file order.
func radixSort(keys []uint64, ids []uint32, min, or uint64) {
	if or == 0 {
		return
	}
	const digit = 11
	lo := uint(bits.TrailingZeros64(or))
	hi := uint(64 - bits.LeadingZeros64(or))
	tk := make([]uint64, len(keys))
	ti := make([]uint32, len(ids))
	srcK, srcI, dstK, dstI := keys, ids, tk, ti
	var count [1 << digit]int
	for s := lo; s < hi; s += digit {
		clear(count[:])
		for _, k := range srcK {
			count[((k-min)>>s)&(1<<digit-1)]++
		}
		sum := 0
		for d, c := range count {
			count[d] = sum
			sum += c
		}
		for i, k := range srcK {
			d := ((k - min) >> s) & (1<<digit - 1)
			j := count[d]
			count[d]++
			dstK[j], dstI[j] = k, srcI[i]
		}
		srcK, srcI, dstK, dstI = dstK, dstI, srcK, srcI
	}
	if &srcK[0] != &keys[0] {
		copy(keys, srcK)
		copy(ids, srcI)
	}
}

// lookup returns the ObjectID of the object at address a.
func (x *addrIndex) lookup(a uint64) (uint32, bool) {
	if len(x.keys) == 0 || a < x.min || a > x.max {
		return 0, false
	}
	b := (a - x.min) >> x.shift
	lo, hi := x.dir[b], x.dir[b+1]
	for lo < hi { // first key >= a
		m := lo + (hi-lo)/2
		if x.keys[m] < a {
			lo = m + 1
		} else {
			hi = m
		}
	}
	if int(lo) >= len(x.keys) || x.keys[lo] != a {
		return 0, false
	}
	if x.ids == nil {
		return lo, true
	}
	return x.ids[lo], true
}
