package main

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// runProgram is heapscope run started as its own process, as a user
// starts it, with the program's stdout and heapscope's stderr.
type runProgram struct {
	cmd    *exec.Cmd
	dir    string
	tmp    string // the TMPDIR heapscope runs with, its own
	child  int    // the PID heapscope says the program has
	mu     sync.Mutex
	stderr bytes.Buffer
	read   chan struct{} // closed when stderr is read to its end
}

var childLine = regexp.MustCompile(`heapscope: child PID (\d+)( \(send (\w+) to (?:(\d+) or to )?heapscope (\d+) for a snapshot\))?\n`)

// startRun starts heapscope run with args (before --) and prog, and
// waits for the program to print "ready" and for heapscope to name its
// child.
func startRun(t *testing.T, args []string, prog ...string) *runProgram {
	t.Helper()
	r := &runProgram{dir: filepath.Join(t.TempDir(), "snaps"), tmp: t.TempDir(), read: make(chan struct{})}
	r.cmd = exec.Command(heapscopeBinary(t), append(append(append([]string{"run", "-o", r.dir}, args...), "--"), prog...)...)
	// A TMPDIR of its own: other tests and programs on the machine make
	// and remove temporary directories of the same pattern meanwhile.
	r.cmd.Env = append(os.Environ(), "TMPDIR="+r.tmp)
	// A process group of its own, as a shell's job: the signals the tests
	// send come from kill, not from a terminal. In the group of a test
	// run in a terminal's foreground, heapscope would take SIGINT and
	// SIGHUP for the terminal's, which the program got too, and not pass
	// them on (see supervisor.child): the program would run on, and the
	// test fail with "heapscope still runs" (it did, every time, run
	// under a terminal). A Ctrl-C of the test run no longer reaches it.
	r.cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	stdout, _ := r.cmd.StdoutPipe()
	stderr, _ := r.cmd.StderrPipe()
	if err := r.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		r.cmd.Process.Kill()
		r.cmd.Wait()
		if r.child > 0 {
			syscall.Kill(r.child, syscall.SIGKILL)
		}
	})
	lines := make(chan string, 1)
	go func() {
		defer close(r.read)
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			r.mu.Lock()
			r.stderr.WriteString(sc.Text() + "\n")
			r.mu.Unlock()
			if strings.HasPrefix(sc.Text(), "heapscope: child PID") {
				lines <- sc.Text() + "\n"
			}
		}
	}()
	ready := make(chan string, 1)
	go func() {
		line, _ := bufio.NewReader(stdout).ReadString('\n')
		ready <- line
		io.Copy(io.Discard, stdout)
	}()
	var line string
	select {
	case line = <-lines:
	case <-time.After(2 * time.Minute):
		t.Fatalf("heapscope named no child; stderr:\n%s", r.errText())
	}
	m := childLine.FindStringSubmatch(line)
	if m == nil {
		t.Fatalf("child line %q", line)
	}
	r.child, _ = strconv.Atoi(m[1])
	if m[2] != "" {
		if m[5] != strconv.Itoa(r.cmd.Process.Pid) || (m[4] != "" && m[4] != m[1]) {
			t.Errorf("child line %q: heapscope is %d", line, r.cmd.Process.Pid)
		}
	}
	if ppid := parentOf(r.child); ppid != r.cmd.Process.Pid {
		t.Errorf("process %d's parent is %d, not heapscope %d", r.child, ppid, r.cmd.Process.Pid)
	}
	select {
	case l := <-ready:
		if strings.TrimSpace(l) != "ready" {
			t.Fatalf("the program said %q; stderr:\n%s", l, r.errText())
		}
	case <-time.After(2 * time.Minute):
		t.Fatalf("the program is not ready; stderr:\n%s", r.errText())
	}
	return r
}

func (r *runProgram) errText() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.stderr.String()
}

// parentOf returns the parent of process pid, or 0.
func parentOf(pid int) int {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0
	}
	_, rest, _ := strings.Cut(string(b), ") ")
	f := strings.Fields(rest)
	if len(f) < 2 {
		return 0
	}
	n, _ := strconv.Atoi(f[1])
	return n
}

