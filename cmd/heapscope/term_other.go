//go:build !(linux || darwin || freebsd || netbsd || openbsd || dragonfly)

package main

import "os"

// terminalWidth returns 0: the width of a terminal is not known here.
func terminalWidth(f *os.File) int { return 0 }

// inTerminalForeground returns false: it cannot be told here.
func inTerminalForeground() bool { return false }
