//go:build linux

package main

import (
	"syscall"
	"time"
)

// usage returns the CPU time (user and system) this process has used,
// and its peak resident set in bytes (0 when unknown).
func usage() (time.Duration, int64) {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0, 0
	}
	cpu := time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
	return cpu, int64(ru.Maxrss) * 1024 // kilobytes on Linux
}
