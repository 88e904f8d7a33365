//go:build !(linux || darwin || freebsd || netbsd || openbsd || dragonfly)

package term

import "os"

// Width returns 0: the width of a terminal is not known here.
func Width(f *os.File) int { return 0 }

// Foreground returns false: it cannot be told here.
func Foreground() bool { return false }
