// Command heapscope finds memory leaks in heap snapshots of Python, Java
// and Node programs. See doc.go for its usage.
package main

import (
	"errors"
	"fmt"
	"os"

	"github.com/heapscope/heapscope/capture/attach"
	"github.com/heapscope/heapscope/internal/crash"
)

func main() {
	// A copy of heapscope that makes the calls into a Python process
	// snapshot --python attaches to (capture/attach).
	if code, ok := attach.Injector(); ok {
		os.Exit(code)
	}
	// The process a user starts waits for a copy of itself that runs
	// the command, so that a crash exits 1, not 2 (internal/crash).
	if code, ok := crash.Supervise(); ok {
		os.Exit(code)
	}
	err := run(os.Args[1:], os.Stdout, os.Stderr)
	os.Exit(crash.Leave(exitCode(err)))
}

// exitCode prints err once, with the program's name, and returns the exit
// status: 0 ok, 1 failure, 2 misuse.
func exitCode(err error) int {
	if err == nil {
		return 0
	}
	var ee *exitError
	if errors.As(err, &ee) {
		if ee.msg != "" {
			fmt.Fprintln(os.Stderr, "heapscope: "+ee.msg)
		}
		return ee.code
	}
	fmt.Fprintln(os.Stderr, "heapscope: "+err.Error())
	var ue *usageError
	if errors.As(err, &ue) {
		fmt.Fprintln(os.Stderr, "run 'heapscope help' for usage")
		return 2
	}
	return 1
}
