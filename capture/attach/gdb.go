package attach

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// ErrNoGDB is matched by the error for a machine without gdb.
var ErrNoGDB = errors.New("gdb is not installed")

// pageSize is the unit of the mapping that holds the bootstrap.
const pageSize = 4096

// gdbScript is what gdb runs once attached (all threads stopped), on the
// main thread: it checks that the interpreter is up and that the thread
// has a Python thread state, maps a page for the bootstrap's text (mmap
// is a plain system call, safe wherever the thread was stopped; malloc
// would not be), copies the text in with restore (no call at all), and
// has Py_AddPendingCall queue PyRun_SimpleString(text) for the main
// thread to run at its next safe point. Every function is exported by
// CPython and libc, and every call is cast, so no debug information is
// needed. Nothing runs Python code while the process is stopped; if a
// call is interrupted (unwindonsignal), gdb restores the thread.
const gdbScript = `set confirm off
set pagination off
set width 0
set unwindonsignal on
%[3]s
thread 1
set $hs_init = (int) Py_IsInitialized()
set $hs_ts = (long) 0
set $hs_buf = (long) -1
set $hs_r = (int) -1
if $hs_init == 1
  set $hs_ts = (long) PyGILState_GetThisThreadState()
  if $hs_ts != 0
    set $hs_buf = (long) mmap((void *) 0, (unsigned long) %[1]d, 3, 34, -1, (long) 0)
    if $hs_buf != -1
      restore %[2]s binary $hs_buf
      set $hs_r = (int) Py_AddPendingCall((void *) &PyRun_SimpleString, (void *) $hs_buf)
      if $hs_r != 0
        set $hs_u = (int) munmap((void *) $hs_buf, (unsigned long) %[1]d)
      end
    end
  end
end
printf "HEAPSCOPE-RESULT %%d %%ld %%ld %%d\n", $hs_init, $hs_ts, $hs_buf, $hs_r
detach
quit
`

// gdbLibraries are the sharedlibrary commands that read the symbols of
// the shared libraries the script calls into, once gdb has attached: the
// C library's (mmap, munmap; glibc, or musl's loader) and, where the
// interpreter is one, libpython's (the Py_ functions, which a statically
// linked python has in the executable). A pattern no library matches is
// passed over. The other libraries, often dozens, are not read: reading
// each would add to the time the process stays stopped.
const gdbLibraries = "sharedlibrary libc[.-]\nsharedlibrary libpthread\nsharedlibrary libpython\nsharedlibrary ld-musl"

// gdbArgs is gdb's command line: no debug information read (-readnever),
// nothing loaded automatically, and the executable's symbols read before
// gdb attaches (/proc/PID/exe: the program's own, even when its file was
// replaced since it started), so that the process is stopped only for
// what needs it.
func gdbArgs(pid int, script string) []string {
	return []string{"-nx", "-batch", "-readnever",
		"-iex", "set auto-load off", "-iex", "set debuginfod enabled off", "-iex", "set auto-solib-add off",
		"/proc/" + strconv.Itoa(pid) + "/exe", "-p", strconv.Itoa(pid), "-x", script}
}

var resultRE = regexp.MustCompile(`HEAPSCOPE-RESULT (-?\d+) (-?\d+) (-?\d+) (-?\d+)`)

// gdbPatience is how long gdb may take before heapscope interrupts it
// (gdb then unwinds the call it is in and detaches), and how long it
// then waits again. It never kills gdb: a gdb killed in the middle of a
// call leaves the process to return into a breakpoint no one handles.
var gdbPatience = time.Minute

// lookGDB returns the gdb to run.
func lookGDB(path string) (string, error) {
	if path == "" {
		path = "gdb"
	}
	p, err := exec.LookPath(path)
	if err != nil {
		return "", fmt.Errorf("%w (%v): heapscope needs it to attach to a Python process (Debian, Ubuntu: apt-get install gdb)", ErrNoGDB, err)
	}
	return p, nil
}

