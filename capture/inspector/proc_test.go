package inspector

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"io"
	"net"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// echoProcess is a real process that is not Node: python3 answering
// each line on stdin. alive proves it still runs: it answers.
type echoProcess struct {
	cmd *exec.Cmd
	in  io.Writer
	out *bufio.Reader
}

func startEcho(t *testing.T) *echoProcess {
	t.Helper()
	py, err := exec.LookPath("python3")
	if err != nil {
		t.Skip("python3 is not installed")
	}
	cmd := exec.Command(py, "-u", "-c", "import sys\nfor l in sys.stdin: print('echo', l.strip())")
	in, _ := cmd.StdinPipe()
	out, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cmd.Process.Kill()
		cmd.Wait()
	})
	e := &echoProcess{cmd: cmd, in: in, out: bufio.NewReader(out)}
	e.alive(t) // started: the interpreter is up
	return e
}

func (e *echoProcess) alive(t *testing.T) {
	t.Helper()
	io.WriteString(e.in, "ping\n")
	line, err := e.out.ReadString('\n')
	if err != nil || line != "echo ping\n" {
		t.Fatalf("python3 %d no longer answers: %q, %v", e.cmd.Process.Pid, line, err)
	}
}

// running reports whether the child process pid has not exited.
func running(pid int) bool {
	var ws syscall.WaitStatus
	got, err := syscall.Wait4(pid, &ws, syscall.WNOHANG, nil)
	return err == nil && got == 0
}

// TestNotNode points Snapshot at real processes that are not Node (a
// python3 interpreter, sleep) and at no process: it refuses, with
// ErrNotNode, and sends nothing: both still run.
func TestNotNode(t *testing.T) {
	echo := startEcho(t)
	sleep := exec.Command("sleep", "600")
	if err := sleep.Start(); err != nil {
		t.Skip("no sleep:", err)
	}
	t.Cleanup(func() { sleep.Process.Kill(); sleep.Wait() })
	for _, pid := range []int{echo.cmd.Process.Pid, sleep.Process.Pid, 0, -1, 1 << 30} {
		err := Snapshot(context.Background(), pid, io.Discard, Options{})
		if !errors.Is(err, ErrNotNode) {
			t.Errorf("Snapshot(%d) = %v, want ErrNotNode", pid, err)
		}
	}
	if err := CheckNode(echo.cmd.Process.Pid); err == nil || !strings.Contains(err.Error(), "python") {
		t.Errorf("CheckNode(python3) = %v, want it to name python", err)
	}
	echo.alive(t)
	if !running(sleep.Process.Pid) {
		t.Errorf("sleep %d was ended", sleep.Process.Pid)
	}
	node, _ := startNode(t, "--inspect-port=0")
	if err := CheckNode(node.Process.Pid); err != nil {
		t.Errorf("CheckNode(node) = %v", err)
	}
}

// TestContainsBytes checks the scan for Node's marker across block
// boundaries.
func TestContainsBytes(t *testing.T) {
	pat := []byte("Debugger listening on ")
	for _, at := range []int{0, 1<<20 - 5, 1 << 20, 3<<20 + 7} {
		data := make([]byte, at+len(pat)+100)
		copy(data[at:], pat)
		r := io.MultiReader(bytes.NewReader(data[:at/3]), bytes.NewReader(data[at/3:at+3]), bytes.NewReader(data[at+3:]))
		if !containsBytes(r, pat) {
			t.Errorf("marker at %d not found", at)
		}
	}
	if containsBytes(bytes.NewReader(make([]byte, 5<<20)), pat) {
		t.Errorf("marker found in zeros")
	}
}

// TestPortTaken starts node with its inspector port set to a port the
// test listens on: Snapshot says at once that the port is taken, without
// waiting for its timeout; once the port is free, the capture works.
func TestPortTaken(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	port := ln.Addr().(*net.TCPAddr).Port
	cmd, _ := startNode(t, "--inspect-port="+strconv.Itoa(port))
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	err = Snapshot(ctx, cmd.Process.Pid, io.Discard, Options{})
	if err == nil || !strings.Contains(err.Error(), "port "+strconv.Itoa(port)+" is taken") {
		t.Fatalf("Snapshot() = %v, want the port reported taken", err)
	}
	if ctx.Err() != nil {
		t.Fatalf("Snapshot() waited for its timeout")
	}
	ln.Close()
	// Once closed, the port is anyone's: another test's server that asks
	// the system for a port may be given it (CI saw one) until it is done.
	// Wait for it to be free again, as a user would.
	var buf bytes.Buffer
	for deadline := time.Now().Add(2 * time.Minute); ; time.Sleep(200 * time.Millisecond) {
		buf.Reset()
		err = Snapshot(ctx, cmd.Process.Pid, &buf, Options{})
		// The other holder may also let the port go between Snapshot's
		// look and this one: retry while Snapshot says it is taken.
		taken := err != nil && strings.Contains(err.Error(), "is taken by another process")
		if err == nil || !(taken || portTaken(cmd.Process.Pid, port)) || time.Now().After(deadline) {
			break
		}
		t.Logf("port %d taken again by another process: %v", port, err)
	}
	if err != nil {
		t.Fatalf("Snapshot() once the port is free = %v", err)
	}
	checkSnapshot(t, buf.Bytes())
	assertClosed(t, cmd.Process.Pid, nil)
}

// assertClosed checks that process pid listens on no port but those in
// keep: the inspector it did not have before is closed.
func assertClosed(t *testing.T, pid int, keep []int) {
	t.Helper()
	ports, ok := ListeningPorts(pid)
	if !ok {
		t.Skip("no /proc: cannot see the process's ports")
	}
	for _, p := range ports {
		found := false
		for _, k := range keep {
			found = found || k == p
		}
		if !found {
			t.Errorf("process %d still listens on port %d (ports %v)", pid, p, ports)
		}
	}
}
