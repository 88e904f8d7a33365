package main

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/heapscope/heapscope/capture/attach"
	"github.com/heapscope/heapscope/heapfile"
	"github.com/heapscope/heapscope/internal/heaptest"
)

// attachPythons returns the CPython 3.9+ interpreters of the machine:
// pyenv's builds (with debug information) and Debian's (stripped).
func attachPythons(t *testing.T) []string {
	t.Helper()
	if _, err := exec.LookPath("gdb"); err != nil {
		t.Skip("gdb is not installed")
	}
	out := heaptest.Pythons()
	if len(out) == 0 {
		p, err := exec.LookPath("python3")
		if err != nil {
			t.Skip("no python3")
		}
		out = append(out, p)
	}
	return out
}

// target is testdata/attached.py running, with its stdin and stdout.
type target struct {
	cmd   *exec.Cmd
	in    io.Writer
	lines chan string
}

// startTarget starts testdata/attached.py with python, as user cred if
// not nil, with env added, and waits for it to be ready.
func startTarget(t *testing.T, python string, cred *syscall.Credential, env ...string) *target {
	t.Helper()
	script, _ := filepath.Abs("testdata/attached.py")
	if cred != nil {
		// Somewhere its user can read it.
		dir := publicDir(t, 0o755)
		b, _ := os.ReadFile(script)
		script = filepath.Join(dir, "attached.py")
		os.WriteFile(script, b, 0o644)
	}
	cmd := exec.Command(python, "-u", script)
	cmd.Env = append(os.Environ(), env...)
	if cred != nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: cred}
	}
	in, _ := cmd.StdinPipe()
	out, _ := cmd.StdoutPipe()
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	tg := &target{cmd: cmd, in: in, lines: make(chan string, 16)}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	go func() {
		r := bufio.NewReader(out)
		for {
			l, err := r.ReadString('\n')
			if err != nil {
				close(tg.lines)
				return
			}
			tg.lines <- strings.TrimSpace(l)
		}
	}()
	if l := tg.read(t, time.Minute); l != "ready" {
		t.Fatalf("%s did not start: %q", python, l)
	}
	return tg
}

func (tg *target) pid() string { return strconv.Itoa(tg.cmd.Process.Pid) }

func (tg *target) read(t *testing.T, d time.Duration) string {
	t.Helper()
	select {
	case l, ok := <-tg.lines:
		if !ok {
			t.Fatalf("process %d ended", tg.cmd.Process.Pid)
		}
		return l
	case <-time.After(d):
		t.Fatalf("process %d did not answer in %v", tg.cmd.Process.Pid, d)
	}
	return ""
}

// ask sends a command and returns the answer.
func (tg *target) ask(t *testing.T, cmd string) string {
	t.Helper()
	io.WriteString(tg.in, cmd+"\n")
	return tg.read(t, 2*time.Minute)
}

// healthy checks that the process runs, is traced by no one, answers,
// and has nothing of heapscope's left in sys.modules, sys.path,
// sys.meta_path or __main__.
func (tg *target) healthy(t *testing.T) {
	t.Helper()
	tg.alive(t)
	if got := tg.ask(t, "state"); got != "same" {
		t.Errorf("heapscope left something behind: %s", got)
	}
}

// alive checks that the target answers and is neither stopped nor
// traced (what healthy checks, but its state, which a capture still
// under way changes: the agent's modules are in sys.modules while its
// thread loads them).
func (tg *target) alive(t *testing.T) {
	t.Helper()
	if got := tg.ask(t, "ping"); got != "pong" {
		t.Fatalf("ping: %q", got)
	}
	b, _ := os.ReadFile("/proc/" + tg.pid() + "/status")
	for _, l := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(l, "TracerPid:") && strings.TrimSpace(l[len("TracerPid:"):]) != "0" {
			t.Errorf("still traced: %s", l)
		}
		if strings.HasPrefix(l, "State:") && strings.Contains(l, "stopped") {
			t.Errorf("left stopped: %s", l)
		}
	}
}

