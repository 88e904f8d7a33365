//go:build linux && amd64

package attach

import (
	"errors"
	"fmt"
	"os"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"time"
	"unsafe"
)

// ptrace requests and values syscall does not name (linux/ptrace.h,
// elf.h).
const (
	ptraceSeize     = 0x4206
	ptraceInterrupt = 0x4207
	ptraceGetRegset = 0x4204
	ptraceSetRegset = 0x4205
	ntX86XState     = 0x202      // the extended register state (SSE, AVX...)
	eventStop       = 128        // PTRACE_EVENT_STOP
	waitAll         = 0x40000000 // __WALL: wait4 for a thread too
)

// ownCalls says whether heapscope can make the calls into a process
// itself (injectHere) on this system.
const ownCalls = true

// injectHere queues boot (a bootstrap's text) for process p's main
// thread, as injectGDB does, with ptrace from this process (see
// injectPtrace, which runs it in a process of its own). Only the main
// thread stops, and only for four or five calls, microseconds each: the
// other threads run on. It returns how long the main thread was stopped.
//
// The steps: PTRACE_SEIZE the main thread (it runs on); find the
// functions in the process (symbolAddrs: each checked against its memory
// before it may be called); PTRACE_INTERRUPT and wait for the stop;
// save its registers, the extended state (SSE and AVX registers, which a
// called function may use) included; call Py_IsInitialized,
// PyGILState_GetThisThreadState, mmap for a page, then write the
// bootstrap there (PTRACE_POKEDATA) and call Py_AddPendingCall with
// PyRun_SimpleString and the page; restore every register and detach.
//
// A call starts at the function with the thread's stack pointer moved
// 1 KiB below where it was (past the red zone), and returns to address
// 0: the fault stops the thread for heapscope, which reads the result
// and never lets the signal through. orig_rax is -1 during a call, so
// that a system call the thread was stopped in is not restarted into
// the function; restoring the registers restarts it as it would have
// been. A signal that comes during a call is delivered then (its handler
// runs on the call's stack, as on any C function's); one whose stop came
// before the interrupt's is delivered at the detach. A call that does
// not return within patience is abandoned (the thread's registers
// restored), as gdb's unwindonsignal does.
//
// When it fails before it has stopped the thread, the error is an
// *untouched: the process is as it was, and gdb may try instead.
func injectHere(p *Process, boot []byte, patience time.Duration) (time.Duration, error) {
	type result struct {
		stopped time.Duration
		err     error
	}
	done := make(chan result, 1)
	go func() {
		// Every ptrace request must come from the thread that
		// seized; the thread is never unlocked, so it ends with the
		// goroutine, and the kernel detaches whatever it still traces.
		runtime.LockOSThread()
		t := &tracer{pid: p.PID, patience: patience}
		stopped, err := t.inject(p, boot)
		done <- result{stopped, err}
	}()
	r := <-done
	return r.stopped, r.err
}

type tracer struct {
	pid       int
	patience  time.Duration
	saved     syscall.PtraceRegs
	xstate    []byte // the extended state, as PTRACE_GETREGSET gave it
	held      int    // the signal whose stop was the first, for the detach
	groupStop bool   // a group stop (SIGSTOP...) came: stop again after
	running   bool   // a call did not return in time: the thread runs it
}

func ptrace(req, pid int, addr, data uintptr) error {
	_, _, e := syscall.Syscall6(syscall.SYS_PTRACE, uintptr(req), uintptr(pid), addr, data, 0, 0)
	if e != 0 {
		return e
	}
	return nil
}

func (t *tracer) inject(p *Process, boot []byte) (time.Duration, error) {
	if blocked, err := segvBlocked(t.pid); err != nil || blocked {
		// A call ends with a fault in the thread: with SIGSEGV
		// blocked, the kernel would reset its handler to return it.
		return 0, &untouched{fmt.Errorf("the main thread of process %d blocks SIGSEGV", t.pid)}
	}
	if err := ptrace(ptraceSeize, t.pid, 0, 0); err != nil {
		if errors.Is(err, syscall.EPERM) {
			return 0, &untouched{deniedError(p)}
		}
		return 0, &untouched{fmt.Errorf("ptrace: %w", err)}
	}
	// Seized, the process may be read (even under Yama's ptrace_scope
	// 1); it still runs.
	fn, err := t.functions(p)
	if err != nil {
		return 0, &untouched{err}
	}
	start := time.Now()
	if err := ptrace(ptraceInterrupt, t.pid, 0, 0); err != nil {
		return 0, &untouched{fmt.Errorf("ptrace interrupt: %w", err)}
	}
	if err := t.waitStop(); err != nil {
		return 0, &untouched{err}
	}
	if err := t.save(); err != nil {
		t.detach()
		return time.Since(start), err
	}
	err = t.calls(fn, boot)
	if rerr := t.restore(); rerr != nil && err == nil {
		err = rerr
	}
	t.detach()
	return time.Since(start), err
}

