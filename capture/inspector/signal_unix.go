//go:build unix

package inspector

import (
	"fmt"
	"syscall"
)

// signalInspector asks Node to open its inspector.
func signalInspector(pid int) error {
	if pid <= 0 {
		return fmt.Errorf("inspector: bad pid %d", pid)
	}
	if err := syscall.Kill(pid, syscall.SIGUSR1); err != nil {
		return fmt.Errorf("inspector: signal process %d: %w", pid, err)
	}
	return nil
}
