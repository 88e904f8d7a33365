package main

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/heapscope/heapscope/analyze"
	"github.com/heapscope/heapscope/capture/inspector"
	"github.com/heapscope/heapscope/heapfile"
)

// liveJS keeps 123 Marker objects and a secret in several forms, and
// prints "ready". The secret's word is built at run time, so that the
// script's own text does not hold it.
const liveJS = `
class Marker { constructor(i) { this.i = i; } }
globalThis.keep = Array.from({length: 123}, (_, i) => new Marker(i));
const w = ['S3', 'CR', '3T'].join('');
class Vault { constructor() { this.password = 'pw-' + w + '-' + process.pid; } }
globalThis.vault = new Vault();
globalThis.sessions = {};
for (let i = 0; i < 40; i++) sessions['key' + i + '-' + w + '-' + process.pid] = { i };
globalThis.big = Array.from({length: +(process.env.BIG || 0)}, (_, i) => ({ i, s: 'item' + i }));
setInterval(() => {}, 1000);
console.log('ready');
`

var secretWord = regexp.MustCompile("S3" + "CR3T")

// startLive starts node running liveJS with its inspector closed (it
// opens on a free port at SIGUSR1) and big extra objects.
func startLive(t *testing.T, big int) *exec.Cmd {
	t.Helper()
	if _, err := exec.LookPath("node"); err != nil {
		t.Skip("node is not installed")
	}
	cmd := exec.Command("node", "--inspect-port=0", "-e", liveJS)
	cmd.Env = append(os.Environ(), "BIG="+strconv.Itoa(big))
	return startReady(t, cmd)
}

// startReady starts cmd and waits for it to print "ready".
func startReady(t *testing.T, cmd *exec.Cmd) *exec.Cmd {
	t.Helper()
	stdout, _ := cmd.StdoutPipe()
	var stderr bytes.Buffer // read once Wait has copied it all
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		// A test that failed shows what the program said and how it
		// ended: it may have died before the test killed it.
		stat, _ := os.ReadFile(filepath.Join("/proc", strconv.Itoa(cmd.Process.Pid), "stat"))
		_, state, _ := strings.Cut(string(stat), ") ")
		// SIGTERM first: a JVM killed with SIGKILL leaves its attach
		// socket in /tmp, which a later JVM given the same pid inherits.
		cmd.Process.Signal(syscall.SIGTERM)
		ended := make(chan struct{})
		go func() { cmd.Wait(); close(ended) }()
		select {
		case <-ended:
		case <-time.After(10 * time.Second):
			cmd.Process.Kill()
			<-ended
		}
		if t.Failed() {
			how := "was killed when the test ended"
			if stat == nil || strings.HasPrefix(state, "Z") {
				how = "had ended by itself: " + cmd.ProcessState.String()
			}
			t.Logf("%s %d %s; its stderr:\n%s", filepath.Base(cmd.Path), cmd.Process.Pid, how, stderr.String())
		}
	})
	line, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil || strings.TrimSpace(line) != "ready" {
		t.Fatalf("%s did not start: %q, %v", cmd.Path, line, err)
	}
	return cmd
}

// countOf reads a snapshot and returns the number of objects of type typ.
func countOf(t *testing.T, path, typ string) int {
	t.Helper()
	g, err := heapfile.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range analyze.Summary(g) {
		if r.Type == typ {
			return r.Count
		}
	}
	return 0
}

// assertOnly checks that dir holds exactly the named files, each 0600.
func assertOnly(t *testing.T, dir string, names ...string) {
	t.Helper()
	entries, _ := os.ReadDir(dir)
	var got []string
	for _, e := range entries {
		got = append(got, e.Name())
		if fi, err := e.Info(); err == nil && !fi.IsDir() && fi.Mode().Perm() != 0o600 {
			t.Errorf("%s has mode %v, want 0600", e.Name(), fi.Mode().Perm())
		}
	}
	if strings.Join(got, " ") != strings.Join(names, " ") {
		t.Errorf("%s holds %v, want %v", dir, got, names)
	}
}

// assertInspectorClosed checks that process pid listens on no port (the
// node programs here listen on none of their own).
func assertInspectorClosed(t *testing.T, pid int) {
	t.Helper()
	if ports, ok := inspector.ListeningPorts(pid); ok && len(ports) > 0 {
		t.Errorf("process %d still listens on %v", pid, ports)
	}
}

