//go:build !linux

package crash

// Elsewhere than on Linux heapscope runs each command in its own process:
// a Go runtime fatal error (out of memory) exits with status 2 there.

// Supervise returns false: the command runs in this process.
func Supervise() (int, bool) { return 0, false }

// Note does nothing.
func Note(doing string) {}

// FailWith does nothing.
func FailWith(code int) {}

// Leave returns code.
func Leave(code int) int { return code }
