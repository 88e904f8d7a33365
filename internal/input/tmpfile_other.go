//go:build !linux

package input

import "os"

// createUnnamed reports false: only Linux has O_TMPFILE.
func createUnnamed(dir string) (*os.File, bool) { return nil, false }
