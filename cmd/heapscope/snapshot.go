package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"time"

	"github.com/heapscope/heapscope/heapsnapshot"
	"github.com/heapscope/heapscope/inspector"
)

func runSnapshot(args []string, stdout, stderr io.Writer) error {
	fs := flagSet("snapshot", "--node PID | --java PID", stderr)
	nodePID := fs.Int("node", 0, "take a V8 heap snapshot of the running Node process `PID` (through its inspector, opened with SIGUSR1 on 127.0.0.1)")
	javaPID := fs.Int("java", 0, "take an HPROF dump of the running JVM `PID` (with jcmd GC.heap_dump)")
	out := fs.String("o", "", "write the snapshot to `FILE`")
	timeout := fs.Duration("timeout", 10*time.Minute, "give up after this long")
	if _, err := parse(fs, args, 0, 0); err != nil {
		return err
	}
	if *out == "" {
		return usagef("snapshot needs -o FILE")
	}
	if (*nodePID == 0) == (*javaPID == 0) {
		return usagef("snapshot needs exactly one of --node PID and --java PID")
	}
	ctx, cancel := context.WithTimeout(context.Background(), *timeout)
	defer cancel()
	if *javaPID != 0 {
		abs, err := filepath.Abs(*out)
		if err != nil {
			return err
		}
		cmd := exec.CommandContext(ctx, "jcmd", fmt.Sprint(*javaPID), "GC.heap_dump", abs)
		cmd.Stdout, cmd.Stderr = stderr, stderr
		if err := cmd.Run(); err != nil {
			return fmt.Errorf("jcmd %d GC.heap_dump: %w", *javaPID, err)
		}
		fmt.Fprintf(stdout, "wrote %s\n", *out)
		return nil
	}
	return withProgress(stderr, "taking a heap snapshot of node "+fmt.Sprint(*nodePID), func() error {
		return nodeSnapshot(ctx, *nodePID, *out)
	})
}

// nodeSnapshot streams a snapshot of a Node process into path, through a
// temporary file in the same directory, so that a failed capture never
// leaves a file that looks whole.
func nodeSnapshot(ctx context.Context, pid int, path string) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), ".heapscope-*.tmp")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if err := inspector.Snapshot(ctx, pid, tmp); err != nil {
		tmp.Close()
		return fmt.Errorf("node %d: %w", pid, err)
	}
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
		return fmt.Errorf("node %d: the inspector sent something that is not a heap snapshot", pid)
	}
	return os.Rename(tmp.Name(), path)
}
