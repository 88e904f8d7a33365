package crash

import "syscall"

// IsCrash reports whether s is the signal of a crash rather than of
// someone who asked the program to end.
func IsCrash(s syscall.Signal) bool {
	switch s {
	case syscall.SIGSEGV, syscall.SIGBUS, syscall.SIGILL, syscall.SIGFPE, syscall.SIGABRT, syscall.SIGTRAP, syscall.SIGSYS:
		return true
	}
	return false
}
