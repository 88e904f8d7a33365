//go:build !linux

package main

import "time"

// usage is unknown here: see usage_linux.go.
func usage() (time.Duration, int64) { return 0, 0 }
