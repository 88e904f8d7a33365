package main

import (
	"math"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/heapscope/heapscope/capture/attach"
)

// TestPauseLine: each way of attaching says only the figures it
// measured, and a capture with none says nothing.
func TestPauseLine(t *testing.T) {
	ms := time.Millisecond
	tests := []struct {
		res  attach.Result
		fork bool
		want string
	}{
		{attach.Result{Method: "ptrace", Injection: 1240 * time.Microsecond, Pause: 41600 * time.Microsecond}, true,
			"heapscope: paused process 7's main thread for 43 ms: 1.2 ms stopped by heapscope's calls (ptrace), 42 ms in the program (loading the agent and forking)"},
		{attach.Result{Method: "ptrace", Injection: 1240 * time.Microsecond, Pause: 16400 * time.Microsecond, Load: 35 * ms}, true,
			"heapscope: paused process 7's main thread for 18 ms: 1.2 ms stopped by heapscope's calls (ptrace), 16 ms in the program (starting the agent's thread and forking); the agent loaded beside the program, on a thread of its own, in 35 ms"},
		{attach.Result{Method: "gdb", Injection: 180 * ms, Pause: 15 * ms, Load: 40 * ms}, true,
			"heapscope: paused process 7's main thread for 15 ms in the program (starting the agent's thread and forking); before that gdb stopped every thread for part of its 180 ms run; the agent loaded beside the program, on a thread of its own, in 40 ms"},
		{attach.Result{Method: "ptrace", Injection: 2 * ms, Capture: 900 * ms, Pause: 900 * ms}, false,
			"heapscope: paused process 7's main thread for 902 ms: 2.0 ms stopped by heapscope's calls (ptrace), 900 ms in the program (loading the agent and the capture)"},
		{attach.Result{Method: "ptrace", Injection: 3 * ms}, true,
			"heapscope: heapscope's calls (ptrace) stopped process 7's main thread for 3.0 ms; its pause in the program is not known"},
		{attach.Result{Method: "gdb", Injection: 180 * ms, Capture: 2 * time.Second, Pause: 40 * ms}, true,
			"heapscope: paused process 7's main thread for 40 ms in the program (loading the agent and forking); before that gdb stopped every thread for part of its 180 ms run"},
		{attach.Result{Method: "gdb", Injection: 180 * ms}, false,
			"heapscope: gdb stopped every thread of process 7 for part of its 180 ms run; the pause in the program is not known"},
		{attach.Result{Method: "sys.remote_exec", Injection: 300 * ms, Pause: 12 * ms}, false,
			"heapscope: paused process 7's main thread for 12 ms in the program (loading the agent and the capture), after sys.remote_exec"},
		{attach.Result{Method: "sys.remote_exec", Injection: 300 * ms}, false, ""},
	}
	for _, tc := range tests {
		if got := pauseLine(7, tc.res, tc.fork); got != tc.want {
			t.Errorf("pauseLine(%+v, fork %v)\n got %q\nwant %q", tc.res, tc.fork, got, tc.want)
		}
	}
}

const num = `([0-9]+(?:\.[0-9])?)`

var (
	ptracePause = regexp.MustCompile(`^heapscope: paused process ([0-9]+)'s main thread for ` + num + ` ms: ` + num +
		` ms stopped by heapscope's calls \(ptrace\), ` + num + ` ms in the program \(([a-z' ]+)\)` + loaded + `$`)
	gdbPause = regexp.MustCompile(`^heapscope: paused process ([0-9]+)'s main thread for ` + num +
		` ms in the program \(([a-z' ]+)\); before that gdb stopped every thread for part of its ` + num + ` ms run` + loaded + `$`)
	loaded = `(?:; the agent loaded beside the program, on a thread of its own, in ` + num + ` ms)?`
)

// checkPauseLine checks what snapshot --python printed on stderr after a
// capture of process pid: its last line says how long the main thread
// was paused, once, in the shape of the method used (heapscope's own
// calls on Linux on x86-64 unless gdb), on what (fork or not), with
// figures above 0 that add up.
func checkPauseLine(t *testing.T, stderr, pid string, gdb, fork bool) {
	t.Helper()
	lines := strings.Split(strings.TrimSuffix(stderr, "\n"), "\n")
	if n := strings.Count(stderr, "heapscope: paused"); n != 1 {
		t.Errorf("%d lines on the pause, want 1:\n%s", n, stderr)
		return
	}
	last := lines[len(lines)-1]
	// A fork capture is loaded on the agent's thread, beside the
	// program: the line says how long that took.
	spent := "loading the agent and the capture"
	if fork {
		spent = "starting the agent's thread and forking"
	}
	figure := func(s string) float64 {
		v, err := strconv.ParseFloat(s, 64)
		if err != nil || v <= 0 {
			t.Errorf("figure %q in %q: want a number above 0", s, last)
		}
		return v
	}
	loadFigure := func(s string) {
		if fork {
			figure(s)
		} else if s != "" {
			t.Errorf("%q: a capture without fork was loaded beside the program", last)
		}
	}
	if gdb || runtime.GOOS != "linux" || runtime.GOARCH != "amd64" {
		m := gdbPause.FindStringSubmatch(last)
		if m == nil || m[1] != pid || m[3] != spent {
			t.Errorf("last line %q: want gdb's pause of process %s, spent %s", last, pid, spent)
			return
		}
		figure(m[2])
		figure(m[4])
		loadFigure(m[5])
		return
	}
	m := ptracePause.FindStringSubmatch(last)
	if m == nil || m[1] != pid || m[5] != spent {
		t.Errorf("last line %q: want heapscope's calls' pause of process %s, spent %s", last, pid, spent)
		return
	}
	total, stop, agent := figure(m[2]), figure(m[3]), figure(m[4])
	loadFigure(m[6])
	if math.Abs(total-(stop+agent)) > 1.1 {
		t.Errorf("%q: %v ms is not %v + %v", last, total, stop, agent)
	}
}
