package hprof

import (
	"math/rand"
	"testing"
)

func TestAddrIndex(t *testing.T) {
	r := rand.New(rand.NewSource(1))
	for _, tc := range []struct {
		name  string
		addrs func() []uint64
	}{
		{"sorted", func() []uint64 { return []uint64{8, 16, 24, 40, 48} }},
		{"mirrors first", func() []uint64 {
			a := []uint64{0x9000, 0x100, 0x5000}
			for i := 0; i < 10000; i++ {
				a = append(a, 0x200+uint64(i)*16)
			}
			return a
		}},
		{"two runs and duplicates", func() []uint64 {
			var a []uint64
			for i := 0; i < 6000; i++ {
				a = append(a, 1<<40+uint64(i)*24)
			}
			for i := 0; i < 6000; i++ {
				a = append(a, 1<<20+uint64(i)*8)
			}
			return append(a, 1<<20, 1<<40)
		}},
		{"random", func() []uint64 {
			a := make([]uint64, 20000)
			for i := range a {
				a[i] = uint64(r.Int63n(1<<36)) &^ 7
			}
			return a
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			addrs := tc.addrs()
			want := map[uint64]uint32{}
			for i, a := range addrs {
				if _, ok := want[a]; !ok {
					want[a] = uint32(i)
				}
			}
			var l addrList
			for _, a := range addrs {
				l.add(a)
			}
			x := newAddrIndex(&l)
			for a, id := range want {
				if got, ok := x.lookup(a); !ok || got != id {
					t.Fatalf("lookup(%#x) = %d, %v; want %d", a, got, ok, id)
				}
				if _, ok := want[a+1]; !ok {
					if _, ok := x.lookup(a + 1); ok {
						t.Fatalf("lookup(%#x) found an object", a+1)
					}
				}
			}
			if x.dups != len(addrs)-len(want) {
				t.Errorf("dups = %d, want %d", x.dups, len(addrs)-len(want))
			}
		})
	}
}
