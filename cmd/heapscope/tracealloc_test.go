package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/heapscope/heapscope/internal/heaptest"
)

// leakRow is a finding as leaks --json writes it.
type leakRow struct {
	Type      string `json:"type"`
	Count     int    `json:"count"`
	Path      string `json:"path"`
	Allocated struct {
		Sites []struct {
			Count  int              `json:"count"`
			Frames []map[string]any `json:"frames"`
		} `json:"sites"`
		Unknown int `json:"unknown"`
	} `json:"allocated"`
}

// leaksJSON runs leaks --json on three snapshots and returns its
// findings.
func leaksJSON(t *testing.T, snaps []string) []leakRow {
	t.Helper()
	var stdout, stderr bytes.Buffer
	if err := run(append([]string{"leaks", "--json"}, snaps...), &stdout, &stderr); err != nil {
		t.Fatalf("leaks: %v\n%s", err, stderr.String())
	}
	var rep struct {
		Rows []leakRow `json:"rows"`
	}
	if err := json.Unmarshal(stdout.Bytes(), &rep); err != nil || len(rep.Rows) == 0 {
		t.Fatalf("leaks found nothing (%v):\n%s", err, stdout.String())
	}
	return rep.Rows
}

// leakSites returns the type of the first finding of leaks on three
// snapshots, and the innermost frame of its heaviest allocation site.
func leakSites(t *testing.T, snaps []string) (typ string, frame map[string]any) {
	t.Helper()
	r := leaksJSON(t, snaps)[0]
	if len(r.Allocated.Sites) == 0 || len(r.Allocated.Sites[0].Frames) == 0 {
		t.Fatalf("the first finding (%s) says nothing of where it was allocated: %+v", r.Type, r)
	}
	if r.Allocated.Unknown > r.Allocated.Sites[0].Count/10 {
		t.Errorf("%d of the leaked objects have no site, %d have the first", r.Allocated.Unknown, r.Allocated.Sites[0].Count)
	}
	return r.Type, r.Allocated.Sites[0].Frames[0]
}

// waitSnapshots waits until dir holds n whole snapshots matching glob.
func waitSnapshots(t *testing.T, dir, glob string, n int) []string {
	t.Helper()
	deadline := time.Now().Add(2 * time.Minute)
	for {
		m, _ := filepath.Glob(filepath.Join(dir, glob))
		if len(m) >= n {
			return m
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d snapshots in %s, want %d", len(m), dir, n)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// TestTraceAllocNode runs a leaking Node server under run --trace-alloc,
// snapshots it three times between requests, and leaks names the
// function that made the leaked objects: remember, in server.js.
func TestTraceAllocNode(t *testing.T) {
	if _, err := exec.LookPath("node"); err != nil {
		t.Skip("node is not installed")
	}
	bin := heapscopeBinary(t)
	dir := t.TempDir()
	script, _ := filepath.Abs("testdata/server.js")
	cmd := exec.Command(bin, "run", "-o", dir, "--signal", "SIGUSR2", "--trace-alloc", "--", "node", script)
	out, _ := cmd.StdoutPipe()
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	var port, pid int
	line, _ := bufio.NewReader(out).ReadString('\n')
	if _, err := fmt.Sscanf(line, "listening %d %d", &port, &pid); err != nil {
		t.Fatalf("the server said %q", line)
	}
	client := &http.Client{Transport: &http.Transport{DisableKeepAlives: true}}
	for round := 1; round <= 3; round++ {
		for i := 0; i < 150; i++ {
			resp, err := client.Get(fmt.Sprintf("http://127.0.0.1:%d/r%d", port, i))
			if err != nil {
				t.Fatal(err)
			}
			io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
		}
		syscall.Kill(pid, syscall.SIGUSR2)
		waitSnapshots(t, dir, "*-signal.heapsnapshot", round)
	}
	syscall.Kill(pid, syscall.SIGTERM)
	cmd.Wait()
	snaps, _ := filepath.Glob(filepath.Join(dir, "*-signal.heapsnapshot"))
	typ, frame := leakSites(t, snaps)
	if typ != "Session" || frame["function"] != "remember" || !strings.HasSuffix(fmt.Sprint(frame["file"]), "server.js") || frame["line"] != 12.0 {
		t.Errorf("the leak (%s) was allocated at %v, want remember in server.js:12", typ, frame)
	}
}

// someTracingPythons returns the oldest and newest Python of the machine,
// and 3.11, whose tracemalloc the agent works around; a capture under
// tracemalloc takes ten times as long, so not every one.
func someTracingPythons(t *testing.T) []string {
	all := attachPythons(t)
	var out []string
	for i, py := range all {
		if i == 0 || i == len(all)-1 || strings.Contains(py, "/3.11.") {
			out = append(out, py)
		}
	}
	return out
}

// TestTraceAllocPython runs a loop that leaks from a known line under run
// --trace-alloc: leaks names that line, and the program's child process
// runs without tracing.
func TestTraceAllocPython(t *testing.T) {
	script, _ := filepath.Abs("testdata/tracealloc.py")
	line := heaptest.LineOf(t, script, "the leaking allocation")
	inParallel(t, someTracingPythons(t), func(t *testing.T, py string) {
		dir := t.TempDir()
		var stdout, stderr bytes.Buffer
		if err := run([]string{"run", "-o", dir, "--signal", "SIGUSR2", "--trace-alloc=3", "--", py, script}, &stdout, &stderr); err != nil {
			t.Fatalf("run: %v\n%s", err, stderr.String())
		}
		if got := strings.TrimSpace(stdout.String()); got != "child False None" {
			t.Errorf("the child said %q, want it not tracing", got)
		}
		typ, frame := leakSites(t, waitSnapshots(t, dir, "*-signal.pysnap", 3))
		if typ != "__main__.Record" || frame["file"] != script || frame["line"] != float64(line) {
			t.Errorf("the leak (%s) was allocated at %v, want %s:%d", typ, frame, script, line)
		}
	})
}

// TestSnapshotPythonSites attaches to a leaking program that traces its
// allocations (PYTHONTRACEMALLOC): leaks names the leaking line.
func TestSnapshotPythonSites(t *testing.T) {
	script, _ := filepath.Abs("testdata/attached.py")
	line := heaptest.LineOf(t, script, "the leaking line")
	inParallel(t, someTracingPythons(t), func(t *testing.T, py string) {
		tg := startTarget(t, py, nil, "PYTHONTRACEMALLOC=1")
		typ, frame := leakSites(t, attachThrice(t, tg))
		if typ != "__main__.Leaked" || frame["file"] != script || frame["line"] != float64(line) {
			t.Errorf("the leak (%s) was allocated at %v, want %s:%d", typ, frame, script, line)
		}
		tg.healthy(t)
	})
}
