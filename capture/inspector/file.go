package inspector

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/heapscope/heapscope/capture"
	"github.com/heapscope/heapscope/heapsnapshot"
)

// SnapshotFile streams a snapshot of the Node process pid into path,
// through a temporary file (mode 0600) in the same directory, so that a
// failed or interrupted capture never leaves a file that looks whole,
// nor the temporary file. A *CloseError alone means the snapshot is
// whole and in place. Leftovers of a heapscope killed before are swept
// from the directory first (capture.Sweep).
func SnapshotFile(ctx context.Context, pid int, path string, opt Options) error {
	capture.Sweep(filepath.Dir(path), false)
	tmp, err := capture.CreateTemp(filepath.Dir(path), ".heapscope-", ".tmp")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	serr := Snapshot(ctx, pid, tmp, opt)
	if _, onlyClose := serr.(*CloseError); serr != nil && !onlyClose {
		tmp.Close()
		if errors.Is(serr, ErrNotNode) {
			return serr // it says which process
		}
		return fmt.Errorf("node %d: %w", pid, serr)
	}
	// Either no error, or only the inspector's close failed (returned
	// as it is): the snapshot is whole.
	if err := tmp.Close(); err != nil {
		return err
	}
	f, err := os.Open(tmp.Name())
	if err != nil {
		return err
	}
	var prefix [64]byte
	n, _ := io.ReadFull(f, prefix[:])
	f.Close()
	if !heapsnapshot.Match(prefix[:n]) {
		return errors.Join(fmt.Errorf("node %d: the inspector sent something that is not a heap snapshot", pid), serr)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return err
	}
	return serr
}
