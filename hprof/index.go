package hprof

import (
	"math/bits"
	"sort"

	"github.com/heapscope/heapscope/internal/spill"
)

// addrChunk is how many addresses one chunk of an addrList holds.
const addrChunk = 1 << 20

// addrList is the list of object addresses pass 1 collects, in chunks,
// so that growing it never copies what it holds.
type addrList struct {
	chunks [][]uint64
	n      int
}

func (l *addrList) add(a uint64) {
	if l.n&(addrChunk-1) == 0 {
		l.chunks = append(l.chunks, spill.MakeCap[uint64](0, addrChunk))
	}
	c := &l.chunks[len(l.chunks)-1]
	*c = append(*c, a)
	l.n++
}

func (l *addrList) at(i int) uint64 { return l.chunks[i/addrChunk][i%addrChunk] }

// addrIndex maps object ids (heap addresses) to the dense ObjectIDs the
// reader assigned in file order. HotSpot writes the class mirrors first
// and then the heap in address order, so the addresses are one long
// ascending run and a few others. The index keeps the longest ascending
// run as it is, where an address's position gives its ObjectID, and the
// other addresses sorted with the ObjectID of each. Keys are stored as
// (address-min)>>shift, where shift is the alignment every address
// shares, in 4 bytes when that fits (always for heaps below 32 GB), and a
// directory of buckets over the key range makes a lookup a short search
// in one bucket. Unlike a hash table it keeps the locality of the dump:
// objects mostly refer to objects near them, so consecutive lookups touch
// neighbouring memory. Cost for a HotSpot dump: about 5 bytes per object.
type addrIndex struct {
	min, max uint64
	shift    uint // low bits every address-min has clear
	runStart uint32
	run      table // the longest ascending run; ObjectID = runStart + position
	rest     table // the other addresses, with ids
	cross    bool  // an address is in both tables
	dups     int   // addresses that occur more than once
}

// table is a sorted list of keys with a bucket directory; keys are in k32
// when every key fits in 32 bits, else in k64.
type table struct {
	k32   []uint32
	k64   []uint64
	ids   []uint32 // ids[i] is the object of key i; nil in the run table
	dir   []uint32 // dir[b]: first i with key(i)>>dshift >= b
	dshif uint
	n     int
}

// newAddrIndex indexes addrs, where addrs.at(i) is the address of object
// i. When an address occurs twice, the first object wins. It releases
// addrs' chunks as it goes.
func newAddrIndex(addrs *addrList) *addrIndex {
	x := &addrIndex{}
	n := addrs.n
	if n == 0 {
		return x
	}
	x.min, x.max = addrs.at(0), addrs.at(0)
	for _, ch := range addrs.chunks {
		for _, a := range ch {
			x.min = min(x.min, a)
			x.max = max(x.max, a)
		}
	}
	var or uint64
	for _, ch := range addrs.chunks {
		for _, a := range ch {
			or |= a - x.min
		}
	}
	if or != 0 {
		x.shift = uint(min(bits.TrailingZeros64(or), 8))
	}
	wide := (x.max-x.min)>>x.shift > 1<<32-1

	// The longest ascending run.
	rs, re := 0, 0
	for i := 0; i < n; {
		j := i + 1
		prev := addrs.at(i)
		for j < n {
			a := addrs.at(j)
			if a < prev {
				break
			}
			prev = a
			j++
		}
		if j-i > re-rs {
			rs, re = i, j
		}
		i = j
	}
	x.runStart = uint32(rs)
	nrest := n - (re - rs)
	restK := make([]uint64, 0, nrest)
	restI := make([]uint32, 0, nrest)
	run := newTable(re-rs, wide)
	for i := 0; i < n; i++ {
		a := addrs.at(i)
		if i >= rs && i < re {
			run.set(i-rs, (a-x.min)>>x.shift)
		} else {
			restK = append(restK, a)
			restI = append(restI, uint32(i))
		}
		if i%addrChunk == addrChunk-1 {
			spill.Free(addrs.chunks[i/addrChunk])
			addrs.chunks[i/addrChunk] = nil
		}
	}
	for _, c := range addrs.chunks {
		spill.Free(c) // the last, partial chunk
	}
	addrs.chunks = nil
	if len(restK) > 1<<12 {
		radixSort(restK, restI, x.min, or)
	} else {
		sort.Stable(pairs{restK, restI})
	}
	rest := newTable(len(restK), wide)
	for i, a := range restK {
		rest.set(i, (a-x.min)>>x.shift)
	}
	rest.ids = restI
	restK = nil
	run.directory(x)
	rest.directory(x)
	x.run, x.rest = run, rest

	for i := 1; i < run.n; i++ {
		if run.key(i) == run.key(i-1) {
			x.dups++
		}
	}
	for i := 1; i < rest.n; i++ {
		if rest.key(i) == rest.key(i-1) {
			x.dups++
		}
	}
	for i := 0; i < rest.n; i++ {
		if i > 0 && rest.key(i) == rest.key(i-1) {
			continue
		}
		if _, ok := run.find(rest.key(i)); ok {
			x.dups++
			x.cross = true
		}
	}
	return x
}

func newTable(n int, wide bool) table {
	t := table{n: n}
	if wide {
		t.k64 = spill.Make[uint64](n)
	} else {
		t.k32 = spill.Make[uint32](n)
	}
	return t
}

func (t *table) set(i int, k uint64) {
	if t.k64 != nil {
		t.k64[i] = k
	} else {
		t.k32[i] = uint32(k)
	}
}

func (t *table) key(i int) uint64 {
	if t.k64 != nil {
		return t.k64[i]
	}
	return uint64(t.k32[i])
}

// directory builds the bucket directory: about one bucket per 4 keys.
func (t *table) directory(x *addrIndex) {
	span := (x.max - x.min) >> x.shift
	for span>>t.dshif >= uint64(max(t.n/4, 1)) {
		t.dshif++
	}
	nb := int(span>>t.dshif) + 1
	t.dir = make([]uint32, nb+1)
	b := 0
	for i := 0; i < t.n; i++ {
		k := int(t.key(i) >> t.dshif)
		for b <= k {
			t.dir[b] = uint32(i)
			b++
		}
	}
	for b <= nb {
		t.dir[b] = uint32(t.n)
		b++
	}
}

// find returns the position of the first key equal to k.
func (t *table) find(k uint64) (int, bool) {
	if t.n == 0 {
		return 0, false
	}
	b := k >> t.dshif
	lo, hi := int(t.dir[b]), int(t.dir[b+1])
	if t.k64 == nil {
		k32 := uint32(k)
		keys := t.k32
		for lo < hi { // first key >= k
			m := int(uint(lo+hi) >> 1)
			if keys[m] < k32 {
				lo = m + 1
			} else {
				hi = m
			}
		}
		return lo, lo < t.n && keys[lo] == k32
	}
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if t.k64[m] < k {
			lo = m + 1
		} else {
			hi = m
		}
	}
	return lo, lo < t.n && t.k64[lo] == k
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
	if a < x.min || a > x.max {
		return 0, false
	}
	d := a - x.min
	if d&(1<<x.shift-1) != 0 {
		return 0, false
	}
	k := d >> x.shift
	if i, ok := x.run.find(k); ok {
		id := x.runStart + uint32(i)
		if x.cross {
			if j, ok := x.rest.find(k); ok && x.rest.ids[j] < id {
				return x.rest.ids[j], true
			}
		}
		return id, true
	}
	if j, ok := x.rest.find(k); ok {
		return x.rest.ids[j], true
	}
	return 0, false
}
