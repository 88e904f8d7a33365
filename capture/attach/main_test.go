package attach

import (
	"os"
	"testing"
)

// TestMain lets the test binary be an injector (see Injector), as
// heapscope's is: Snapshot starts copies of it to make its calls.
func TestMain(m *testing.M) {
	if code, ok := Injector(); ok {
		os.Exit(code)
	}
	os.Exit(m.Run())
}
