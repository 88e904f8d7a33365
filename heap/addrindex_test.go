package heap

import "testing"

// unmix inverts mix, a bijection: each xor-shift is undone by repeating
// it, each multiplication by the inverse of its odd factor.
func unmix(z uint64) uint64 {
	unshift := func(y uint64, s uint) uint64 {
		x := y
		for i := 0; i < 64/int(s)+1; i++ {
			x = y ^ x>>s
		}
		return x
	}
	inverse := func(a uint64) uint64 { // Newton: x = x(2 - ax) doubles the good bits
		x := a
		for range 6 {
			x *= 2 - a*x
		}
		return x
	}
	z = unshift(z, 31)
	z *= inverse(0x94d049bb133111eb)
	z = unshift(z, 27)
	z *= inverse(0xbf58476d1ce4e5b9)
	return unshift(z, 30)
}

// TestAddrIndexCollisions indexes addresses chosen so that an unseeded
// hash sends them all to one slot: building the index would look at
// n^2/2 slots. With the seed it looks at a few per address.
func TestAddrIndexCollisions(t *testing.T) {
	const n = 20000
	addrs := make([]uint64, n)
	for i := range addrs {
		addrs[i] = unmix(uint64(i+1) << 40)
		if mix(addrs[i]) != uint64(i+1)<<40 {
			t.Fatalf("unmix does not invert mix")
		}
	}
	x := NewAddrIndex(addrs)
	if x.probes > 8*n {
		t.Errorf("%d slots looked at to index %d addresses", x.probes, n)
	}
	for i, a := range addrs {
		if id, ok := x.Lookup(a); !ok || id != ObjectID(i) {
			t.Fatalf("Lookup(%#x) = %d, %v; want %d", a, id, ok, i)
		}
	}
	if _, ok := x.Lookup(12345); ok {
		t.Error("Lookup(12345) found an object")
	}
}
