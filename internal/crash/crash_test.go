//go:build linux

package crash

import "testing"

// TestOutOfMemory classifies crash outputs of the Go runtime (trimmed
// from real ones, as the crash pipe gets them: the "fatal error" line
// goes to standard error only).
func TestOutOfMemory(t *testing.T) {
	tests := []struct{ name, crash, want string }{
		{"throw from the allocator", `
runtime stack:
runtime.throw({0x82e23d?, 0x25b6?})
	/usr/local/go/src/runtime/panic.go:1229 +0x48 fp=0x16d845517dd0 sp=0x16d845517da0 pc=0x483d68
runtime.sysMapOS(0x16d84c400000, 0x1800000, {0x8260ce, 0x4})
	/usr/local/go/src/runtime/mem_linux.go:175 +0x13b fp=0x16d845517e10 sp=0x16d845517dd0 pc=0x42755b

goroutine 1 gp=0x1 m=0 mp=0x2 [running]:
`, "sure"},
		{"throw from a large allocation", `
goroutine 1 gp=0x2262756ce1e0 m=2 mp=0x2262756fe808 [running]:
runtime.throw({0x4c6c27?, 0x2000?})
	/usr/local/go/src/runtime/panic.go:1229 +0x48 fp=0x22627578ada0 sp=0x22627578ad70 pc=0x479548
runtime.(*mcache).allocLarge(0x42b5c0?, 0x4000000, 0x1)
	/usr/local/go/src/runtime/mcache.go:259 +0x18d fp=0x22627578adf0 sp=0x22627578ada0 pc=0x42008d
`, "sure"},
		{"fault in the collector", `SIGSEGV: segmentation violation
PC=0x436f5d m=0 sigcode=1 addr=0x0

goroutine 0 gp=0xf86520 m=0 mp=0xf87700 [idle]:
runtime.(*spanQueue).tryDrain(0x7ffc00000400?, 0x43f6e5?, 0xf86d48?)
	/usr/local/go/src/runtime/mgcmark_greenteagc.go:520 +0x5d fp=0x7ffc2bb4ef20 sp=0x7ffc2bb4ef00 pc=0x436f5d
runtime.(*spanQueue).drain(0x2521e2009278, 0x11)
`, "likely"},
		{"panic", `panic: a deliberate panic

goroutine 1 [running]:
main.init.1.func1({0xc000012345, 0x0, 0x0}, {0x0, 0x0}, {0x0, 0x0})
	/src/cmd/heapscope/crashtest.go:17 +0x25
`, ""},
		{"deadlock", `
goroutine 1 [select (no cases)]:
main.init.1.func2({0xb9f000?, 0x480013?, 0xf17e5bf0670?}, {0x4206b7?, 0x7fea0a921908?}, {0xb7a380?, 0xf17e5bf0670?})
	/src/cmd/heapscope/crashtest.go:21 +0x25
`, ""},
		{"fault in heapscope", `SIGSEGV: segmentation violation
PC=0x436f5d m=0 sigcode=1 addr=0x0

goroutine 1 gp=0xf86520 m=0 mp=0xf87700 [running]:
github.com/heapscope/heapscope/heap.(*Builder).Object(0x0)
	/src/heap/builder.go:200 +0x5d
`, ""},
	}
	for _, tc := range tests {
		if got := outOfMemory(tc.crash); got != tc.want {
			t.Errorf("%s: outOfMemory = %q, want %q", tc.name, got, tc.want)
		}
	}
}
