package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/heapscope/heapscope/analyze"
	"github.com/heapscope/heapscope/heapfile"
)

// TestRun runs real python3 and node programs under heapscope run: the
// program's output and exit status are unchanged, the snapshot lands in
// the directory with an ordered name, and it reads back with the objects
// the program made.
func TestRun(t *testing.T) {
	tests := []struct {
		name, tool string
		args       []string
		glob       string
		typ        string
		min        int
	}{
		{"python", "python3", []string{"-c", "import sys\nclass Marker: pass\nkeep = [Marker() for _ in range(321)]\nprint('hello')\nsys.exit(3)"},
			"0001-*-exit.pysnap", "__main__.Marker", 321},
		{"node", "node", []string{"-e", "class Marker {}; globalThis.keep = Array.from({length: 321}, () => new Marker()); console.log('hello'); process.exitCode = 3"},
			"0001-*-exit.heapsnapshot", "Marker", 321},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := exec.LookPath(tc.tool); err != nil {
				t.Skipf("%s is not installed", tc.tool)
			}
			dir := t.TempDir()
			// Another run's snapshots, made as this one starts, and what a
			// killed program left (its temporary file, pid long gone): the
			// first are not counted, the second is removed.
			other := filepath.Join(dir, "0001-4194305-signal.pysnap")
			os.WriteFile(other, []byte("x"), 0o600)
			leftover := filepath.Join(dir, ".0001-4194305-signal.heapsnapshot.tmp")
			os.WriteFile(leftover, []byte("x"), 0o600)
			go func() {
				time.Sleep(200 * time.Millisecond)
				os.WriteFile(filepath.Join(dir, "0002-4194306-interval.pysnap"), []byte("x"), 0o600)
			}()
			var stdout, stderr bytes.Buffer
			args := append([]string{"run", "-o", dir, "--at-exit", "--", tc.tool}, tc.args...)
			err := run(args, &stdout, &stderr)
			if code := exitCode(err); code != 3 {
				t.Fatalf("exit status %d (%v), want the program's 3; stderr:\n%s", code, err, stderr.String())
			}
			if stdout.String() != "hello\n" {
				t.Errorf("stdout %q, want the program's own %q", stdout.String(), "hello\n")
			}
			files, _ := filepath.Glob(filepath.Join(dir, tc.glob))
			if len(files) != 1 {
				all, _ := filepath.Glob(filepath.Join(dir, "*"))
				t.Fatalf("snapshots %v, want one matching %s", all, tc.glob)
			}
			g, err := heapfile.Open(files[0])
			if err != nil {
				t.Fatal(err)
			}
			n := 0
			for _, r := range analyze.Summary(g) {
				if r.Type == tc.typ {
					n = r.Count
				}
			}
			if n != tc.min {
				t.Errorf("%d objects of type %s, want %d", n, tc.typ, tc.min)
			}
			if !strings.Contains(stderr.String(), "heapscope: 1 snapshot(s) in "+dir) {
				t.Errorf("stderr %q does not count its own snapshot alone", stderr.String())
			}
			if _, err := os.Stat(leftover); err == nil {
				t.Errorf("the killed program's temporary file is still there")
			}
		})
	}
}

func TestRunMisuse(t *testing.T) {
	for _, args := range [][]string{
		{"run", "--", "python3", "-c", "pass"},                                   // no -o
		{"run", "-o", "x", "--", "python3", "-c", "pass"},                        // nothing to take
		{"run", "-o", "x", "--at-exit"},                                          // no program
		{"run", "-o", "x", "--signal", "SIGFOO", "--", "python3"},                // bad signal
		{"run", "-o", "x", "--at-exit", "--census", "--", "java", "-version"},    // a census of a JVM
		{"run", "-o", "x", "--at-exit", "--values=false", "--", "/usr/bin/java"}, // the JVM writes every value
	} {
		var stdout, stderr bytes.Buffer
		if code := exitCode(run(args, &stdout, &stderr)); code != 2 {
			t.Errorf("run(%q): exit %d, want 2", args, code)
		}
	}
}
