package analyze

import (
	"testing"

	"github.com/heapscope/heapscope/internal/heaptest"
)

// NumPy views refer to the array that owns their buffer through an edge
// named "base". The agent must report the owner's size with its data
// buffer (sys.getsizeof of an owning ndarray includes nbytes; a view's
// does not) and write "base" as a strong edge; then retained sizes give
// the buffer to whoever holds the owner, through the views too.
func TestNumpyBuffers(t *testing.T) {
	g := heaptest.MustParse(t, `
runtime python
root module m app
m module 100 -> .frames=l .scratch=tmp
l list 72 -> [0]=v1 [1]=v2
v1 numpy.ndarray 112 -> base=arr
v2 numpy.ndarray 112 -> base=arr
arr numpy.ndarray 8000112
tmp numpy.ndarray 112 -> base=own
own numpy.ndarray 4000112
`)
	dt := Dominators(g, DomOptions{})
	// The 8 MB owner is held only through the two views in l: l retains it.
	if got, want := dt.Retained(1), uint64(72+112+112+8000112); got != want {
		t.Errorf("Retained(list of views) = %d, want %d", got, want)
	}
	// Neither view alone retains the buffer.
	if dt.Retained(2) != 112 || dt.Idom(4) != 1 {
		t.Errorf("Retained(view) = %d, Idom(owner) = %d", dt.Retained(2), dt.Idom(4))
	}
	// A single view retains its owner's buffer.
	if got := dt.Retained(5); got != 4000224 {
		t.Errorf("Retained(single view) = %d, want 4000224", got)
	}
	var nd TypeStat
	for _, s := range RetainedByType(dt) {
		if s.Name == "numpy.ndarray" {
			nd = s
		}
	}
	// Views and owners are one type. The shared owner's dominator is the
	// list, not an ndarray, so it counts on its own; own is under tmp,
	// so it counts once, in tmp's retained size.
	if nd.Count != 5 || nd.Retained != 112+112+8000112+4000224 {
		t.Errorf("ndarray stats = %+v", nd)
	}
}