// TestSnapshotNode captures a live node process with and without
// values: exit 0, a 0600 file with the program's objects, the inspector
// closed after, and no secret in the file written with --values=false.
func TestSnapshotNode(t *testing.T) {
	cmd := startLive(t, 0)
	pid := strconv.Itoa(cmd.Process.Pid)
	dir := t.TempDir()
	for _, tc := range []struct {
		name   string
		flags  []string
		secret bool
	}{
		{"plain.heapsnapshot", nil, true},
		{"novalues.heapsnapshot", []string{"--values=false"}, false},
	} {
		out := filepath.Join(dir, tc.name)
		var stdout, stderr bytes.Buffer
		args := append([]string{"snapshot", "--node", pid, "-o", out}, tc.flags...)
		if err := run(args, &stdout, &stderr); err != nil {
			t.Fatalf("%v: %v\n%s", args, err, stderr.String())
		}
		if stdout.String() != "wrote "+out+"\n" {
			t.Errorf("stdout %q", stdout.String())
		}
		if n := countOf(t, out, "Marker"); n != 123 {
			t.Errorf("%s: %d Marker objects, want 123", tc.name, n)
		}
		b, _ := os.ReadFile(out)
		if got := secretWord.Match(b); got != tc.secret {
			t.Errorf("%s: holds the secret: %v, want %v", tc.name, got, tc.secret)
		}
		assertInspectorClosed(t, cmd.Process.Pid)
	}
	assertOnly(t, dir, "novalues.heapsnapshot", "plain.heapsnapshot")
}

// echoPython starts a real python3 that answers lines on stdin, a
// process that is not Node or a JVM; the returned function checks that
// it still answers.
func echoPython(t *testing.T) (*exec.Cmd, func()) {
	t.Helper()
	if _, err := exec.LookPath("python3"); err != nil {
		t.Skip("python3 is not installed")
	}
	cmd := exec.Command("python3", "-u", "-c", "import sys\nprint('ready')\nfor l in sys.stdin: print('echo', l.strip())")
	in, _ := cmd.StdinPipe()
	out, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	r := bufio.NewReader(out)
	if l, err := r.ReadString('\n'); err != nil || l != "ready\n" {
		t.Fatalf("python3 did not start: %q %v", l, err)
	}
	return cmd, func() {
		t.Helper()
		io.WriteString(in, "ping\n")
		if l, err := r.ReadString('\n'); err != nil || l != "echo ping\n" {
			t.Fatalf("python3 %d no longer answers: %q %v", cmd.Process.Pid, l, err)
		}
	}
}

// TestSnapshotRefuses points snapshot at processes it must not signal
// and at outputs it must not write: exit 2, nothing written, the
// processes still run.
func TestSnapshotRefuses(t *testing.T) {
	py, alive := echoPython(t)
	sleep := exec.Command("sleep", "600")
	if err := sleep.Start(); err != nil {
		t.Skip("no sleep:", err)
	}
	t.Cleanup(func() { sleep.Process.Kill(); sleep.Wait() })
	node := startLive(t, 0)
	dir := t.TempDir()
	out := filepath.Join(dir, "x.snap")
	pyPID, sleepPID, nodePID := strconv.Itoa(py.Process.Pid), strconv.Itoa(sleep.Process.Pid), strconv.Itoa(node.Process.Pid)
	for _, args := range [][]string{
		{"snapshot", "--node", pyPID, "-o", out},
		{"snapshot", "--node", sleepPID, "-o", out},
		{"snapshot", "--java", pyPID, "-o", out},
		{"snapshot", "--java", sleepPID, "-o", out},
		{"snapshot", "--java", nodePID, "-o", out},
		{"snapshot", "--node", "999999999", "-o", out},
		{"snapshot", "--node", nodePID, "-o", dir},                        // a directory
		{"snapshot", "--node", nodePID, "-o", filepath.Join(dir, "no/x")}, // no such directory
		{"snapshot", "--java", pyPID, "--values=false", "-o", out},        // no redaction for HPROF
		{"snapshot", "--node", nodePID, "--java", nodePID, "-o", out},     // both
	} {
		var stdout, stderr bytes.Buffer
		if code := exitCode(run(args, &stdout, &stderr)); code != 2 {
			t.Errorf("%v: exit %d, want 2; stderr %s", args, code, stderr.String())
		}
	}
	alive()
	var ws syscall.WaitStatus
	if got, _ := syscall.Wait4(sleep.Process.Pid, &ws, syscall.WNOHANG, nil); got != 0 {
		t.Errorf("sleep was ended: %v", ws)
	}
	assertOnly(t, dir)
	assertInspectorClosed(t, node.Process.Pid)
}

