//go:build linux && amd64

package attach

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestOwnCalls makes heapscope's own calls into processes whose main
// thread is in the middle of things, many times each, on every Python of
// the machine: float arithmetic (the SSE registers must come back as they
// were), libc's sleep and a blocking read (the system call must go on as
// if never interrupted: sleep returns 0, read its byte, never EINTR),
// and a program sent real-time signals all along (none may be lost). Each
// injection queues a bootstrap that appends a byte to a file: every one
// must run once, and the program must go on.
func TestOwnCalls(t *testing.T) {
	for _, py := range pythons(t) {
		t.Run(filepath.Base(filepath.Dir(filepath.Dir(py))), func(t *testing.T) {
			t.Parallel()
			for _, mode := range []string{"float", "sleep", "read", "signal"} {
				callInto(t, py, mode)
			}
		})
	}
}

// startCalls runs testdata/calls/calls.py in mode until the test ends,
// and returns it with a function that asks it how it is.
func startCalls(t *testing.T, py, mode, marks string) (*exec.Cmd, func() string) {
	cmd := exec.Command(py, "testdata/calls/calls.py", mode, marks)
	stdin, _ := cmd.StdinPipe()
	stdout, _ := cmd.StdoutPipe()
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { stdin.Close(); cmd.Process.Kill(); cmd.Wait() })
	out := bufio.NewReader(stdout)
	if l, err := out.ReadString('\n'); err != nil || l != "ready\n" {
		t.Fatalf("%s: did not start: %q %v", mode, l, err)
	}
	return cmd, func() string {
		fmt.Fprintln(stdin)
		l, err := out.ReadString('\n')
		if err != nil {
			t.Fatalf("%s: the program no longer answers: %v", mode, err)
		}
		return strings.TrimSpace(l)
	}
}

func callInto(t *testing.T, py, mode string) {
	dir := t.TempDir()
	marks := filepath.Join(dir, "marks")
	cmd, ask := startCalls(t, py, mode, marks)
	p, err := Inspect(cmd.Process.Pid)
	if err != nil {
		t.Fatal(err)
	}
	boot := fmt.Sprintf("import os\nfd = os.open(%q, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)\nos.write(fd, b'x')\nos.close(fd)\ndel fd\n", marks)
	if err := os.WriteFile(filepath.Join(dir, "boot.py"), []byte(boot), 0o600); err != nil {
		t.Fatal(err)
	}
	const n = 25
	signals := 0
	stop := make(chan struct{})
	sent := make(chan int)
	go func() {
		// Real-time signals queue: each one sent is one received.
		k := 0
		for {
			select {
			case <-stop:
				sent <- k
				return
			default:
			}
			if mode == "signal" && syscall.Kill(cmd.Process.Pid, syscall.Signal(36)) == nil {
				k++
			}
			time.Sleep(100 * time.Microsecond)
		}
	}()
	for i := 0; i < n; i++ {
		if _, err := injectPtrace(p, dir, time.Minute); err != nil {
			close(stop)
			t.Fatalf("%s: injection %d: %v", mode, i, err)
		}
		time.Sleep(time.Duration(i%4) * 7 * time.Millisecond)
	}
	close(stop)
	signals = <-sent
	want := fmt.Sprintf("boots %d bad '' usr1 %d", n, signals)
	var got string
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
		// sleep and read run a bootstrap when their call returns.
		if got = ask(); strings.HasPrefix(got, want+" ticks ") {
			break
		}
	}
	if !strings.HasPrefix(got, want+" ticks ") {
		t.Errorf("%s: the program says %q, want %q", mode, got, want+" ticks N")
	}
}

// TestOwnCallsKeepVectorRegisters: what a call does to the SSE and AVX
// registers is undone. Between the saving and the restoring of the
// registers it calls libc's strtod (which returns a double in xmm0) while
// the program's main thread adds floats in C; its sums must stay what
// they were.
func TestOwnCallsKeepVectorRegisters(t *testing.T) {
	cmd, ask := startCalls(t, python(t), "float", filepath.Join(t.TempDir(), "marks"))
	p, err := Inspect(cmd.Process.Pid)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 40; i++ {
		errc := make(chan error, 1)
		go func() {
			runtime.LockOSThread()
			errc <- clobber(p)
		}()
		if err := <-errc; err != nil {
			t.Fatalf("round %d: %v", i, err)
		}
		time.Sleep(time.Duration(i%3) * 3 * time.Millisecond)
	}
	if l := ask(); !strings.Contains(l, "bad ''") {
		t.Errorf("the program says %q: its floats changed", l)
	}
}

// clobber stops p's main thread, saves its registers, has it read a
// double with strtod from a page of its own (through mmap and munmap),
// and restores them.
func clobber(p *Process) error {
	tr := &tracer{pid: p.PID, patience: time.Minute}
	if err := ptrace(ptraceSeize, p.PID, 0, 0); err != nil {
		return err
	}
	maps, err := fileMappings(p.PID)
	if err != nil {
		return err
	}
	libc := libcMapping(maps)
	fn, err := symbolAddrs(p.PID, libc, libc, maps, "mmap", "munmap", "strtod")
	if err != nil {
		return err
	}
	if err := ptrace(ptraceInterrupt, p.PID, 0, 0); err != nil {
		return err
	}
	if err := tr.waitStop(); err != nil {
		return err
	}
	if err := tr.save(); err != nil {
		return err
	}
	buf, err := tr.call(fn["mmap"], 0, 1<<16, 3, 0x22, ^uint64(0), 0)
	if err == nil {
		if err = tr.write(buf, []byte("-7.125e-300\x00")); err == nil {
			_, err = tr.call(fn["strtod"], buf, 0)
		}
		tr.call(fn["munmap"], buf, 1<<16)
	}
	if rerr := tr.restore(); rerr != nil && err == nil {
		err = rerr
	}
	tr.detach()
	return err
}

// TestOwnCallsFallBack: a main thread that blocks SIGSEGV (the fault
// that ends each of heapscope's own calls) is left untouched by the
// injector, and gdb takes the snapshot instead.
func TestOwnCallsFallBack(t *testing.T) {
	if _, err := exec.LookPath("gdb"); err != nil {
		t.Skip("no gdb")
	}
	py := python(t)
	cmd := start(t, py, "-c", `import signal, time
signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGSEGV})
print("ready", flush=True)
while True:
    time.sleep(0.01)`)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	res, err := Snapshot(ctx, cmd.Process.Pid, filepath.Join(t.TempDir(), "x.pysnap"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if res.Method != "gdb" {
		t.Errorf("Method %q, want gdb", res.Method)
	}
}
