package main

import (
	"bytes"
	"flag"
	"os"
	"strconv"

	"github.com/heapscope/heapscope/internal/spill"
)

// memoryFlag is --max-memory: the memory budget of reading and analysing
// snapshots, in bytes (0: not given, the default applies). Past it, the
// graph's large arrays go to memory-mapped temporary files (package
// spill), so that a dump larger than memory opens, slower, with the same
// answers.
type memoryFlag int64

func (m *memoryFlag) register(fs *flag.FlagSet) {
	fs.Var(m, "max-memory", "keep to about `SIZE` bytes of memory (suffixes K, M, G): past it, the graph's large arrays go to memory-mapped files in the temporary directory (TMPDIR), slower, same answers (default: 3/4 of the machine's memory, or of the cgroup's limit)")
}

func (m *memoryFlag) String() string {
	if m == nil || *m == 0 {
		return ""
	}
	return strconv.FormatInt(int64(*m), 10)
}

func (m *memoryFlag) Set(s string) error {
	n, err := parseLimit(s)
	*m = memoryFlag(n)
	return err
}

// apply makes the flag's budget, or the default, the process's: it is
// called before each snapshot is read, so that the last command's
// budget holds for its reading and its analyses.
func (m memoryFlag) apply() {
	if m > 0 {
		spill.SetLimit(int64(m))
		return
	}
	spill.SetLimit(defaultMemory())
}

// defaultMemory is --max-memory's default: 3/4 of the memory this
// process may use, the machine's (MemTotal) or its cgroup's limit
// (memory.max, or version 1's memory.limit_in_bytes), whichever is less;
// 0 (no budget) when neither is known.
func defaultMemory() int64 {
	var total int64
	if b, err := os.ReadFile("/proc/meminfo"); err == nil {
		for _, line := range bytes.Split(b, []byte("\n")) {
			if f := bytes.Fields(line); len(f) >= 2 && string(f[0]) == "MemTotal:" {
				kb, _ := strconv.ParseInt(string(f[1]), 10, 64)
				total = kb << 10
			}
		}
	}
	for _, path := range []string{"/sys/fs/cgroup/memory.max", "/sys/fs/cgroup/memory/memory.limit_in_bytes"} {
		b, err := os.ReadFile(path)
		if err != nil {
			continue
		}
		if n, err := strconv.ParseInt(string(bytes.TrimSpace(b)), 10, 64); err == nil && n > 0 && (total == 0 || n < total) {
			total = n
		}
	}
	return total / 4 * 3
}