// TestSnapshotInterrupt sends SIGINT to a heapscope binary while the
// snapshot streams into its temporary file: it exits 130, leaves no file
// and no open inspector, and the process still runs (a capture after it
// works).
func TestSnapshotInterrupt(t *testing.T) {
	node := startLive(t, 200000)
	interruptCapture(t, "--node", node.Process.Pid, "big.heapsnapshot", func() { assertInspectorClosed(t, node.Process.Pid) })
}

// interruptCapture runs heapscope snapshot FLAG PID into a fresh
// directory, sends it SIGINT once its temporary file has something in
// it, and checks that it exits 130 leaving nothing behind; then
// survived checks the process, and a capture after the interrupted one
// must write name, whole.
func interruptCapture(t *testing.T, flag string, pid int, name string, survived func()) {
	t.Helper()
	dir := t.TempDir()
	out := filepath.Join(dir, name)
	hs := exec.Command(heapscopeBinary(t), "snapshot", flag, strconv.Itoa(pid), "-o", out)
	exited, stderr := startUntil(t, hs, "the interrupt", 20*time.Millisecond, stageWritten(dir))
	hs.Process.Signal(syscall.SIGINT)
	err := <-exited
	if code := hs.ProcessState.ExitCode(); code != 130 {
		t.Fatalf("heapscope exit %d (%v), want 130; stderr:\n%s", code, err, stderr.String())
	}
	assertOnly(t, dir)
	survived()
	var so, se bytes.Buffer
	if err := run([]string{"snapshot", flag, strconv.Itoa(pid), "-o", out}, &so, &se); err != nil {
		t.Fatalf("a capture after the interrupted one: %v\n%s", err, se.String())
	}
	assertOnly(t, dir, name)
}

// sleeperJava is a JVM program that prints "ready" and waits.
const sleeperJava = `public class Sleeper {
	static Object[] keep = new Object[1234];
	public static void main(String[] a) throws Exception {
		for (int i = 0; i < keep.length; i++) keep[i] = new Sleeper();
		System.out.println("ready");
		Thread.sleep(600000);
	}
}
`

// startJava runs sleeperJava as a single-file program, as user uid if
// uid >= 0.
func startJava(t *testing.T, uid int) *exec.Cmd {
	return startJavaProgram(t, uid, sleeperJava, "-Xmx64m")
}

// bigJava is a JVM program that holds 160 MB in two and a half million small
// objects, so that a dump of it takes seconds.
const bigJava = `public class Sleeper {
	static Object[] keep = new Object[2500000];
	long a, b, c, d, e, f;
	public static void main(String[] a) throws Exception {
		for (int i = 0; i < keep.length; i++) keep[i] = new Sleeper();
		System.out.println("ready");
		Thread.sleep(600000);
	}
}
`

// TestSnapshotJavaInterrupt sends SIGINT to a heapscope binary while the
// JVM writes its dump: heapscope waits for jcmd, removes the partial
// dump and exits 130; the JVM still runs, and a capture after it works.
func TestSnapshotJavaInterrupt(t *testing.T) {
	jvm := startJavaProgram(t, -1, bigJava, "-Xmx512m")
	interruptCapture(t, "--java", jvm.Process.Pid, "big.hprof", func() {
		if err := jvm.Process.Signal(syscall.Signal(0)); err != nil {
			t.Fatalf("the JVM did not survive the interrupted dump: %v", err)
		}
	})
}

// stageWritten reports whether dir holds a temporary file of heapscope's
// (.heapscope-*) with something in it.
func stageWritten(dir string) func() bool {
	return func() bool {
		entries, _ := os.ReadDir(dir)
		for _, e := range entries {
			if fi, err := e.Info(); err == nil && strings.HasPrefix(e.Name(), ".heapscope-") && fi.Size() > 0 {
				return true
			}
		}
		return false
	}
}

// startJavaProgram runs the Java source prog (class Sleeper) as a
// single-file program with the JVM flag xmx, as user uid if uid >= 0.
func startJavaProgram(t *testing.T, uid int, prog, xmx string) *exec.Cmd {
	t.Helper()
	for _, tool := range []string{"java", "jcmd"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("%s is not installed", tool)
		}
	}
	// A directory the JVM's user can read, whoever it is.
	src, err := os.MkdirTemp("", "heapscope-java-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(src) })
	os.Chmod(src, 0o755)
	file := filepath.Join(src, "Sleeper.java")
	if err := os.WriteFile(file, []byte(prog), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("java", xmx, file)
	if uid >= 0 {
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: uint32(uid), Gid: uint32(uid)}}
	}
	return startReady(t, cmd)
}