// waitFor waits for a file of dir that matches glob, and returns it.
func (r *runProgram) waitFor(t *testing.T, glob string) string {
	t.Helper()
	deadline := time.Now().Add(3 * time.Minute)
	for time.Now().Before(deadline) {
		if m, _ := filepath.Glob(filepath.Join(r.dir, glob)); len(m) == 1 {
			return m[0]
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatalf("no %s in %s; stderr:\n%s", glob, r.dir, r.errText())
	return ""
}

// end signals heapscope with s and waits for it and its child to end.
func (r *runProgram) end(t *testing.T, s syscall.Signal) {
	t.Helper()
	r.cmd.Process.Signal(s)
	r.wait(t)
	if b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", r.child)); err == nil {
		t.Errorf("the program still runs after heapscope ended: %s", b)
	}
}

// wait waits for heapscope to end (and whatever holds its stderr), and
// returns its Wait error.
func (r *runProgram) wait(t *testing.T) error {
	t.Helper()
	select {
	case <-r.read:
	case <-time.After(3 * time.Minute):
		t.Fatalf("heapscope still runs; stderr:\n%s", r.errText())
	}
	return r.cmd.Wait()
}

// snapshotsOnly checks that dir holds exactly the snapshots named by the
// patterns (NNNN-PID-REASON), nothing temporary.
func snapshotsOnly(t *testing.T, dir string, patterns ...string) {
	t.Helper()
	entries, _ := os.ReadDir(dir)
	var got []string
	for _, e := range entries {
		got = append(got, e.Name())
	}
	ok := len(got) == len(patterns)
	for i := 0; ok && i < len(got); i++ {
		ok, _ = filepath.Match(patterns[i], got[i])
	}
	if !ok {
		t.Errorf("%s holds %v, want %v", dir, got, patterns)
	}
}

// runTemps lists the temporary directories heapscope run left in tmp.
func runTemps(tmp string) []string {
	m, _ := filepath.Glob(filepath.Join(tmp, "heapscope-run-*"))
	return m
}

// TestRunForwardsSignals runs real python3, node and java programs under
// heapscope run --at-exit --signal SIGUSR2, started as a user starts it:
// heapscope names the program's PID; SIGUSR2 sent to heapscope makes the
// program take a snapshot (the agent's signal handler for Python and
// Node, jcmd for the JVM) that reads back with the program's objects;
// interrupting heapscope ends the program, which takes its at-exit
// snapshot, and leaves nothing temporary behind.
func TestRunForwardsSignals(t *testing.T) {
	tests := []struct {
		name  string
		tools []string
		prog  []string
		end   syscall.Signal
		ext   string
		typ   string
	}{
		{"python", []string{"python3"}, []string{"python3", "-c",
			"import time\nclass Marker: pass\nkeep = [Marker() for _ in range(321)]\nprint('ready', flush=True)\nwhile True: time.sleep(0.05)"},
			syscall.SIGINT, "pysnap", "__main__.Marker"},
		{"node", []string{"node"}, []string{"node", "--inspect-port=0", "-e",
			"class Marker {}; globalThis.keep = Array.from({length: 321}, () => new Marker()); setInterval(() => {}, 1000); console.log('ready')"},
			syscall.SIGTERM, "heapsnapshot", "Marker"},
		{"java", []string{"java", "jcmd"}, nil, syscall.SIGTERM, "hprof", "Marker"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			for _, tool := range tc.tools {
				if _, err := exec.LookPath(tool); err != nil {
					t.Skipf("%s is not installed", tool)
				}
			}
			prog := tc.prog
			if tc.name == "java" {
				prog = []string{"java", "-Xmx64m", markerJava(t)}
			}
			r := startRun(t, []string{"--at-exit", "--signal", "SIGUSR2"}, prog...)
			pid := strconv.Itoa(r.child)
			r.cmd.Process.Signal(syscall.SIGUSR2)
			snap := r.waitFor(t, "0001-"+pid+"-signal."+tc.ext)
			if n := countOf(t, snap, tc.typ); n != 321 {
				t.Errorf("%s: %d objects of %s, want 321", snap, n, tc.typ)
			}
			r.end(t, tc.end)
			snapshotsOnly(t, r.dir, "0001-"+pid+"-signal."+tc.ext, "0002-"+pid+"-exit."+tc.ext)
			if t.Failed() {
				t.Logf("heapscope's stderr:\n%s", r.errText())
			}
			if n := countOf(t, filepath.Join(r.dir, "0002-"+pid+"-exit."+tc.ext), tc.typ); n != 321 {
				t.Errorf("exit snapshot: %d objects of %s, want 321", n, tc.typ)
			}
			if left := runTemps(r.tmp); len(left) > 0 {
				t.Errorf("temporary directories %v left behind", left)
			}
			if !strings.Contains(r.errText(), "2 snapshot(s)") {
				t.Errorf("stderr does not count two snapshots:\n%s", r.errText())
			}
		})
	}
}

