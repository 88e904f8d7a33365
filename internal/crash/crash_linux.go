package crash

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/heapscope/heapscope/internal/term"
)

// heapscope runs every command but run in a child process, a copy of
// itself, and waits for it. The Go runtime ends a process that runs out of memory,
// or that meets a bug (an unrecovered panic, a fatal error), with exit
// status 2: the status heapscope gives misuse. No code of the program
// runs then. So the parent tells the cases apart:
//
//   - the child reports the status it leaves with on a pipe (fd 3) just
//     before it exits; the parent exits with that status;
//   - a child that exits without reporting it crashed: the parent exits 1
//     (or the status the command names for failures, check's 3) with a
//     message that says why (out of memory, a bug), read from the
//     crash output the child sends on another pipe (fd 4,
//     debug.SetCrashOutput) besides its standard error, and what the
//     child was doing (it reports that on fd 3 too);
//   - a child killed by SIGKILL (the kernel's out-of-memory killer, a
//     container's memory limit) or by a crash signal: the same, with a
//     message; any other signal that ended it ends the parent too.
//
// The child inherits standard input, output and error, so terminals,
// pipes and redirections work as without it. Signals a terminal sends
// (SIGINT, SIGQUIT, SIGHUP) reach both processes, which are in one
// process group; the parent passes them on only when it is not in the
// terminal's foreground, so that the child gets each once. SIGTERM,
// SIGUSR1 and SIGUSR2, which supervisors and users send to one process,
// are always passed on. The child dies with the parent (PR_SET_PDEATHSIG).
//
// The cost is one more start of the program, about twice the time and
// CPU of heapscope help alone: 8.7 to 9.9 ms against 4.3 to 4.6 ms for
// the child alone (go test -bench Startup, 2 cores, load average 7; 11
// to 12 ms against 5 to 8 at load 17); nothing beside the reading of a
// snapshot.

const (
	ChildEnv    = "HEAPSCOPE_CHILD" // in the child's environment: the parent's pid
	statusFD    = 3
	crashFD     = 4
	maxCrashOut = 64 << 10
)

// statusPipe is the child's end of the status pipe; nil in the parent or
// when heapscope runs unsupervised.
var statusPipe *os.File

// Supervise runs heapscope as a child of this process when this process
// is not itself the child, and returns the status to exit with; false
// when this process is the child, or the child cannot be started, and
// must run the command itself.
func Supervise() (int, bool) {
	// The marker names the parent, so that a stray one, inherited from
	// elsewhere, is not taken for it.
	if v, ok := os.LookupEnv(ChildEnv); ok {
		os.Unsetenv(ChildEnv) // the programs run starts must not inherit it
		if v == strconv.Itoa(os.Getppid()) {
			becomeChild()
			return 0, false
		}
	}
	// run supervises a program itself: it leaves with the program's
	// status, passes signals on and names its PID, and the program's
	// parent must be the heapscope the user started.
	if len(os.Args) > 1 && os.Args[1] == "run" {
		return 0, false
	}
	exe := "/proc/self/exe"
	if _, err := os.Stat(exe); err != nil {
		if exe, err = os.Executable(); err != nil {
			return 0, false
		}
	}
	statusR, statusW, err := os.Pipe()
	if err != nil {
		return 0, false
	}
	crashR, crashW, err := os.Pipe()
	if err != nil {
		statusR.Close()
		statusW.Close()
		return 0, false
	}
	// syscall.ForkExec, not os/exec: os/exec starts a probe process
	// first, on its first use, to learn whether pidfds work.
	attr := &syscall.ProcAttr{
		Env:   append(os.Environ(), ChildEnv+"="+strconv.Itoa(os.Getpid())),
		Files: []uintptr{0, 1, 2, statusW.Fd(), crashW.Fd()}, // fds 3 and 4
		// The death signal goes when the thread that started the child
		// ends: keep this one.
		Sys: &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL},
	}
	runtime.LockOSThread()
	sigs := make(chan os.Signal, 8)
	for _, s := range []syscall.Signal{syscall.SIGINT, syscall.SIGQUIT, syscall.SIGHUP, syscall.SIGTERM, syscall.SIGUSR1, syscall.SIGUSR2} {
		if !signal.Ignored(s) { // nohup: stay deaf to SIGHUP
			signal.Notify(sigs, s)
		}
	}
	pid, err := syscall.ForkExec(exe, os.Args, attr)
	statusW.Close()
	crashW.Close()
	if err != nil {
		signal.Stop(sigs)
		statusR.Close()
		crashR.Close()
		return 0, false
	}
	go func() {
		for s := range sigs {
			if s == syscall.SIGTERM || s == syscall.SIGUSR1 || s == syscall.SIGUSR2 || !term.Foreground() {
				syscall.Kill(pid, s.(syscall.Signal))
			}
		}
	}()
	var st childStatus
	statusDone := make(chan struct{})
	go func() {
		st.read(statusR)
		close(statusDone)
	}()
	var crash bytes.Buffer
	crashDone := make(chan struct{})
	go func() {
		io.Copy(&crash, io.LimitReader(crashR, maxCrashOut))
		io.Copy(io.Discard, crashR)
		close(crashDone)
	}()
	var ws syscall.WaitStatus
	for {
		_, err = syscall.Wait4(pid, &ws, 0, nil)
		if err != syscall.EINTR {
			break
		}
	}
	signal.Stop(sigs)
	if err != nil {
		fmt.Fprintf(os.Stderr, "heapscope: waiting for the command: %v\n", err)
		return 1, true
	}
	// The child's ends close when it exits; a process it started keeps
	// none (they are close-on-exec), but do not wait long for one.
	deadline := time.Now().Add(2 * time.Second)
	statusR.SetReadDeadline(deadline)
	crashR.SetReadDeadline(deadline)
	<-statusDone
	<-crashDone
	if st.exited {
		return st.code, true
	}
	return verdict(ws, st, crash.String()), true
}

