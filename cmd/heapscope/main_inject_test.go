package main

import (
	"os"
	"testing"

	"github.com/heapscope/heapscope/capture/attach"
)

// TestMain lets the test binary be an injector, as heapscope's main
// does: the tests that run snapshot --python in this process start
// copies of it to make the calls into the Python process.
func TestMain(m *testing.M) {
	if code, ok := attach.Injector(); ok {
		os.Exit(code)
	}
	os.Exit(m.Run())
}