// functions finds the functions the injection calls.
func (t *tracer) functions(p *Process) (map[string]uint64, error) {
	maps, err := fileMappings(t.pid)
	if err != nil {
		return nil, err
	}
	file := p.Lib
	if p.Lib == p.Exe {
		file = "/proc/" + strconv.Itoa(t.pid) + "/exe"
	}
	fn, err := symbolAddrs(t.pid, file, p.Lib, maps, "Py_IsInitialized", "PyGILState_GetThisThreadState", "Py_AddPendingCall", "PyRun_SimpleString")
	if err != nil {
		return nil, err
	}
	libc := libcMapping(maps)
	if libc == "" {
		return nil, fmt.Errorf("process %d maps no C library heapscope knows", t.pid)
	}
	c, err := symbolAddrs(t.pid, libc, libc, maps, "mmap", "munmap")
	if err != nil {
		return nil, err
	}
	for k, v := range c {
		fn[k] = v
	}
	return fn, nil
}

// calls runs the injection's calls; the registers are restored after.
func (t *tracer) calls(fn map[string]uint64, boot []byte) error {
	init, err := t.call(fn["Py_IsInitialized"])
	if err != nil {
		return err
	}
	var ts, buf, r uint64
	buf, r = ^uint64(0), ^uint64(0)
	if int32(init) == 1 {
		if ts, err = t.call(fn["PyGILState_GetThisThreadState"]); err != nil {
			return err
		}
	}
	if int32(init) == 1 && ts != 0 {
		size := uint64(len(boot)+1+pageSize-1) / pageSize * pageSize
		// mmap(NULL, size, PROT_READ|PROT_WRITE, MAP_PRIVATE|MAP_ANONYMOUS, -1, 0)
		if buf, err = t.call(fn["mmap"], 0, size, 3, 0x22, ^uint64(0), 0); err != nil {
			return err
		}
		if int64(buf) != -1 {
			if err := t.write(buf, append(append([]byte{}, boot...), 0)); err != nil {
				t.call(fn["munmap"], buf, size)
				return err
			}
			if r, err = t.call(fn["Py_AddPendingCall"], fn["PyRun_SimpleString"], buf); err != nil {
				return err
			}
			if int32(r) != 0 {
				t.call(fn["munmap"], buf, size)
			}
		}
	}
	return injected(t.pid, int64(int32(init)), int64(ts), int64(buf), int64(int32(r)))
}

// call calls the function at fn with up to six integer arguments on the
// stopped main thread, and returns what it returned (rax).
func (t *tracer) call(fn uint64, args ...uint64) (uint64, error) {
	regs := t.saved
	sp := (t.saved.Rsp-1024)&^15 - 8 // as after a call: 8 below a 16-byte boundary
	if err := t.write(sp, make([]byte, 8)); err != nil {
		return 0, err
	}
	regs.Rsp, regs.Rip, regs.Rax, regs.Orig_rax = sp, fn, 0, ^uint64(0)
	argRegs := []*uint64{&regs.Rdi, &regs.Rsi, &regs.Rdx, &regs.Rcx, &regs.R8, &regs.R9}
	for i, a := range args {
		*argRegs[i] = a
	}
	if err := syscall.PtraceSetRegs(t.pid, &regs); err != nil {
		return 0, fmt.Errorf("ptrace setregs: %w", err)
	}
	sig := 0
	deadline := time.Now().Add(t.patience)
	for {
		if err := syscall.PtraceCont(t.pid, sig); err != nil {
			return 0, fmt.Errorf("ptrace cont: %w", err)
		}
		ws, err := t.waitUntil(deadline)
		if err != nil {
			t.running = true // left running in the call: restore stops it
			return 0, err
		}
		if ws.Exited() || ws.Signaled() {
			return 0, fmt.Errorf("process %d ended during heapscope's call into it", t.pid)
		}
		s, ev := ws.StopSignal(), stopEvent(ws)
		switch {
		case s == syscall.SIGSEGV && ev == 0:
			var got syscall.PtraceRegs
			if err := syscall.PtraceGetRegs(t.pid, &got); err != nil {
				return 0, fmt.Errorf("ptrace getregs: %w", err)
			}
			if got.Rip == 0 {
				return got.Rax, nil
			}
			// A fault in the function itself: the thread is put back
			// as it was (restore) and the fault never delivered.
			return 0, fmt.Errorf("the call at %#x into process %d faulted at %#x; the thread was put back as it was", fn, t.pid, got.Rip)
		case ev == 0:
			// Any other signal is the thread's: its handler runs on
			// the call's stack, as on any C function's.
			sig = int(s)
		case s != syscall.SIGTRAP:
			// A group stop (SIGSTOP...): it is stopped again after
			// the detach.
			t.groupStop, sig = true, 0
		default:
			sig = 0
		}
	}
}