// publicDir makes a temporary directory of the given mode, for files
// another user must read.
func publicDir(t *testing.T, mode os.FileMode) string {
	t.Helper()
	dir, err := os.MkdirTemp("", "heapscope-public-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	os.Chmod(dir, mode)
	return dir
}

// startUntil starts cmd (a heapscope binary) and waits until ready
// reports true, asking every poll; it fails the test if cmd ends first.
// It returns where cmd's end will be sent, and its stderr.
func startUntil(t *testing.T, cmd *exec.Cmd, what string, poll time.Duration, ready func() bool) (<-chan error, *bytes.Buffer) {
	t.Helper()
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	for !ready() {
		select {
		case err := <-exited:
			t.Fatalf("heapscope ended before %s: %v\n%s", what, err, stderr.String())
		case <-time.After(poll):
		}
	}
	return exited, &stderr
}

// TestSnapshotPython attaches to a leaking program three times on every
// Python of the machine (with and without debug information): each
// snapshot is a 0600 file of the program's objects, leaks finds the
// leak on its path, and the program runs on as it was.
func TestSnapshotPython(t *testing.T) {
	inParallel(t, attachPythons(t), func(t *testing.T, py string) {
		tg := startTarget(t, py, nil)
		snaps := attachThrice(t, tg)
		assertOnly(t, filepath.Dir(snaps[0]), "s1.pysnap", "s2.pysnap", "s3.pysnap")
		if n := countOf(t, snaps[0], "__main__.Leaked"); n == 0 {
			t.Errorf("no Leaked objects in the first snapshot")
		}
		if rows := leaksJSON(t, snaps); rows[0].Type != "__main__.Leaked" || !strings.Contains(rows[0].Path, ".leak") {
			t.Errorf("leaks did not find the leak first: %+v", rows[0])
		}
		for _, snap := range snaps {
			agentObjects(t, snap)
		}
		tg.healthy(t)
	})
}

// agentObjects checks that a snapshot taken by attaching holds none of
// the agent's objects (it runs as the package _heapscope_attach_NONCE):
// no module, class or function of it, no instance of its classes (the
// finder the program's sys.meta_path holds while it loads is gone from
// there before the walk), and no function but the bootstrap that runs it
// (__main__._heapscope_attach_NONCE, defined from a string).
func agentObjects(t *testing.T, snap string) {
	t.Helper()
	g, err := heapfile.Open(snap)
	if err != nil {
		t.Fatal(err)
	}
	var found []string
	for id := range g.Objects() {
		typ := g.TypeName(g.Type(id))
		name, _ := g.Name(id)
		if strings.Contains(typ+" "+name, "_heapscope_attach_") &&
			!strings.HasPrefix(name, "function __main__._heapscope_attach_") {
			found = append(found, typ+" "+name)
		}
	}
	if len(found) > 0 {
		t.Errorf("%s holds %d of the agent's objects, such as %q", snap, len(found), found[:min(5, len(found))])
	}
}

// inParallel runs fn for each interpreter, as parallel subtests.
func inParallel(t *testing.T, pys []string, fn func(t *testing.T, py string)) {
	for _, py := range pys {
		t.Run(filepath.Base(filepath.Dir(filepath.Dir(py))), func(t *testing.T) {
			t.Parallel()
			fn(t, py)
		})
	}
}

// attachThrice takes three snapshots of tg, s1 to s3.pysnap in a fresh
// directory, a little apart; each is written whole and said so, and
// how long the program was paused is said on stderr. The second is
// taken stopping the program (--fork=false), the others by a child
// process (the default on Linux); the third has gdb make the calls
// (--gdb).
func attachThrice(t *testing.T, tg *target) []string {
	t.Helper()
	dir := t.TempDir()
	var snaps []string
	for i := 1; i <= 3; i++ {
		out := filepath.Join(dir, "s"+strconv.Itoa(i)+".pysnap")
		var stdout, stderr bytes.Buffer
		args := []string{"snapshot", "--python", tg.pid(), "-o", out}
		switch i {
		case 2:
			args = append(args, "--fork=false")
		case 3:
			args = append(args, "--gdb")
		}
		if err := run(args, &stdout, &stderr); err != nil {
			t.Fatalf("snapshot %d: %v\n%s", i, err, stderr.String())
		}
		if stdout.String() != "wrote "+out+"\n" {
			t.Errorf("stdout %q", stdout.String())
		}
		checkPauseLine(t, stderr.String(), tg.pid(), i == 3, i != 2 && runtime.GOOS == "linux")
		snaps = append(snaps, out)
		time.Sleep(200 * time.Millisecond)
	}
	return snaps
}

// TestSnapshotPythonRefuses points --python at what it must not attach
// to: exit 2, nothing written, and the processes still run untraced.
func TestSnapshotPythonRefuses(t *testing.T) {
	pys := attachPythons(t)
	tg := startTarget(t, pys[len(pys)-1], nil)
	sleep := exec.Command("sleep", "600")
	if err := sleep.Start(); err != nil {
		t.Skip("no sleep:", err)
	}
	t.Cleanup(func() { sleep.Process.Kill(); sleep.Wait() })
	dir := t.TempDir()
	out := filepath.Join(dir, "x.pysnap")
	cases := [][]string{
		{"snapshot", "--python", strconv.Itoa(sleep.Process.Pid), "-o", out},
		{"snapshot", "--python", "999999999", "-o", out},
		{"snapshot", "--python", tg.pid(), "-o", dir},
		{"snapshot", "--python", tg.pid(), "-o", filepath.Join(dir, "no", "x")},
		{"snapshot", "--python", tg.pid(), "--node", tg.pid(), "-o", out},
		{"snapshot", "--node", tg.pid(), "--census", "-o", out},
	}
	old, _ := filepath.Glob("/root/.pyenv/versions/3.8.*/bin/python3")
	if len(old) > 0 {
		py38 := exec.Command(old[0], "-c", "import time; print('ready', flush=True); time.sleep(600)")
		startReady(t, py38)
		cases = append(cases, []string{"snapshot", "--python", strconv.Itoa(py38.Process.Pid), "-o", out})
	}
	for _, args := range cases {
		var stdout, stderr bytes.Buffer
		if code := exitCode(run(args, &stdout, &stderr)); code != 2 {
			t.Errorf("%v: exit %d, want 2; stderr %s", args, code, stderr.String())
		}
	}
	var ws syscall.WaitStatus
	if got, _ := syscall.Wait4(sleep.Process.Pid, &ws, syscall.WNOHANG, nil); got != 0 {
		t.Errorf("sleep was ended: %v", ws)
	}
	b, _ := os.ReadFile("/proc/" + strconv.Itoa(sleep.Process.Pid) + "/status")
	if !bytes.Contains(b, []byte("TracerPid:\t0\n")) {
		t.Errorf("sleep is traced:\n%s", b)
	}
	assertOnly(t, dir)
	tg.healthy(t)
}

// TestSnapshotPythonInterrupt interrupts a heapscope binary at two
// moments: while it is attached (its injector's calls stop the main
// thread), and while the program is taking the snapshot. SIGINT:
// heapscope waits for its injector to detach and withdraws the request,
// or waits for the capture and removes it, and exits 130, leaving
// nothing. SIGKILL: the injector, in a process group of its own, detaches
// as it would have, and the capture ends on its own in its stage
// directory. Every time the program runs on as it
// was: it answers, and /proc says it is neither stopped nor traced.
func TestSnapshotPythonInterrupt(t *testing.T) {
	pys := attachPythons(t)
	bin := heapscopeBinary(t)
	for _, when := range []string{"attached", "capturing"} {
		for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGKILL} {
			t.Run(when+"/"+sig.String(), func(t *testing.T) {
				tg := startTarget(t, pys[len(pys)-1], nil)
				dir := t.TempDir()
				// heapscope's own temporary directory, to see what it leaves.
				tmp := t.TempDir()
				hs := exec.Command(bin, "snapshot", "--python", tg.pid(), "-o", filepath.Join(dir, "x.pysnap"))
				hs.Env = append(os.Environ(), "TMPDIR="+tmp)
				// gdb holds the program stopped for a short while.
				poll, ready := time.Millisecond, func() bool { return tracer(tg.pid()) != 0 }
				if when == "capturing" {
					// A capture that takes a while.
					if got := tg.ask(t, "big 1000000"); got != "big" {
						t.Fatalf("big: %q", got)
					}
					poll, ready = 10*time.Millisecond, func() bool {
						m, _ := filepath.Glob(filepath.Join(dir, ".heapscope-*", "started"))
						return len(m) > 0
					}
				}
				exited, stderr := startUntil(t, hs, "the moment to interrupt it", poll, ready)
				hs.Process.Signal(sig)
				<-exited
				if sig == syscall.SIGKILL {
					// What makes the calls into the program (heapscope's
					// injector, or gdb) is in a process group of its own,
					// which the kill does not reach: it finishes them and
					// detaches.
					for deadline := time.Now().Add(time.Minute); tracer(tg.pid()) != 0 && time.Now().Before(deadline); {
						time.Sleep(5 * time.Millisecond)
					}
				}
				if sig == syscall.SIGINT {
					if code := hs.ProcessState.ExitCode(); code != 130 {
						t.Errorf("heapscope exit %d, want 130; stderr:\n%s", code, stderr.String())
					}
					assertOnly(t, dir)
				}
				if sig == syscall.SIGKILL {
					// The capture goes on: its agent may still be in
					// sys.modules until its status is written.
					tg.alive(t)
				} else {
					tg.healthy(t)
				}
				if sig == syscall.SIGKILL {
					// The capture goes on without heapscope: wait for
					// its end before the directory is removed.
					deadline := time.Now().Add(2 * time.Minute)
					for {
						m, _ := filepath.Glob(filepath.Join(dir, ".heapscope-*", "status"))
						if len(m) == 1 {
							break
						}
						if time.Now().After(deadline) {
							t.Fatalf("the capture did not finish in its stage after heapscope was killed: %v", m)
						}
						time.Sleep(20 * time.Millisecond)
					}
					tg.healthy(t)
					// The next snapshot clears what the killed one left:
					// its stage next to the output, its directory in the
					// temporary directory.
					again := exec.Command(bin, "snapshot", "--python", tg.pid(), "-o", filepath.Join(dir, "y.pysnap"))
					again.Env = hs.Env
					if out, err := again.CombinedOutput(); err != nil {
						t.Fatalf("the next snapshot: %v\n%s", err, out)
					}
					assertOnly(t, dir, "y.pysnap")
					if m, _ := filepath.Glob(filepath.Join(tmp, "heapscope-attach-*")); len(m) > 0 {
						t.Errorf("left in the temporary directory: %v", m)
					}
				}
			})
		}
	}
}

