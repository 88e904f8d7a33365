package pysnap_test

import (
	"bytes"
	"encoding/binary"
	"errors"
	"hash/crc32"
	"io"
	"testing"

	"github.com/heapscope/heapscope/internal/heaptest"
	"github.com/heapscope/heapscope/pysnap"
)

// FuzzRead feeds arbitrary bytes to the reader. It must never panic, and
// a graph it returns must be valid. The fuzzer rewrites the checksum of
// its inputs, so that mutations reach the section decoders instead of all
// stopping at the checksum test.
func FuzzRead(f *testing.F) {
	g := heaptest.MustParse(f, sample)
	for _, chunk := range []int{0, 1, 4} {
		f.Add(encode(f, g, chunk))
	}
	f.Add([]byte(pysnap.Magic))
	f.Add(pysnap.ManyValues(f, 300, 40))
	f.Add(pysnap.ManyValues(f, 0, 0))
	// LIMITS (1.3) after END's objects, for an object and for none.
	f.Add(withSection(encode(f, g, 0), 12, 2, u64s(g.Addr(0), 0xdead0, 7, 100000)))
	f.Fuzz(func(t *testing.T, p []byte) {
		fixChecksum(p)
		g, err := pysnap.Read(bytes.NewReader(p), int64(len(p)))
		if err != nil {
			var fe *pysnap.FormatError
			if g != nil || (!errors.As(err, &fe) && !errors.Is(err, pysnap.ErrFormat) && !errors.Is(err, io.ErrUnexpectedEOF)) {
				t.Fatalf("Read: %v (graph %v)", err, g != nil)
			}
			return
		}
		if err := g.Validate(); err != nil {
			t.Fatalf("Validate: %v", err)
		}
	})
}

// fixChecksum makes the CRC in a trailer at the very end agree with the
// bytes before it, when the input ends with something shaped like END.
func fixChecksum(p []byte) {
	const tail = 16 + 32
	if len(p) < tail || string(p[len(p)-4:]) != "HEND" {
		return
	}
	crc := crc32.ChecksumIEEE(p[:len(p)-tail])
	binary.LittleEndian.PutUint32(p[len(p)-8:], crc)
}
