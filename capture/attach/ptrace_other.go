//go:build !(linux && amd64)

package attach

import (
	"errors"
	"time"
)

// ownCalls says whether heapscope can make the calls into a process
// itself (injectHere) on this system: on Linux on x86-64 only.
const ownCalls = false

// injectHere is not called here (ownCalls); it leaves the process
// untouched, for gdb.
func injectHere(p *Process, boot []byte, patience time.Duration) (time.Duration, error) {
	return 0, &untouched{errors.New("heapscope calls into a process itself on Linux on x86-64 only")}
}
