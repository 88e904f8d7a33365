//go:build unix

package attach

import (
	"io/fs"
	"os"
	"os/exec"
	"syscall"
)

// ownerOf returns the user and group that own the file fi describes.
func ownerOf(fi fs.FileInfo) (uid, gid int, ok bool) {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return 0, 0, false
	}
	return int(st.Uid), int(st.Gid), true
}

// openNoFollow opens path for reading unless it is a symbolic link.
func openNoFollow(path string) (*os.File, error) {
	return os.OpenFile(path, os.O_RDONLY|syscall.O_NOFOLLOW, 0)
}

// ownGroup runs cmd in a process group of its own, so that a Ctrl-C at
// the terminal reaches heapscope alone, which decides when gdb may stop.
func ownGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
}

// interruptGroup sends SIGINT to the process group of cmd.
func interruptGroup(cmd *exec.Cmd) {
	syscall.Kill(-cmd.Process.Pid, syscall.SIGINT)
}

// resume sends SIGCONT to pid.
func resume(pid int) error { return syscall.Kill(pid, syscall.SIGCONT) }
