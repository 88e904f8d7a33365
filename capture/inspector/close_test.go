package inspector

import (
	"bytes"
	"context"
	"errors"
	"io"
	"slices"
	"testing"
	"time"
)

// TestSnapshotCloses checks that the inspector Snapshot opens is closed
// when it returns, and opens again for the next capture.
func TestSnapshotCloses(t *testing.T) {
	cmd, _ := startNode(t, "--inspect-port=0")
	pid := cmd.Process.Pid
	for i := 0; i < 2; i++ {
		var buf bytes.Buffer
		if err := Snapshot(testCtx(t), pid, &buf, Options{}); err != nil {
			t.Fatalf("Snapshot() #%d = %v", i+1, err)
		}
		checkSnapshot(t, buf.Bytes())
		assertClosed(t, pid, nil)
	}
}

// TestSnapshotLeavesUserInspector checks that an inspector the user
// opened (node --inspect) stays open after a capture.
func TestSnapshotLeavesUserInspector(t *testing.T) {
	cmd, u := startInspected(t)
	before, ok := ListeningPorts(cmd.Process.Pid)
	if !ok || len(before) != 1 {
		t.Skipf("cannot see the inspector's port: %v %v", before, ok)
	}
	var buf bytes.Buffer
	if err := Snapshot(testCtx(t), cmd.Process.Pid, &buf, Options{}); err != nil {
		t.Fatalf("Snapshot() = %v", err)
	}
	checkSnapshot(t, buf.Bytes())
	after, _ := ListeningPorts(cmd.Process.Pid)
	if !slices.Equal(before, after) {
		t.Errorf("ports %v after the capture, want %v as before", after, before)
	}
	buf.Reset()
	if err := SnapshotURL(testCtx(t), u, &buf, Options{}); err != nil {
		t.Fatalf("SnapshotURL() after the capture = %v", err)
	}
}

// testCtx bounds a test's capture: generously, as the machine may be
// busy (a snapshot of a large heap takes minutes there).
func testCtx(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	t.Cleanup(cancel)
	return ctx
}

// bigHeapJS holds 200,000 objects, so that a snapshot streams for a
// while.
const bigHeapJS = `
class Big { constructor(i) { this.i = i; this.s = 'item' + i; } }
globalThis.keep = [];
for (let i = 0; i < 200000; i++) globalThis.keep.push(new Big(i));
setInterval(() => {}, 1000);
console.log('ready');
`

// cancelOnWrite cancels a context at its first write (a capture
// interrupted while the snapshot streams) and counts the writes.
type cancelOnWrite struct {
	cancel context.CancelFunc
	writes int
}

func (c *cancelOnWrite) Write(p []byte) (int, error) {
	c.cancel()
	c.writes++
	return len(p), nil
}

// failingWriter fails every write, as a full disk does.
type failingWriter struct{ writes int }

var errDiskFull = errors.New("no space left on device")

func (f *failingWriter) Write(p []byte) (int, error) {
	f.writes++
	return 0, errDiskFull
}

// TestSnapshotCancelled cancels a capture while the snapshot streams,
// then fails one as a full disk would: Snapshot returns the cancellation
// or the write's error, nothing more is written after it, the inspector
// is closed, and the process still runs (a later capture works). Node
// is left to finish the snapshot it writes: it may crash if the
// connection closes during one.
func TestSnapshotCancelled(t *testing.T) {
	cmd, _ := startNodeJS(t, bigHeapJS, "--inspect-port=0")
	for round := 0; round < 2; round++ {
		ctx, cancel := context.WithCancel(testCtx(t))
		w := &cancelOnWrite{cancel: cancel}
		err := Snapshot(ctx, cmd.Process.Pid, w, Options{})
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("Snapshot() = %v, want context.Canceled", err)
		}
		var ce *CloseError
		if errors.As(err, &ce) {
			t.Fatalf("Snapshot() = %v: the inspector was not closed", err)
		}
		if w.writes != 1 {
			t.Errorf("%d writes after the one that cancelled, want none", w.writes-1)
		}
		assertClosed(t, cmd.Process.Pid, nil)

		f := &failingWriter{}
		if err := Snapshot(testCtx(t), cmd.Process.Pid, f, Options{NoValues: round == 1}); !errors.Is(err, errDiskFull) || f.writes != 1 {
			t.Fatalf("Snapshot() into a full disk = %v after %d writes, want %v after 1", err, f.writes, errDiskFull)
		}
		assertClosed(t, cmd.Process.Pid, nil)
	}
	if err := Snapshot(testCtx(t), cmd.Process.Pid, io.Discard, Options{}); err != nil {
		t.Fatalf("Snapshot() after the cancelled ones = %v", err)
	}
	assertClosed(t, cmd.Process.Pid, nil)
}

// TestCloseBeforeFound covers a capture that ends after the signal but
// before it found the inspector (a timeout, an interrupt): close finds
// the inspector that opened meanwhile and closes it.
func TestCloseBeforeFound(t *testing.T) {
	cmd, _ := startNode(t, "--inspect-port=0")
	c := &attempt{pid: cmd.Process.Pid}
	c.conf, _ = portFromArgs(nodeArgs(c.pid))
	c.before, c.procOK = ListeningPorts(c.pid)
	if !c.procOK {
		t.Skip("no /proc")
	}
	if err := signalInspector(c.pid); err != nil {
		t.Fatal(err)
	}
	c.signaled = true
	ctx, cancel := context.WithTimeout(testCtx(t), 10*time.Minute)
	defer cancel()
	if err := c.close(ctx); err != nil {
		t.Fatalf("close() = %v", err)
	}
	if c.port == 0 {
		t.Fatalf("close() found no port")
	}
	assertClosed(t, c.pid, nil)
}
