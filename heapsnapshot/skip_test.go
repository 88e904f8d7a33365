package heapsnapshot

import (
	"path/filepath"
	"testing"

	"github.com/heapscope/heapscope/heap"
)

// sameObjects reports the first object whose type, size, id, name,
// value, digest or flags differ between two readings of one snapshot,
// and a difference of roots.
func sameObjects(t *testing.T, what string, a, b *heap.Graph) {
	t.Helper()
	if a.NumObjects() != b.NumObjects() {
		t.Fatalf("%s: %d objects, want %d", what, b.NumObjects(), a.NumObjects())
	}
	for id := range a.Objects() {
		an, _ := a.Name(id)
		bn, _ := b.Name(id)
		av, _ := a.Value(id)
		bv, _ := b.Value(id)
		ad, _ := a.Digest(id)
		bd, _ := b.Digest(id)
		if a.Addr(id) != b.Addr(id) || a.Size(id) != b.Size(id) || a.TypeName(a.Type(id)) != b.TypeName(b.Type(id)) ||
			an != bn || av != bv || ad != bd || a.Flags(id) != b.Flags(id) {
			t.Fatalf("%s: object %d is @%d %s %d %q %q, want @%d %s %d %q %q", what, id,
				b.Addr(id), b.TypeName(b.Type(id)), b.Size(id), bn, bv, a.Addr(id), a.TypeName(a.Type(id)), a.Size(id), an, av)
		}
	}
	if len(a.Roots()) != len(b.Roots()) || (len(a.Roots()) > 0 && a.Roots()[0] != b.Roots()[0]) {
		t.Fatalf("%s: roots %v, want %v", what, b.Roots(), a.Roots())
	}
}

// TestSkipEdges: read with SkipEdges, a real Node snapshot (and the
// hand-made ones) keeps every object as it is, with no edge.
func TestSkipEdges(t *testing.T) {
	s1, _ := nodeSnapshots(t)
	for _, path := range []string{s1, filepath.Join("testdata", "tiny.heapsnapshot"), filepath.Join("testdata", "tiny-nodetach.heapsnapshot")} {
		full, err := Open(path)
		if err != nil {
			t.Fatal(err)
		}
		skip, err := Options{SkipEdges: true}.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		if !skip.EdgesSkipped() || skip.NumEdges() != 0 || full.EdgesSkipped() {
			t.Errorf("%s: with SkipEdges %d edges, skipped %v; without, skipped %v", path, skip.NumEdges(), skip.EdgesSkipped(), full.EdgesSkipped())
		}
		sameObjects(t, path, full, skip)
	}
}
