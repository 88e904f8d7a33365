//go:build !unix

package inspector

import "errors"

// signalInspector is not possible without SIGUSR1.
func signalInspector(pid int) error {
	return errors.New("inspector: opening the inspector of a running process needs SIGUSR1 (Linux, macOS); start node with --inspect and use SnapshotURL")
}
