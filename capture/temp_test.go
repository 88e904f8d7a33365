//go:build linux

package capture

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// deadPID returns the pid of a process that has ended.
func deadPID(t *testing.T) int {
	t.Helper()
	cmd := exec.Command("true")
	if err := cmd.Run(); err != nil {
		t.Fatal(err)
	}
	return cmd.Process.Pid
}

// TestSweep lays out what heapscope and the agents leave and what they
// use, with real processes, and checks that Sweep removes the first only.
func TestSweep(t *testing.T) {
	dir := t.TempDir()
	me := strconv.Itoa(os.Getpid())
	dead := strconv.Itoa(deadPID(t))
	// A process that runs now but started after the entries named with its
	// pid were made: the pid was reused.
	later := exec.Command("sleep", "60")
	if err := later.Start(); err != nil {
		t.Fatal(err)
	}
	defer later.Process.Kill()
	reused := strconv.Itoa(later.Process.Pid)
	// A process that has ended and is not reaped yet: a zombie.
	z := exec.Command("true")
	if err := z.Start(); err != nil {
		t.Fatal(err)
	}
	defer z.Wait()
	zombie := strconv.Itoa(z.Process.Pid)
	for i := 0; ; i++ {
		b, _ := os.ReadFile("/proc/" + zombie + "/stat")
		if strings.Contains(string(b), ") Z ") {
			break
		}
		if i > 1000 {
			t.Fatalf("true did not end: %s", b)
		}
		time.Sleep(10 * time.Millisecond)
	}
	old := time.Now().Add(-time.Hour)

	files := map[string]bool{ // name -> removed by Sweep(dir, true)
		".heapscope-" + me + "-123.tmp":                     false, // this heapscope's, in use
		".heapscope-" + dead + "-123.tmp":                   true,
		".heapscope-" + dead + "-456.hprof.tmp":             true,
		".heapscope-exit-" + dead + "-9.tmp.hprof":          true,
		".heapscope-" + reused + "-1.tmp":                   true, // older than its pid's process
		".heapscope-" + zombie + "-2.tmp":                   true, // its maker ended, not reaped
		".0001-" + dead + "-exit.pysnap." + dead + ".0.tmp": true, // an agent's
		".0002-" + dead + "-signal.heapsnapshot.tmp":        true, // the preload's
		".0003-" + me + "-signal.heapsnapshot.tmp":          false,
		".heapscope-123.tmp":                                false, // no pid: not heapscope's naming
		"0001-" + dead + "-exit.pysnap":                     false, // a snapshot
		"notes.tmp":                                         false,
	}
	dirs := map[string]bool{
		".heapscope-" + reused + "-stage":  true, // changed since, but made before its pid's process started
		".heapscope-" + dead + "-abc":      true, // an attach stage
		"heapscope-attach-" + dead + "-x":  true,
		"heapscope-run-" + dead + "-y":     true,
		"heapscope-attach-" + me + "-z":    false,
		"heapscope-" + dead + "-123456789": false, // an agent cache directory: not a leftover
	}
	for name := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte("x"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	for name := range dirs {
		if err := os.MkdirAll(filepath.Join(dir, name, "inside"), 0o700); err != nil {
			t.Fatal(err)
		}
	}
	os.Chtimes(filepath.Join(dir, ".heapscope-"+reused+"-1.tmp"), old, old)
	// A stage its maker wrote into long ago, which the process captured
	// changed just now (a new status file).
	stage := filepath.Join(dir, ".heapscope-"+reused+"-stage")
	os.Chtimes(filepath.Join(stage, "inside"), old, old)
	if err := os.WriteFile(filepath.Join(stage, "status"), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	// A symbolic link named as a leftover is never followed nor removed.
	target := t.TempDir()
	link := ".heapscope-" + dead + "-link.tmp"
	if err := os.Symlink(target, filepath.Join(dir, link)); err != nil {
		t.Fatal(err)
	}

	removed := Sweep(dir, true)
	slices.Sort(removed)
	var want []string
	for name, gone := range files {
		if gone {
			want = append(want, name)
		}
	}
	for name, gone := range dirs {
		if gone {
			want = append(want, name)
		}
	}
	slices.Sort(want)
	if !slices.Equal(removed, want) {
		t.Errorf("Sweep removed\n%q\nwant\n%q", removed, want)
	}
	for name, gone := range files {
		if _, err := os.Lstat(filepath.Join(dir, name)); (err == nil) == gone {
			t.Errorf("%s: present %v after Sweep", name, err == nil)
		}
	}
	if _, err := os.Lstat(filepath.Join(dir, link)); err != nil {
		t.Errorf("the link was removed")
	}
	if _, err := os.Stat(target); err != nil {
		t.Errorf("the link's target went: %v", err)
	}

	// Without agents, their files stay.
	name := ".0001-" + dead + "-exit.pysnap." + dead + ".0.tmp"
	os.WriteFile(filepath.Join(dir, name), nil, 0o600)
	Sweep(dir, false)
	if _, err := os.Lstat(filepath.Join(dir, name)); err != nil {
		t.Errorf("Sweep(dir, false) removed an agent's file")
	}
}