// childStatus is what the child reported on the status pipe: lines
// "doing WHAT", "failure N" and, last, "exit N".
type childStatus struct {
	doing   string
	failure int // the status for a crash
	code    int
	exited  bool
}

func (st *childStatus) read(r io.Reader) {
	st.failure = 1
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		verb, arg, _ := strings.Cut(sc.Text(), " ")
		n, err := strconv.Atoi(arg)
		switch {
		case verb == "doing":
			st.doing = arg
		case verb == "failure" && err == nil:
			st.failure = n
		case verb == "exit" && err == nil:
			st.code, st.exited = n, true
		}
	}
}

// verdict turns the end of a child that did not report its status into
// the parent's exit status, with a message.
func verdict(ws syscall.WaitStatus, st childStatus, crash string) int {
	while := ""
	if st.doing != "" {
		while = " while " + st.doing
	}
	if ws.Signaled() {
		s := ws.Signal()
		switch {
		case s == syscall.SIGKILL:
			fmt.Fprintf(os.Stderr, "heapscope: killed (SIGKILL)%s; if nobody killed it, the system ran short of memory (the out-of-memory killer, a container's limit)\n", while)
			return st.failure
		case IsCrash(s):
			crashed(while, crash, s.String())
			return st.failure
		}
		return reraise(s)
	}
	if crash == "" && ws.ExitStatus() != 2 {
		// An exit the child did not report but that is no crash.
		return ws.ExitStatus()
	}
	crashed(while, crash, "")
	return st.failure
}

// crashed says why the child crashed, from its crash output.
func crashed(while, crash, signal string) {
	oom := outOfMemory(crash)
	switch {
	case oom == "sure":
		fmt.Fprintf(os.Stderr, "heapscope: out of memory%s: the analysis needs more memory than this process may have (ulimit, a container's limit); try a machine with more\n", while)
	case oom == "likely":
		fmt.Fprintf(os.Stderr, "heapscope: out of memory%s, most likely (the Go runtime failed in its garbage collector): the analysis needs more memory than this process may have (ulimit, a container's limit); try a machine with more\n", while)
	case strings.Contains(crash, "SIGQUIT: quit"):
		fmt.Fprintf(os.Stderr, "heapscope: quit (SIGQUIT)%s\n", while)
	case crash != "":
		// The runtime writes crash output only when it dies: a panic,
		// a fatal error.
		fmt.Fprintf(os.Stderr, "heapscope: crashed%s: this is a bug in heapscope; please report it with the messages above\n", while)
	case signal != "":
		fmt.Fprintf(os.Stderr, "heapscope: crashed (%s)%s\n", signal, while)
	default:
		fmt.Fprintf(os.Stderr, "heapscope: ended without a status%s\n", while)
	}
}

