package pysnap

import (
	"bytes"
	"encoding/binary"
	"errors"
	"hash/crc32"
	"testing"

	"github.com/heapscope/heapscope/heap"
)

// manyValues returns a snapshot of one OBJECTS section of n objects
// followed by k VALUES sections of one value each, for an address that
// is in no OBJECTS section: a reader that walks the whole chunk for each
// section's address before it gives up does n x k steps.
func manyValues(t testing.TB, n, k int) []byte {
	b := heap.NewBuilder(heap.ByID)
	typ := b.Type("str")
	for i := 0; i < n; i++ {
		b.Object(0x1000+16*uint64(i), typ, 50)
	}
	b.Root(heap.RootModule, 0, b.String("m"))
	g, err := b.Build()
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := Write(&buf, g, 0); err != nil {
		t.Fatal(err)
	}
	p := buf.Bytes()
	end := p[len(p)-endSize:]
	objects, edges, sections := binary.LittleEndian.Uint64(end), binary.LittleEndian.Uint64(end[8:]), binary.LittleEndian.Uint64(end[16:])
	out := bytes.Clone(p[:len(p)-endSize-sectionHead])
	le := binary.LittleEndian
	for i := 0; i < k; i++ {
		out = le.AppendUint32(out, secValues)
		out = le.AppendUint32(out, 1)
		out = le.AppendUint64(out, 8+4+1)
		out = le.AppendUint64(out, 0xdead0000+8*uint64(i))
		out = le.AppendUint32(out, 1)
		out = append(out, 'v')
	}
	crc := crc32.ChecksumIEEE(out)
	out = le.AppendUint32(out, secEnd)
	out = le.AppendUint32(out, 0)
	out = le.AppendUint64(out, endSize)
	out = le.AppendUint64(out, objects)
	out = le.AppendUint64(out, edges)
	out = le.AppendUint64(out, sections+uint64(k))
	out = le.AppendUint32(out, crc)
	return append(out, endMagic...)
}

// TestManyValueSections reads many VALUES sections after one big OBJECTS
// section: the objects the reader steps over to place their values stay
// in proportion to the sections, not to sections x objects.
func TestManyValueSections(t *testing.T) {
	const n, k = 100000, 20000
	p := manyValues(t, n, k)
	rd := newReader(bytes.NewReader(p), int64(len(p)))
	g, err := rd.readAll(bytes.NewReader(p))
	if err != nil {
		t.Fatal(err)
	}
	if g.NumObjects() != n {
		t.Errorf("%d objects, want %d", g.NumObjects(), n)
	}
	if limit := k * (matchSteps + matchSlack); rd.matched > limit {
		t.Errorf("stepped over %d objects for %d values, more than %d", rd.matched, k, limit)
	}
}

// TestNoObjects reads a whole snapshot that holds no object: an error
// wrapping heap.ErrNoObjects.
func TestNoObjects(t *testing.T) {
	p := manyValues(t, 0, 0)
	g, err := Read(bytes.NewReader(p), int64(len(p)))
	var fe *FormatError
	if g != nil || !errors.As(err, &fe) || !errors.Is(err, heap.ErrNoObjects) {
		t.Errorf("Read(no objects) = %v, want a *FormatError wrapping heap.ErrNoObjects", err)
	}
}

// ManyValues is manyValues for the fuzz target, in package pysnap_test.
var ManyValues = manyValues