// stopEvent is the PTRACE_EVENT of a stop, 0 for a signal's.
func stopEvent(ws syscall.WaitStatus) int { return int(ws>>16) & 0xff }

// waitStop waits for the stop PTRACE_INTERRUPT asked for (or any other
// stop that comes first: a signal's, which is held for the detach).
func (t *tracer) waitStop() error {
	ws, err := t.waitUntil(time.Now().Add(t.patience))
	if err != nil {
		return err
	}
	if ws.Exited() || ws.Signaled() {
		return fmt.Errorf("process %d ended as heapscope attached", t.pid)
	}
	switch s, ev := ws.StopSignal(), stopEvent(ws); {
	case ev == 0:
		t.held = int(s) // a signal's stop came first
	case s != syscall.SIGTRAP:
		t.groupStop = true
	}
	return nil
}

// waitUntil waits for the main thread's next stop; past deadline it
// interrupts the thread, restores its registers and detaches.
func (t *tracer) waitUntil(deadline time.Time) (syscall.WaitStatus, error) {
	var ws syscall.WaitStatus
	pause := time.Microsecond
	for {
		pid, err := syscall.Wait4(t.pid, &ws, syscall.WNOHANG|waitAll, nil)
		if err != nil && err != syscall.EINTR {
			return ws, fmt.Errorf("wait for process %d: %w", t.pid, err)
		}
		if pid == t.pid {
			return ws, nil
		}
		if time.Now().After(deadline) {
			return ws, fmt.Errorf("the main thread of process %d did not return from heapscope's call in %v", t.pid, t.patience)
		}
		time.Sleep(pause)
		pause = min(2*pause, time.Millisecond)
	}
}

// save keeps the stopped thread's registers.
func (t *tracer) save() error {
	if err := syscall.PtraceGetRegs(t.pid, &t.saved); err != nil {
		return fmt.Errorf("ptrace getregs: %w", err)
	}
	buf := make([]byte, 1<<16)
	iov := syscall.Iovec{Base: &buf[0], Len: uint64(len(buf))}
	if err := ptrace(ptraceGetRegset, t.pid, ntX86XState, uintptr(unsafe.Pointer(&iov))); err != nil {
		return fmt.Errorf("ptrace getregset: %w", err)
	}
	t.xstate = buf[:iov.Len]
	return nil
}

// restore puts back the registers save kept. A call that is still
// running (it did not return in time) is interrupted first.
func (t *tracer) restore() error {
	if t.running {
		ptrace(ptraceInterrupt, t.pid, 0, 0)
		if _, err := t.waitUntil(time.Now().Add(t.patience)); err != nil {
			return err
		}
		t.running = false
	}
	if err := syscall.PtraceSetRegs(t.pid, &t.saved); err != nil {
		return fmt.Errorf("ptrace setregs: %w", err)
	}
	iov := syscall.Iovec{Base: &t.xstate[0], Len: uint64(len(t.xstate))}
	if err := ptrace(ptraceSetRegset, t.pid, ntX86XState, uintptr(unsafe.Pointer(&iov))); err != nil {
		return fmt.Errorf("ptrace setregset: %w", err)
	}
	return nil
}

// detach lets the thread go, with the signal held, if any, and stops
// the process again if it was asked to stop meanwhile.
func (t *tracer) detach() {
	ptrace(syscall.PTRACE_DETACH, t.pid, 0, uintptr(t.held))
	if t.groupStop {
		syscall.Kill(t.pid, syscall.SIGSTOP)
	}
}

// write writes b into the stopped process at addr, a word at a time
// (PTRACE_POKEDATA: /proc/PID/mem may be closed to writes, even a
// tracer's, by the kernel's proc_mem.force_override).
func (t *tracer) write(addr uint64, b []byte) error {
	if _, err := syscall.PtracePokeData(t.pid, uintptr(addr), b); err != nil {
		return fmt.Errorf("write into process %d at %#x: %w", t.pid, addr, err)
	}
	return nil
}

// segvBlocked reports whether the main thread of pid blocks SIGSEGV.
func segvBlocked(pid int) (bool, error) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/task/" + strconv.Itoa(pid) + "/status")
	if err != nil {
		return false, err
	}
	mask, err := strconv.ParseUint(strings.TrimSpace(statusField(b, "SigBlk")), 16, 64)
	if err != nil {
		return false, err
	}
	return mask&(1<<(uint(syscall.SIGSEGV)-1)) != 0, nil
}
