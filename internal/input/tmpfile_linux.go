package input

import (
	"os"
	"syscall"
)

// oTmpfile is Linux's O_TMPFILE (__O_TMPFILE | O_DIRECTORY), which the
// syscall package does not define: a file in the directory that never
// has a name (open(2)).
const oTmpfile = 0x400000 | syscall.O_DIRECTORY

// createUnnamed creates a file that has no name in dir, with O_TMPFILE,
// and reports false when the file system cannot.
func createUnnamed(dir string) (*os.File, bool) {
	f, err := os.OpenFile(dir, os.O_RDWR|oTmpfile|syscall.O_CLOEXEC, 0o600)
	if err != nil {
		return nil, false
	}
	return f, true
}
