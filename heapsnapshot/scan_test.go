package heapsnapshot

import (
	"math"
	"math/rand"
	"strconv"
	"strings"
	"testing"
)

// TestRecords checks the number tokenizer against strconv on numbers of
// every length, with the separators V8 and others write, read whole and
// byte by byte.
func TestRecords(t *testing.T) {
	r := rand.New(rand.NewSource(2))
	var want []uint64
	var b strings.Builder
	b.WriteString("[")
	seps := []string{",", ",\n", "\n,", " , ", ",\r\n\t"}
	for i := 0; i < 30000; i++ {
		var v uint64
		switch r.Intn(4) {
		case 0:
			v = uint64(r.Intn(10))
		case 1:
			v = r.Uint64() >> uint(r.Intn(64))
		case 2:
			v = math.MaxUint64 - uint64(r.Intn(3))
		default:
			v = uint64(r.Intn(1e9))
		}
		if i > 0 {
			b.WriteString(seps[r.Intn(len(seps))])
		}
		if r.Intn(20) == 0 {
			b.WriteString("000") // leading zeros
		}
		b.WriteString(strconv.FormatUint(v, 10))
		want = append(want, v)
	}
	b.WriteString("]")
	for _, small := range []bool{false, true} {
		var rd interface{ Read([]byte) (int, error) } = strings.NewReader(b.String())
		if small {
			rd = oneByteReader{rd}
		}
		s := newScanner(rd, -1)
		if err := s.expect('['); err != nil {
			t.Fatal(err)
		}
		var got []uint64
		if err := s.records(3, func(vals []uint64, offs []int64) error {
			got = append(got, vals...)
			return nil
		}); err != nil {
			t.Fatalf("small=%v: %v", small, err)
		}
		if len(got) != len(want) {
			t.Fatalf("small=%v: %d numbers, want %d", small, len(got), len(want))
		}
		for i := range got {
			if got[i] != want[i] {
				t.Fatalf("small=%v: number %d = %d, want %d", small, i, got[i], want[i])
			}
		}
	}
	// Overflow is an error, also when it comes after 8 fast digits.
	for _, in := range []string{"[18446744073709551616]", "[99999999999999999999,1,2]"} {
		s := newScanner(strings.NewReader(in), -1)
		s.expect('[')
		if err := s.records(1, func([]uint64, []int64) error { return nil }); err == nil || !strings.Contains(err.Error(), "64 bits") {
			t.Errorf("records(%s) = %v, want overflow", in, err)
		}
	}
}
