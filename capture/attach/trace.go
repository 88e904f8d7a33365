package attach

import (
	"fmt"
	"os"
	"strconv"
	"strings"
)

// PermissionError says that heapscope may not trace the process, why,
// and what would let it.
type PermissionError struct {
	PID int
	Msg string
}

func (e *PermissionError) Error() string { return e.Msg }

// capSysPtrace is CAP_SYS_PTRACE's bit in the capability sets.
const capSysPtrace = 19

// canTraceAny reports whether heapscope has CAP_SYS_PTRACE (root has),
// which lets it trace processes of other users, and under Yama's
// ptrace_scope 1 and 2, processes that are not its descendants.
func canTraceAny() bool {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return os.Geteuid() == 0
	}
	v, err := strconv.ParseUint(statusField(b, "CapEff"), 16, 64)
	if err != nil {
		return os.Geteuid() == 0
	}
	return v&(1<<capSysPtrace) != 0
}

// yamaScope is where Yama says who may trace whom.
var yamaScope = "/proc/sys/kernel/yama/ptrace_scope"

// ptraceScope returns Yama's kernel.yama.ptrace_scope, or 0 (classic
// ptrace permissions) when Yama is not there.
func ptraceScope() int {
	b, err := os.ReadFile(yamaScope)
	if err != nil {
		return 0
	}
	n, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil {
		return 0
	}
	return n
}

// checkTrace says, before gdb tries, why the kernel would not let
// heapscope trace p, where it can tell: another tracer, Yama's
// ptrace_scope, another user without CAP_SYS_PTRACE.
func checkTrace(p *Process) error {
	if p.TracerPid != 0 {
		comm, _ := os.ReadFile("/proc/" + strconv.Itoa(p.TracerPid) + "/comm")
		return &PermissionError{p.PID, fmt.Sprintf("process %d is already traced by process %d (%s), a debugger or profiler: only one may trace a process at a time", p.PID, p.TracerPid, strings.TrimSpace(string(comm)))}
	}
	any := canTraceAny()
	switch scope := ptraceScope(); {
	case scope >= 3:
		return &PermissionError{p.PID, "kernel.yama.ptrace_scope is 3: no process may trace another on this machine (until it reboots), so heapscope cannot attach"}
	case scope == 2 && !any:
		return &PermissionError{p.PID, fmt.Sprintf("kernel.yama.ptrace_scope is 2: only a process with CAP_SYS_PTRACE may trace another; run heapscope as root to attach to process %d", p.PID)}
	}
	if !any && !sameUser(p) {
		return &PermissionError{p.PID, fmt.Sprintf("process %d runs as uid %d and heapscope as uid %d: attaching needs the same user, or root (CAP_SYS_PTRACE)", p.PID, p.UID, os.Geteuid())}
	}
	return nil
}

// sameUser reports whether p's real, effective and saved user ids are
// all heapscope's: what ptrace asks of a tracer without CAP_SYS_PTRACE.
func sameUser(p *Process) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(p.PID) + "/status")
	if err != nil {
		return false
	}
	me := os.Geteuid()
	for i := 0; i < 3; i++ {
		if idField(b, "Uid", i) != me {
			return false
		}
	}
	return true
}

// deniedError turns gdb's "ptrace: Operation not permitted" into an
// error that says why the kernel may have refused and what to do.
func deniedError(p *Process) error {
	why := "the process may have made itself not dumpable (setuid programs, prctl PR_SET_DUMPABLE), or a security module refuses"
	if !canTraceAny() {
		switch ptraceScope() {
		case 1:
			why = "kernel.yama.ptrace_scope is 1: only a process's ancestors may trace it; run heapscope as root, or set kernel.yama.ptrace_scope=0 (sysctl), or have the program allow it (prctl PR_SET_PTRACER)"
		default:
			why += "; running heapscope as root may help"
		}
	}
	return &PermissionError{p.PID, fmt.Sprintf("the kernel does not let heapscope trace process %d (ptrace: Operation not permitted): %s", p.PID, why)}
}
