package main

import (
	"bytes"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// heapscopeRun runs heapscope in-process and returns its exit status,
// what it wrote on stderr and its error message.
func heapscopeRun(args ...string) (int, string, string) {
	var stdout, stderr bytes.Buffer
	err := run(args, &stdout, &stderr)
	msg := ""
	if err != nil {
		msg = err.Error()
	}
	return exitCode(err), stderr.String(), msg
}

// TestSnapshotsTogether takes snapshots with real python3, java and node
// processes and checks what leaks, check, trend and diff accept: never
// two runtimes; for leaks, check and trend, one process in time order
// unless --allow-mixed; diff compares any two processes but warns when
// BEFORE was taken after AFTER. Where a format records no process or
// time (V8), nothing is refused.
func TestSnapshotsTogether(t *testing.T) {
	for _, tool := range []string{"python3", "java", "node"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("%s is not installed", tool)
		}
	}
	dir := t.TempDir()
	p := func(name string) string { return filepath.Join(dir, name) }
	pidA := strings.TrimSpace(string(runPython(t, "together.py", p("a1.pysnap"), p("a2.pysnap"), p("a3.pysnap"))))
	pidB := strings.TrimSpace(string(runPython(t, "together.py", p("b1.pysnap"))))
	if out, err := exec.Command("java", "-Xshare:off", filepath.Join("testdata", "Dumps.java"), p("j1.hprof"), p("j2.hprof")).CombinedOutput(); err != nil {
		t.Fatalf("java: %v\n%s", err, out)
	}
	js := "const v8 = require('v8'); for (const f of process.argv.slice(1)) v8.writeHeapSnapshot(f)"
	if out, err := exec.Command("node", "-e", js, p("n1.heapsnapshot"), p("n2.heapsnapshot")).CombinedOutput(); err != nil {
		t.Fatalf("node: %v\n%s", err, out)
	}
	a1, a2, a3, b1 := p("a1.pysnap"), p("a2.pysnap"), p("a3.pysnap"), p("b1.pysnap")
	j1, j2, n1, n2 := p("j1.hprof"), p("j2.hprof"), p("n1.heapsnapshot"), p("n2.heapsnapshot")
	if pidA == pidB {
		t.Fatalf("two python3 processes with one pid %s", pidA)
	}

	tests := []struct {
		name string
		args []string
		code int
		want []string // in the error message, or on stderr for exit 0
	}{
		{"leaks in order", []string{"leaks", a1, a2, a3}, 0, nil},
		{"leaks two processes", []string{"leaks", a1, b1, a3}, 2, []string{a1, b1, "process " + pidA, "process " + pidB, "--allow-mixed"}},
		{"leaks two processes allowed", []string{"leaks", "--allow-mixed", a1, b1, a3}, 0, nil},
		{"leaks reversed", []string{"leaks", a3, a2, a1}, 2, []string{"in the order they were taken", a2 + " (", "heapscope leaks " + a1 + " " + a2 + " " + a3}},
		{"leaks reversed allowed", []string{"leaks", "--allow-mixed", a3, a2, a1}, 0, nil},
		{"leaks two runtimes", []string{"leaks", a1, a2, j1}, 2, []string{a1 + " is a python snapshot and " + j1 + " a java one"}},
		{"leaks two runtimes allowed", []string{"leaks", "--allow-mixed", n1, n2, a1}, 2, []string{"v8 snapshot"}},
		{"check two processes", []string{"check", a1, a2, b1}, 2, []string{"process " + pidB}},
		{"check reversed", []string{"check", a2, a1, a3}, 2, []string{"heapscope check " + a1 + " " + a2 + " " + a3}},
		{"check two runtimes", []string{"check", j1, j2, n1}, 2, []string{"java snapshot"}},
		{"trend two processes", []string{"trend", a1, a2, a3, b1}, 2, []string{"trend follows one process"}},
		{"trend two processes allowed", []string{"trend", "--allow-mixed", a1, a2, a3, b1}, 0, nil},
		{"trend out of order", []string{"trend", a2, a1, a3}, 2, []string{"heapscope trend " + a1 + " " + a2 + " " + a3}},
		{"trend two runtimes", []string{"trend", a1, n1}, 2, []string{"v8 one"}},
		{"java reversed", []string{"leaks", j2, j1, j1}, 2, []string{j1 + " (", "heapscope leaks " + j1 + " " + j1 + " " + j2}},
		{"java trend in order", []string{"trend", j1, j1, j2}, 0, nil},
		// V8 snapshots record neither process nor time: nothing to refuse.
		{"v8 any order", []string{"trend", n2, n1}, 0, nil},
		{"diff two processes", []string{"diff", a1, b1}, 0, nil},
		{"diff reversed", []string{"diff", b1, a1}, 0, []string{"warning: BEFORE " + b1, "taken after AFTER " + a1}},
		{"diff java reversed", []string{"diff", j2, j1}, 0, []string{"warning: BEFORE " + j2}},
		{"diff two runtimes", []string{"diff", j1, a1}, 2, []string{"diff compares snapshots of one runtime"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			code, stderr, msg := heapscopeRun(tc.args...)
			if code != tc.code {
				t.Fatalf("heapscope %s: exit %d (%s), want %d", strings.Join(tc.args, " "), code, msg, tc.code)
			}
			text := msg
			if code == 0 {
				text = stderr
				if len(tc.want) == 0 && strings.Contains(stderr, "warning") {
					t.Errorf("unexpected warning: %s", stderr)
				}
			}
			for _, w := range tc.want {
				if !strings.Contains(text, w) {
					t.Errorf("%q does not say %q", text, w)
				}
			}
		})
	}
}
