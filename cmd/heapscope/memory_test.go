package main

import (
	"bytes"
	"strings"
	"testing"

	"github.com/heapscope/heapscope/internal/spill"
)

// TestMaxMemory reads the real leaky programs' snapshots (a JVM's HPROF
// dumps, Node's and Python's snapshots) with a --max-memory so small
// that every array spill takes goes to a memory-mapped file, and checks
// that top and leaks, text and JSON, print byte for byte what they print
// without it, and that arrays did go to files (spill's count of bytes
// mapped grew). It is not parallel: the budget is the process's, and
// another test reading a snapshot meanwhile would set its own.
func TestMaxMemory(t *testing.T) {
	for _, rt := range []string{"java", "node", "python"} {
		t.Run(rt, func(t *testing.T) {
			snaps := leakySnapshots(t, rt)
			for _, args := range [][]string{
				{"top", snaps[2]},
				{"top", "--json", snaps[2]},
				{"leaks", snaps[0], snaps[1], snaps[2]},
				{"leaks", "--json", snaps[0], snaps[1], snaps[2]},
			} {
				want := runText(t, args...)
				before := spill.Spilled()
				got := runText(t, append([]string{args[0], "--max-memory", "1M"}, args[1:]...)...)
				spilled := spill.Spilled() - before
				if spilled == 0 {
					t.Errorf("%s with --max-memory 1M put no array in a file", strings.Join(args, " "))
				}
				if got != want {
					t.Errorf("%s with --max-memory 1M (%d bytes of arrays in files) prints otherwise than without:\n%s\nwithout:\n%s",
						strings.Join(args, " "), spilled, got, want)
				}
			}
		})
	}
	// The next command sets its own budget; none meanwhile.
	spill.SetLimit(0)
}

// TestMaxMemoryMisuse: a size that is no size, or 0, is misuse (exit
// 2), said as such, on every command that reads snapshots.
func TestMaxMemoryMisuse(t *testing.T) {
	for _, c := range []struct{ value, says string }{
		{"abc", `invalid value "abc" for flag -max-memory: bad size "abc"`},
		{"0", `invalid value "0" for flag -max-memory: want more than 0 bytes`},
		{"-1G", `invalid value "-1G" for flag -max-memory: bad size "-1"`},
	} {
		for _, cmd := range []string{"top", "summary", "leaks", "diff", "trend", "why", "check", "web"} {
			var stdout, stderr bytes.Buffer
			err := run([]string{cmd, "--max-memory", c.value, "testdata/rich.pysnap"}, &stdout, &stderr)
			if exitCode(err) != 2 {
				t.Errorf("%s --max-memory %s: %v, want a usage error (exit 2)", cmd, c.value, err)
				continue
			}
			if msg := err.Error() + stderr.String(); !strings.Contains(msg, c.says) {
				t.Errorf("%s --max-memory %s says %q, want %q", cmd, c.value, msg, c.says)
			}
		}
	}
}