// injectGDB has gdb queue the bootstrap in dir/boot.py for process p's
// main thread. It returns how long gdb ran (the process is stopped for
// part of it: from the attach to the detach).
func injectGDB(gdb string, p *Process, dir string) (time.Duration, error) {
	boot, err := os.ReadFile(filepath.Join(dir, "boot.py"))
	if err != nil {
		return 0, err
	}
	size := (len(boot) + 1 + pageSize - 1) / pageSize * pageSize
	script := filepath.Join(dir, "attach.gdb")
	if err := os.WriteFile(script, []byte(fmt.Sprintf(gdbScript, size, filepath.Join(dir, "boot.py"), gdbLibraries)), 0o600); err != nil {
		return 0, err
	}
	var out bytes.Buffer
	cmd := exec.Command(gdb, gdbArgs(p.PID, script)...)
	cmd.Stdout, cmd.Stderr = &out, &out
	cmd.Env = append(os.Environ(), "LC_ALL=C")
	ownGroup(cmd)
	start := time.Now()
	if err := cmd.Start(); err != nil {
		return 0, fmt.Errorf("gdb: %w", err)
	}
	waited := make(chan error, 1)
	go func() { waited <- cmd.Wait() }()
	var runErr error
	select {
	case runErr = <-waited:
	case <-time.After(gdbPatience):
		interruptGroup(cmd)
		select {
		case runErr = <-waited:
		case <-time.After(gdbPatience):
			return time.Since(start), fmt.Errorf("gdb (pid %d) has not finished attaching to process %d in %v; it is left to finish", cmd.Process.Pid, p.PID, 2*gdbPatience)
		}
	}
	took := time.Since(start)
	unstop(p)
	said := out.String()
	if strings.Contains(said, "ptrace: Operation not permitted") {
		return took, deniedError(p)
	}
	m := resultRE.FindStringSubmatch(said)
	if m == nil {
		if said = lastLines(said, 6); said == "" {
			said = "it said nothing"
		}
		return took, fmt.Errorf("gdb ended (%v) before it could ask process %d for a snapshot: %s", runErr, p.PID, said)
	}
	init, _ := strconv.ParseInt(m[1], 10, 64)
	ts, _ := strconv.ParseInt(m[2], 10, 64)
	buf, _ := strconv.ParseInt(m[3], 10, 64)
	r, _ := strconv.ParseInt(m[4], 10, 64)
	return took, injected(p.PID, init, ts, buf, r)
}

// injected says what the results of the injection's calls into process
// pid mean: Py_IsInitialized's, PyGILState_GetThisThreadState's, mmap's
// and Py_AddPendingCall's (those not made: -1).
func injected(pid int, init, ts, buf, r int64) error {
	switch {
	case init != 1:
		return fmt.Errorf("the interpreter of process %d is not running (starting up or shutting down)", pid)
	case ts == 0:
		return fmt.Errorf("the main thread of process %d runs no Python (an embedded interpreter, or one shutting down): heapscope's agent runs only there", pid)
	case buf == -1:
		return fmt.Errorf("process %d could not map a page for heapscope's bootstrap (out of memory?)", pid)
	case r != 0:
		return fmt.Errorf("process %d has too many calls pending already; try again", pid)
	}
	return nil
}

// unstop resumes p if gdb left it stopped: a gdb killed while it
// attached can leave the stop it sent pending. A process that was
// stopped before heapscope came is left stopped.
func unstop(p *Process) {
	if strings.HasPrefix(p.State, "T") {
		return
	}
	for i := 0; i < 5; i++ {
		b, err := os.ReadFile("/proc/" + strconv.Itoa(p.PID) + "/status")
		if err != nil {
			return
		}
		st := statusField(b, "State")
		if strings.HasPrefix(st, "T") && idField(b, "TracerPid", 0) == 0 {
			resume(p.PID)
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// lastLines returns the last n non-empty lines of s, joined by "; ".
func lastLines(s string, n int) string {
	var keep []string
	for _, l := range strings.Split(s, "\n") {
		if l = strings.TrimSpace(l); l != "" {
			keep = append(keep, l)
		}
	}
	if len(keep) > n {
		keep = keep[len(keep)-n:]
	}
	return strings.Join(keep, "; ")
}

// remoteExec asks a CPython 3.14 or later to run the script with
// sys.remote_exec, through the process's own interpreter binary. It is
// untested: no such Python is on the machines heapscope is tested on.
func remoteExec(ctx context.Context, p *Process, script string) error {
	exe := p.Exe
	if !strings.HasPrefix(filepath.Base(exe), "python") {
		found, err := exec.LookPath("python" + p.Version)
		if err != nil {
			return err
		}
		exe = found
	}
	cmd := exec.CommandContext(ctx, exe, "-I", "-S", "-c", "import sys; sys.remote_exec(int(sys.argv[1]), sys.argv[2])", strconv.Itoa(p.PID), script)
	out, err := cmd.CombinedOutput()
	if err != nil {
		return fmt.Errorf("sys.remote_exec: %w: %s", err, lastLines(string(out), 3))
	}
	return nil
}

// atLeast reports whether version "3.X" is at least 3.minor.
func atLeast(version string, minor int) bool {
	v, ok := strings.CutPrefix(version, "3.")
	if !ok {
		return false
	}
	n, err := strconv.Atoi(v)
	return err == nil && n >= minor
}