// outOfMemory tells from a crash output whether the Go runtime ran
// short of memory: "sure", "likely" or "". The runtime writes its "fatal
// error: out of memory" line to standard error only; the crash output
// has the stacks. The first one is that of the goroutine (or system
// stack) that failed. Short of memory, the runtime throws from its
// allocator (sure), or, as Go 1.26's collector does when the memory for
// its work queues is refused, faults inside its collector (likely). A
// panic is never for want of memory.
func outOfMemory(crash string) string {
	if strings.Contains(crash, "out of memory") {
		return "sure"
	}
	if strings.HasPrefix(strings.TrimLeft(crash, "\n"), "panic: ") {
		return ""
	}
	i := strings.Index(crash, "goroutine ")
	if j := strings.Index(crash, "runtime stack:"); j >= 0 && (i < 0 || j < i) {
		i = j
	}
	if i < 0 {
		return ""
	}
	stack, _, _ := strings.Cut(crash[i:], "\n\n")
	frames := strings.Split(stack, "\n")[1:]
	for _, line := range frames {
		if hasPrefix(line, allocatorFrames) {
			return "sure"
		}
	}
	fault := strings.HasPrefix(crash, "SIGSEGV") || strings.HasPrefix(crash, "SIGBUS") ||
		strings.Contains(crash[:i], "unexpected signal")
	if fault && len(frames) > 0 && hasPrefix(frames[0], collectorFrames) {
		return "likely"
	}
	return ""
}

func hasPrefix(s string, prefixes []string) bool {
	for _, p := range prefixes {
		if strings.HasPrefix(s, p) {
			return true
		}
	}
	return false
}

// allocatorFrames are the functions of the Go runtime that allocate
// memory from the system, or collect garbage to make room.
var allocatorFrames = []string{
	"runtime.mallocgc", "runtime.gcAssistAlloc", "runtime.(*mcache).", "runtime.(*mheap).",
	"runtime.(*pageAlloc).", "runtime.sysMap", "runtime.sysAlloc", "runtime.sysReserve",
	"runtime.persistentalloc", "runtime.(*linearAlloc).",
}

// collectorFrames are the functions of the Go runtime's collector.
var collectorFrames = []string{
	"runtime.(*spanQueue).", "runtime.(*spanSPMC).", "runtime.(*gcWork).", "runtime.gcDrain",
	"runtime.scanobject", "runtime.scanSpan", "runtime.scanObjectsSmall", "runtime.markroot",
	"runtime.(*mspan).", "runtime.greyobject",
}

// reraise ends this process with signal s, as the child ended: a shell
// or a supervisor then sees what it would have seen without the parent.
// SIGINT, SIGTERM and SIGHUP end a Go program as the signal itself;
// others it would ignore, and the status is then 128+s, as a shell
// reports a death by s.
func reraise(s syscall.Signal) int {
	signal.Reset(s)
	syscall.Kill(os.Getpid(), s)
	time.Sleep(100 * time.Millisecond)
	return 128 + int(s)
}

// becomeChild sets up the child's side: the pipes are closed on exec,
// and crash output goes to the parent too.
func becomeChild() {
	syscall.CloseOnExec(statusFD)
	syscall.CloseOnExec(crashFD)
	crash := os.NewFile(crashFD, "crash")
	if crash != nil {
		debug.SetCrashOutput(crash, debug.CrashOptions{})
		crash.Close() // SetCrashOutput keeps a copy
	}
	statusPipe = os.NewFile(statusFD, "status")
}

// Note tells the parent what the child is doing, for the message if it
// crashes; "" when it is done with that.
func Note(doing string) {
	if statusPipe != nil {
		fmt.Fprintf(statusPipe, "doing %s\n", strings.ReplaceAll(doing, "\n", " "))
	}
}

// FailWith tells the parent the status the command gives failures, for
// a crash (1 unless said otherwise).
func FailWith(code int) {
	if statusPipe != nil {
		fmt.Fprintf(statusPipe, "failure %d\n", code)
	}
}

// Leave tells the parent the status the child exits with.
func Leave(code int) int {
	if statusPipe != nil {
		fmt.Fprintf(statusPipe, "exit %d\n", code)
	}
	return code
}