// TestSnapshotJavaStaleAttachFile gives a JVM the attach socket that an
// earlier process with its pid would have left (a JVM killed with
// SIGKILL keeps /tmp/.java_pidN, and the system reuses pids): snapshot
// --java removes it and dumps the JVM, where jcmd alone fails with
// "Connection refused".
func TestSnapshotJavaStaleAttachFile(t *testing.T) {
	jvm := startJava(t, -1)
	pid := jvm.Process.Pid
	sock := fmt.Sprintf("/proc/%d/root/tmp/.java_pid%d", pid, pid)
	l, err := net.ListenUnix("unix", &net.UnixAddr{Name: sock, Net: "unix"})
	if err != nil {
		t.Fatal(err)
	}
	l.SetUnlinkOnClose(false)
	l.Close()
	t.Cleanup(func() { os.Remove(sock) })
	hourAgo := time.Now().Add(-time.Hour)
	if err := os.Chmod(sock, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Chtimes(sock, hourAgo, hourAgo); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "app.hprof")
	var stdout, stderr bytes.Buffer
	if err := run([]string{"snapshot", "--java", strconv.Itoa(pid), "-o", out}, &stdout, &stderr); err != nil {
		t.Fatalf("snapshot --java with a stale attach file: %v\n%s", err, stderr.String())
	}
	if n := countOf(t, out, "Sleeper"); n != 1234 {
		t.Errorf("%d Sleeper objects, want 1234", n)
	}
}

// TestSnapshotJava dumps a live JVM with jcmd: a 0600 HPROF file, also
// over an older file of the same name; and, for a JVM of another user
// that cannot write the directory (jcmd then prints the JVM's error and
// exits 0), exit 1 with that error and nothing written.
func TestSnapshotJava(t *testing.T) {
	jvm := startJava(t, -1)
	dir := t.TempDir()
	out := filepath.Join(dir, "app.hprof")
	os.WriteFile(out, []byte("old"), 0o644)
	var stdout, stderr bytes.Buffer
	if err := run([]string{"snapshot", "--java", strconv.Itoa(jvm.Process.Pid), "-o", out}, &stdout, &stderr); err != nil {
		t.Fatalf("snapshot --java: %v\n%s", err, stderr.String())
	}
	if n := countOf(t, out, "Sleeper"); n != 1234 {
		t.Errorf("%d Sleeper objects, want 1234", n)
	}
	assertOnly(t, dir, "app.hprof")

	if os.Getuid() != 0 {
		t.Skip("a JVM of another user needs root to start")
	}
	other := startJava(t, 65534) // nobody: cannot write into dir (0700)
	out2 := filepath.Join(dir, "other.hprof")
	stdout.Reset()
	stderr.Reset()
	err := run([]string{"snapshot", "--java", strconv.Itoa(other.Process.Pid), "-o", out2}, &stdout, &stderr)
	if code := exitCode(err); code != 1 || !strings.Contains(err.Error(), "Permission denied") {
		t.Errorf("snapshot --java of nobody's JVM: exit %d, %v; want 1 and the JVM's error", code, err)
	}
	if stdout.Len() != 0 {
		t.Errorf("stdout %q, want nothing", stdout.String())
	}
	assertOnly(t, dir, "app.hprof")
}

// TestSnapshotJavaFullDisk dumps a JVM onto a file system too small for
// its dump (a 1 MiB tmpfs): the JVM's write fails part way and jcmd
// exits 0, but snapshot --java exits 1, says the dump was cut short and
// the file system full, and leaves no file.
func TestSnapshotJavaFullDisk(t *testing.T) {
	jvm := startJava(t, -1)
	dir := t.TempDir()
	if out, err := exec.Command("mount", "-t", "tmpfs", "-o", "size=1m", "tmpfs", dir).CombinedOutput(); err != nil {
		t.Skipf("cannot mount a small file system here (root and mount permission needed): %v: %s", err, out)
	}
	t.Cleanup(func() { exec.Command("umount", dir).Run() })
	var stdout, stderr bytes.Buffer
	err := run([]string{"snapshot", "--java", strconv.Itoa(jvm.Process.Pid), "-o", filepath.Join(dir, "app.hprof")}, &stdout, &stderr)
	if code := exitCode(err); code != 1 || !strings.Contains(err.Error(), "cut short") || !strings.Contains(err.Error(), "is full") {
		t.Errorf("snapshot --java onto a full file system: exit %d, %v; want 1, cut short, full", code, err)
	}
	if stdout.Len() != 0 {
		t.Errorf("stdout %q, want nothing", stdout.String())
	}
	assertOnly(t, dir)
}