// markerJava writes a Java program that holds 321 Marker objects and
// says ready, and returns its path.
func markerJava(t *testing.T) string {
	t.Helper()
	src := filepath.Join(t.TempDir(), "Marker.java")
	prog := `import java.util.ArrayList;
public class Marker {
    static ArrayList<Marker> keep = new ArrayList<>();
    public static void main(String[] args) throws Exception {
        for (int i = 0; i < 321; i++) keep.add(new Marker());
        System.out.println("ready");
        Thread.sleep(600000);
    }
}
`
	if err := os.WriteFile(src, []byte(prog), 0o644); err != nil {
		t.Fatal(err)
	}
	return src
}

// TestRunJavaEvery: run -- java --every takes dumps with jcmd on a timer,
// and the at-exit dump when the program ends its own way.
func TestRunJavaEvery(t *testing.T) {
	for _, tool := range []string{"java", "jcmd"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("%s is not installed", tool)
		}
	}
	src := filepath.Join(t.TempDir(), "Short.java")
	// The program ends its own way when the file args[0] appears.
	prog := `public class Short {
    static byte[][] keep = new byte[77][];
    public static void main(String[] args) throws Exception {
        for (int i = 0; i < keep.length; i++) keep[i] = new byte[1000];
        System.out.println("ready");
        java.io.File stop = new java.io.File(args[0]);
        while (!stop.exists()) Thread.sleep(20);
        System.exit(3);
    }
}
`
	os.WriteFile(src, []byte(prog), 0o644)
	stop := filepath.Join(t.TempDir(), "stop")
	r := startRun(t, []string{"--at-exit", "--every", "1s"}, "java", "-Xmx64m", src, stop)
	pid := strconv.Itoa(r.child)
	r.waitFor(t, "0001-"+pid+"-interval.hprof")
	os.WriteFile(stop, nil, 0o644)
	err := r.wait(t)
	if code := exitStatusOf(err); code != 3 {
		t.Errorf("exit %d (%v), want the program's 3", code, err)
	}
	exits, _ := filepath.Glob(filepath.Join(r.dir, "*-"+pid+"-exit.hprof"))
	if len(exits) != 1 {
		all, _ := filepath.Glob(filepath.Join(r.dir, "*"))
		t.Fatalf("no exit dump among %v; stderr:\n%s", all, r.errText())
	}
	if n := countOf(t, exits[0], "Short"); n != 0 {
		t.Errorf("%d Short objects, want none (main's class has no instances)", n)
	}
	if n := countOf(t, exits[0], "byte[][]"); n < 1 {
		t.Errorf("the exit dump has no byte[][] (Short.keep)")
	}
	entries, _ := os.ReadDir(r.dir)
	for _, e := range entries {
		if ok, _ := filepath.Match("[0-9][0-9][0-9][0-9]-"+pid+"-*.hprof", e.Name()); !ok {
			t.Errorf("%s in %s is no dump", e.Name(), r.dir)
		}
	}
}

func exitStatusOf(err error) int {
	if err == nil {
		return 0
	}
	if ee, ok := err.(*exec.ExitError); ok {
		return ee.ExitCode()
	}
	return -1
}