// tracer returns the pid of the process that traces pid, 0 for none.
func tracer(pid string) int {
	b, _ := os.ReadFile("/proc/" + pid + "/status")
	for _, l := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(l, "TracerPid:"); ok {
			n, _ := strconv.Atoi(strings.TrimSpace(v))
			return n
		}
	}
	return 0
}

// TestSnapshotPythonWithdraw asks a program whose main thread waits in
// a read outside Python (until the test wakes it): at the timeout, or at
// SIGINT once heapscope has said it waits, heapscope withdraws the
// request and fails; when the program wakes it takes no snapshot and
// runs on as it was.
func TestSnapshotPythonWithdraw(t *testing.T) {
	pys := attachPythons(t)
	bin := heapscopeBinary(t)
	tg := startTarget(t, pys[len(pys)-1], nil)
	dir := t.TempDir()
	out := filepath.Join(dir, "x.pysnap")

	tg.block(t)
	var stdout, stderr bytes.Buffer
	err := run([]string{"snapshot", "--python", tg.pid(), "--timeout", "1s", "-o", out}, &stdout, &stderr)
	if code := exitCode(err); code != 1 || !errors.Is(err, attach.ErrWithdrawn) {
		t.Errorf("exit %d, %v; want 1 and the request withdrawn", code, err)
	}
	assertOnly(t, dir)
	tg.wake(t)
	tg.healthy(t)

	tg.block(t)
	hs := exec.Command(bin, "snapshot", "--python", tg.pid(), "-o", out)
	se, _ := hs.StderrPipe()
	if err := hs.Start(); err != nil {
		t.Fatal(err)
	}
	said := make(chan string, 16)
	go func() {
		r := bufio.NewReader(se)
		for {
			l, err := r.ReadString('\n')
			if l != "" {
				said <- l
			}
			if err != nil {
				close(said)
				return
			}
		}
	}()
	var all strings.Builder
	for l := range said {
		all.WriteString(l)
		if strings.Contains(l, "waiting for the main thread") {
			hs.Process.Signal(syscall.SIGINT)
		}
	}
	hs.Wait()
	if code := hs.ProcessState.ExitCode(); code != 130 || !strings.Contains(all.String(), "waiting for the main thread") {
		t.Errorf("heapscope exit %d, want 130 after saying it waits; stderr:\n%s", code, all.String())
	}
	assertOnly(t, dir)
	tg.wake(t)
	tg.healthy(t)
	assertOnly(t, dir)
}

