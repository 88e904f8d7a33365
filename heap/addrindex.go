package heap

import "math/rand/v2"

// AddrIndex maps runtime addresses to ObjectIDs with an open-addressing
// hash table (linear probing, power-of-two capacity, load factor at most
// 3/4): 12 bytes per slot, so 16 to 32 bytes per object. It is built once
// and then only read, and may be read from many goroutines.
//
// Addresses come from the snapshot, which may be hostile: the hash is
// seeded at random for each index, so that no input can choose addresses
// that all fall into one run of slots and make building the index
// quadratic. Lookups give the same answers whatever the seed.
type AddrIndex struct {
	keys   []uint64
	vals   []ObjectID // None marks an empty slot
	mask   uint64
	seed   uint64
	dups   int
	probes int // slots looked at while building, for tests
}

// NewAddrIndex indexes addrs: addrs[i] maps to ObjectID(i). When an address
// occurs twice, the first occurrence wins; [AddrIndex.Duplicates] counts
// the others.
func NewAddrIndex(addrs []uint64) *AddrIndex {
	capacity := uint64(16)
	for capacity < uint64(len(addrs))*4/3+1 {
		capacity <<= 1
	}
	x := &AddrIndex{
		keys: make([]uint64, capacity),
		vals: make([]ObjectID, capacity),
		mask: capacity - 1,
		seed: rand.Uint64(),
	}
	for i := range x.vals {
		x.vals[i] = None
	}
	probes := 0
	for i, a := range addrs {
		h := mix(a^x.seed) & x.mask
		for {
			probes++
			if x.vals[h] == None {
				x.keys[h], x.vals[h] = a, ObjectID(i)
				break
			}
			if x.keys[h] == a {
				x.dups++
				break
			}
			h = (h + 1) & x.mask
		}
	}
	x.probes = probes
	return x
}

// Lookup returns the object at address a.
func (x *AddrIndex) Lookup(a uint64) (ObjectID, bool) {
	h := mix(a^x.seed) & x.mask
	for {
		v := x.vals[h]
		if v == None {
			return None, false
		}
		if x.keys[h] == a {
			return v, true
		}
		h = (h + 1) & x.mask
	}
}

// Duplicates returns how many addresses were indexed more than once.
func (x *AddrIndex) Duplicates() int { return x.dups }

// mix is the finalizer of SplitMix64 (Steele, Lea, Flood: "Fast
// splittable pseudorandom number generators", OOPSLA 2014): addresses are
// aligned and clustered, so their low bits alone hash badly.
func mix(z uint64) uint64 {
	z ^= z >> 30
	z *= 0xbf58476d1ce4e5b9
	z ^= z >> 27
	z *= 0x94d049bb133111eb
	z ^= z >> 31
	return z
}
