package pysnap_test

import (
	"encoding/binary"
	"errors"
	"hash/crc32"
	"strings"
	"testing"

	"github.com/heapscope/heapscope/internal/heaptest"
	"github.com/heapscope/heapscope/pysnap"
)

// withSection inserts a section before the END trailer of the snapshot
// p and fixes the trailer's section count and checksum.
func withSection(p []byte, kind, count uint32, payload []byte) []byte {
	le := binary.LittleEndian
	const tail = 16 + 32
	out := append([]byte{}, p[:len(p)-tail]...)
	out = le.AppendUint32(out, kind)
	out = le.AppendUint32(out, count)
	out = le.AppendUint64(out, uint64(len(payload)))
	out = append(out, payload...)
	end := append([]byte{}, p[len(p)-tail:]...)
	le.PutUint64(end[16+16:], le.Uint64(end[16+16:])+1)
	le.PutUint32(end[16+24:], crc32.ChecksumIEEE(out))
	return append(out, end...)
}

func u32s(v ...uint32) []byte {
	var b []byte
	for _, x := range v {
		b = binary.LittleEndian.AppendUint32(b, x)
	}
	return b
}

// TestSitesRoundTrip: sites survive a trip through the format, and a
// graph without sites writes none.
func TestSitesRoundTrip(t *testing.T) {
	g := heaptest.MustParse(t, sample)
	got, err := read(encode(t, g, 2))
	if err != nil {
		t.Fatal(err)
	}
	if !got.HasSites() || heaptest.StackText(got, got.Site(4)) != "handle@app.py:12 app.py:40" {
		t.Errorf("sites: %v %q", got.HasSites(), heaptest.StackText(got, got.Site(4)))
	}
	plain := heaptest.MustParse(t, "a dict 10\nroot module a m\n")
	got, err = read(encode(t, plain, 0))
	if err != nil || got.HasSites() {
		t.Errorf("a graph without sites: %v, HasSites %v", err, got.HasSites())
	}
}

// TestSitesHostile: site sections that do not add up are rejected with
// the offset, never trusted.
func TestSitesHostile(t *testing.T) {
	base := encode(t, heaptest.MustParse(t, "a dict 10\nroot module a m\n"), 0)
	addr := binary.LittleEndian.AppendUint64(nil, 0x1000)
	for _, tc := range []struct {
		name    string
		p       []byte
		wantErr string
	}{
		{"short sites", withSection(base, 9, 2, u32s(0, 0, 0, 0)), "2 sites need 32 bytes"},
		{"caller not yet defined", withSection(base, 9, 1, u32s(1, 0, 0, 7)), "not a site defined before it"},
		{"file out of range", withSection(base, 9, 1, u32s(0, 999, 0, 7)), "names string 999"},
		{"object site out of range", withSection(base, 10, 1, append(addr, u32s(5, 0)...)), "site 5, only 1 defined"},
		{"short object sites", withSection(base, 10, 3, addr), "3 object sites need"},
	} {
		_, err := read(tc.p)
		var fe *pysnap.FormatError
		if err == nil || !errors.As(err, &fe) || !strings.Contains(err.Error(), tc.wantErr) || !strings.Contains(err.Error(), "offset") {
			t.Errorf("%s: %v, want a FormatError with %q", tc.name, err, tc.wantErr)
		}
	}
	// Well-formed sections, one object site by an address no object has.
	p := withSection(base, 9, 1, u32s(0, 0, 0, 7))
	p = withSection(p, 10, 2, append(append(addr, binary.LittleEndian.AppendUint64(nil, 0xdead)...), u32s(1, 1)...))
	g, err := read(p)
	if err != nil {
		t.Fatal(err)
	}
	if err := g.Validate(); err != nil || !g.HasSites() || g.SiteFrame(g.Site(0)).Line != 7 {
		t.Errorf("Validate %v, HasSites %v, line %d", err, g.HasSites(), g.SiteFrame(g.Site(0)).Line)
	}
}
