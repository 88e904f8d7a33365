package heapsnapshot

import (
	"bytes"
	"errors"
	"fmt"
	"runtime"
	"strings"
	"testing"

	"github.com/heapscope/heapscope/heap"
)

// edgeNameBomb is a snapshot of a few hundred bytes whose one node
// declares 2^32-2 edges and whose one edge names string 2^32-6: a
// reader that bounds string indices by the declared edge count allocates
// 4 GB for it before it finds that the edges are missing.
func edgeNameBomb() []byte {
	return []byte(`{"snapshot":{"meta":{"node_fields":["type","name","id","self_size","edge_count"],` +
		`"node_types":[["hidden","object"],"string","number","number","number"],` +
		`"edge_fields":["type","name_or_index","to_node"],"edge_types":[["property"],"string_or_number","node"]}},` +
		`"nodes":[1,0,1,0,4294967294],"edges":[0,4294967290,0],"strings":["a"]}`)
}

// allocated returns the bytes allocated while fn runs.
func allocated(fn func()) uint64 {
	var m0, m1 runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&m0)
	fn()
	runtime.ReadMemStats(&m1)
	return m1.TotalAlloc - m0.TotalAlloc
}

// TestEdgeNameBomb reads the bomb: an error, and no more memory than the
// reader's fixed buffers (it used to allocate 4.3 GB).
func TestEdgeNameBomb(t *testing.T) {
	b := edgeNameBomb()
	var err error
	alloc := allocated(func() { _, err = Read(bytes.NewReader(b)) })
	var fe *FormatError
	if !errors.As(err, &fe) {
		t.Fatalf("Read(bomb) = %v, want a *FormatError", err)
	}
	if alloc > 16<<20 {
		t.Errorf("Read(%d-byte bomb) allocated %d MB", len(b), alloc>>20)
	}
}

// TestLateEdgeNames reads edges that name strings beyond the bound the
// reader keeps while it reads them (as a writer that numbers strings in
// another order than V8 might): they are checked and named once all
// edges are read.
func TestLateEdgeNames(t *testing.T) {
	const nedges, far = 10000, 80000
	var sb strings.Builder
	sb.WriteString(`{"snapshot":{"meta":{"node_fields":["type","name","id","self_size","edge_count"],` +
		`"node_types":[["hidden","object"],"string","number","number","number"],` +
		`"edge_fields":["type","name_or_index","to_node"],"edge_types":[["property","element"],"string_or_number","node"]}},`)
	fmt.Fprintf(&sb, `"nodes":[1,1,1,8,%d],"edges":[0,%d,0`, nedges, far)
	for i := 1; i < nedges; i++ {
		fmt.Fprintf(&sb, ",1,%d,0", i)
	}
	sb.WriteString(`],"strings":["", "self"`)
	for i := 2; i < far; i++ {
		sb.WriteString(`,""`)
	}
	sb.WriteString(`,"far"]}`)
	g, err := Read(strings.NewReader(sb.String()))
	if err != nil {
		t.Fatal(err)
	}
	es := g.Edges(0)
	if len(es) != nedges || g.EdgeName(es[0].Label) != "far" {
		t.Errorf("%d edges, the first named %q; want %d, \"far\"", len(es), g.EdgeName(es[0].Label), nedges)
	}
}

// TestNoNodes reads a snapshot without nodes: an error wrapping
// heap.ErrNoObjects.
func TestNoNodes(t *testing.T) {
	s := &tsnap{}
	_, err := Read(bytes.NewReader(s.bytes()))
	var fe *FormatError
	if !errors.As(err, &fe) || !errors.Is(err, heap.ErrNoObjects) {
		t.Errorf("Read(no nodes) = %v, want a *FormatError wrapping heap.ErrNoObjects", err)
	}
}