// TestRunSignalNotHandled: a program that does not handle the snapshot
// signal is not sent it (it would end it); SIGTERM to heapscope still
// ends it.
func TestRunSignalNotHandled(t *testing.T) {
	r := startRun(t, []string{"--signal", "SIGUSR2"}, "sh", "-c", "echo ready; exec sleep 600")
	r.cmd.Process.Signal(syscall.SIGUSR2)
	deadline := time.Now().Add(time.Minute)
	for !strings.Contains(r.errText(), "does not handle") && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	if !strings.Contains(r.errText(), fmt.Sprintf("process %d does not handle SIGUSR2", r.child)) {
		t.Errorf("stderr does not say the signal was held back:\n%s", r.errText())
	}
	if parentOf(r.child) != r.cmd.Process.Pid {
		t.Errorf("the program ended on a signal heapscope held back")
	}
	r.end(t, syscall.SIGTERM)
}

// TestRunPythonTermSnapshot: a Python program that does not handle
// SIGTERM or SIGHUP still takes its at-exit snapshot when one ends it (the
// agent's handler takes it, then dies of the signal as the program would
// have); a program that handles SIGTERM itself keeps its handler, and
// takes the snapshot when that handler exits.
func TestRunPythonTermSnapshot(t *testing.T) {
	if _, err := exec.LookPath("python3"); err != nil {
		t.Skip("python3 is not installed")
	}
	const marker = "import time\nclass Marker: pass\nkeep = [Marker() for _ in range(321)]\n"
	for _, tc := range []struct {
		name   string
		prog   string
		send   syscall.Signal
		status string // of heapscope run: 128+N for a program that died of signal N
	}{
		{"SIGTERM", marker + "print('ready', flush=True)\ntime.sleep(600)", syscall.SIGTERM, "exit status 143"},
		{"SIGHUP", marker + "print('ready', flush=True)\ntime.sleep(600)", syscall.SIGHUP, "exit status 129"},
		{"own handler", marker + "import signal, sys\ndef bye(s, f):\n    print('bye', file=sys.stderr, flush=True)\n    sys.exit(7)\n" +
			"signal.signal(signal.SIGTERM, bye)\nprint('ready', flush=True)\ntime.sleep(600)", syscall.SIGTERM, "exit status 7"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := startRun(t, []string{"--at-exit"}, "python3", "-c", tc.prog)
			r.cmd.Process.Signal(tc.send)
			err := r.wait(t)
			if got := fmt.Sprint(err); got != tc.status {
				t.Errorf("heapscope run ended with %q, want %q (the program's own end); stderr:\n%s", got, tc.status, r.errText())
			}
			if strings.Contains(r.errText(), "without its at-exit snapshot") {
				t.Errorf("stderr says the snapshot is lost:\n%s", r.errText())
			}
			if tc.name == "own handler" && !strings.Contains(r.errText(), "bye") {
				t.Errorf("the program's own SIGTERM handler did not run; stderr:\n%s", r.errText())
			}
			pid := strconv.Itoa(r.child)
			snapshotsOnly(t, r.dir, "0001-"+pid+"-exit.pysnap")
			if n := countOf(t, filepath.Join(r.dir, "0001-"+pid+"-exit.pysnap"), "__main__.Marker"); n != 321 {
				t.Errorf("exit snapshot: %d objects of __main__.Marker, want 321", n)
			}
		})
	}
}

// TestRunTraceAllocCrash: a program that crashes under run --trace-alloc
// (V8's allocation tracker crashes some Node programs) leaves with the
// status of its signal, and heapscope says what may have caused it and
// what to try; a program killed by another signal gets no such advice.
func TestRunTraceAllocCrash(t *testing.T) {
	for _, tc := range []struct {
		sig    string
		status string
		hint   bool
	}{{"SEGV", "exit status 139", true}, {"TERM", "exit status 143", false}} {
		// The program ends itself once the test has seen it start.
		gone := filepath.Join(t.TempDir(), "go")
		r := startRun(t, []string{"--at-exit", "--trace-alloc"}, "sh", "-c",
			"echo ready; while [ ! -e "+gone+" ]; do sleep 0.02; done; kill -"+tc.sig+" $$")
		os.WriteFile(gone, nil, 0o600)
		err := r.wait(t)
		if fmt.Sprint(err) != tc.status {
			t.Errorf("SIG%s: heapscope run ended with %v, want %s", tc.sig, err, tc.status)
		}
		if hint := strings.Contains(r.errText(), "run node with --no-opt"); hint != tc.hint {
			t.Errorf("SIG%s: advice given %v, want %v; stderr:\n%s", tc.sig, hint, tc.hint, r.errText())
		}
	}
}