// block has the program wait in a read of its stdin, outside Python, and
// waits until /proc says it is in that read.
func (tg *target) block(t *testing.T) {
	t.Helper()
	if got := tg.ask(t, "block"); got != "blocked" {
		t.Fatalf("block: %q", got)
	}
	deadline := time.Now().Add(time.Minute)
	for !inRead(tg.pid()) {
		if time.Now().After(deadline) {
			t.Fatalf("process %s is not reading its stdin", tg.pid())
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// wake ends the read block started.
func (tg *target) wake(t *testing.T) {
	t.Helper()
	if got := tg.ask(t, "wake"); got != "woken wake" {
		t.Fatalf("wake: %q", got)
	}
}

// inRead reports whether process pid is in a read(2) of file descriptor
// 0 (/proc/PID/syscall: the call's number, then its arguments).
func inRead(pid string) bool {
	b, _ := os.ReadFile("/proc/" + pid + "/syscall")
	f := strings.Fields(string(b))
	read := map[string]string{"amd64": "0", "arm64": "63"}[runtime.GOARCH]
	return len(f) > 1 && f[0] == read && f[1] == "0x0"
}

// TestSnapshotPythonKillGDB kills gdb as soon as it has attached: the
// program is neither stopped nor harmed, heapscope fails, and the next
// capture works.
func TestSnapshotPythonKillGDB(t *testing.T) {
	pys := attachPythons(t)
	tg := startTarget(t, pys[len(pys)-1], nil)
	dir := t.TempDir()
	out := filepath.Join(dir, "x.pysnap")
	killed := make(chan int, 1)
	go func() {
		deadline := time.Now().Add(time.Minute)
		for time.Now().Before(deadline) {
			if n := tracer(tg.pid()); n != 0 {
				syscall.Kill(n, syscall.SIGKILL)
				killed <- n
				return
			}
			time.Sleep(time.Millisecond)
		}
		killed <- 0
	}()
	var stdout, stderr bytes.Buffer
	err := run([]string{"snapshot", "--python", tg.pid(), "-o", out}, &stdout, &stderr)
	if n := <-killed; n == 0 {
		t.Fatal("gdb never attached")
	}
	if code := exitCode(err); code != 1 {
		t.Errorf("exit %d (%v), want 1", code, err)
	}
	tg.healthy(t)
	assertOnly(t, dir)
	if err := run([]string{"snapshot", "--python", tg.pid(), "-o", out}, &stdout, &stderr); err != nil {
		t.Fatalf("the next capture: %v\n%s", err, stderr.String())
	}
	assertOnly(t, dir, "x.pysnap")
	tg.healthy(t)
}

// TestSnapshotPythonOtherUser attaches, as root, to a program of the
// user nobody that cannot reach the output's directory: the snapshot
// goes through a stage in the temporary directory, and ends up root's,
// 0600; nothing is left behind. Then a heapscope that runs as nobody
// is refused a root process, with exit 1 and why.
func TestSnapshotPythonOtherUser(t *testing.T) {
	if os.Getuid() != 0 {
		t.Skip("needs root")
	}
	pys := attachPythons(t)
	py := pys[len(pys)-1]
	nobody := &syscall.Credential{Uid: 65534, Gid: 65534}
	tg := startTarget(t, py, nobody)
	dir := t.TempDir() // 0700: nobody cannot reach it
	out := filepath.Join(dir, "x.pysnap")
	before, _ := filepath.Glob(filepath.Join(os.TempDir(), ".heapscope-*"))
	var stdout, stderr bytes.Buffer
	if err := run([]string{"snapshot", "--python", tg.pid(), "-o", out}, &stdout, &stderr); err != nil {
		t.Fatalf("snapshot: %v\n%s", err, stderr.String())
	}
	assertOnly(t, dir, "x.pysnap")
	fi, _ := os.Stat(out)
	if st := fi.Sys().(*syscall.Stat_t); st.Uid != 0 {
		t.Errorf("the snapshot belongs to uid %d, want 0", st.Uid)
	}
	if countOf(t, out, "__main__.Leaked") == 0 {
		t.Errorf("no Leaked objects in the snapshot")
	}
	after, _ := filepath.Glob(filepath.Join(os.TempDir(), ".heapscope-*"))
	if len(after) > len(before) {
		t.Errorf("stage left in %s: %v", os.TempDir(), after)
	}
	tg.healthy(t)

	// heapscope as nobody, a root target.
	root := startTarget(t, py, nil)
	bin := heapscopeBinary(t)
	pub := publicDir(t, 0o777)
	b, _ := os.ReadFile(bin)
	os.WriteFile(filepath.Join(pub, "heapscope"), b, 0o755)
	hs := exec.Command(filepath.Join(pub, "heapscope"), "snapshot", "--python", root.pid(), "-o", filepath.Join(pub, "x.pysnap"))
	hs.SysProcAttr = &syscall.SysProcAttr{Credential: nobody}
	hs.Env = append(os.Environ(), "HOME="+pub, "XDG_CACHE_HOME="+pub)
	msg, _ := hs.CombinedOutput()
	if code := hs.ProcessState.ExitCode(); code != 1 || !strings.Contains(string(msg), "uid") {
		t.Errorf("heapscope as nobody: exit %d, %s; want 1 and why", code, msg)
	}
	root.healthy(t)
}

// TestSnapshotPythonNoGDB: without gdb, heapscope makes its calls into
// the process itself (Linux on x86-64) and the snapshot is taken; --gdb,
// or a system where heapscope has no calls of its own, exits 1 and says
// what to install.
func TestSnapshotPythonNoGDB(t *testing.T) {
	pys := attachPythons(t)
	tg := startTarget(t, pys[len(pys)-1], nil)
	t.Setenv("PATH", t.TempDir())
	own := runtime.GOOS == "linux" && runtime.GOARCH == "amd64"
	for _, useGDB := range []bool{false, true} {
		args := []string{"snapshot", "--python", tg.pid(), "-o", filepath.Join(t.TempDir(), "x.pysnap")}
		if useGDB {
			args = append(args, "--gdb")
		}
		var stdout, stderr bytes.Buffer
		err := run(args, &stdout, &stderr)
		if own && !useGDB {
			if err != nil {
				t.Errorf("%v: %v; want a snapshot without gdb", args, err)
			}
			continue
		}
		if code := exitCode(err); code != 1 || !strings.Contains(err.Error(), "gdb is not installed") {
			t.Errorf("%v: exit %d, %v; want 1 and that gdb is missing", args, code, err)
		}
	}
	tg.healthy(t)
}
