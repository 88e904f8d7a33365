package main

import (
	"bytes"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// warningLines runs summary on snap with and without -v and returns
// what each wrote on stderr.
func warningLines(t *testing.T, snap string) (short, verbose string) {
	t.Helper()
	// top reads every reference (summary leaves them out, and with
	// them the warnings about references to no object).
	for _, v := range []bool{false, true} {
		args := []string{"top", snap}
		if v {
			args = []string{"top", "-v", snap}
		}
		var stdout, stderr bytes.Buffer
		if err := run(args, &stdout, &stderr); err != nil {
			t.Fatal(err)
		}
		if v {
			verbose = stderr.String()
		} else {
			short = stderr.String()
		}
	}
	return short, verbose
}

// checkExplained checks that every warning -v lists is followed by what
// it means, and that the one line without -v counts them and says they
// are expected for runtime.
func checkExplained(t *testing.T, snap, runtime string, short, verbose string) {
	t.Helper()
	lines := strings.Split(strings.TrimSpace(verbose), "\n")
	warnings := 0
	for i, l := range lines {
		if !strings.HasPrefix(l, snap+": warning: ") {
			continue
		}
		warnings++
		if i+1 >= len(lines) || !strings.HasPrefix(lines[i+1], snap+":   expected, no harm: ") {
			t.Errorf("-v: warning %q is not explained as expected:\n%s", l, verbose)
		}
	}
	if strings.Count(short, "\n") != 1 || !strings.HasPrefix(short, snap+": ") ||
		!strings.Contains(short, "expected for "+runtime+" snapshots") || !strings.Contains(short, "-v explains") {
		t.Errorf("without -v, stderr is %q; want one line saying the %d warning(s) are expected", short, warnings)
	}
}

// TestPythonWarningsExplained takes snapshots while threads allocate and
// free: the references to freed objects and reused addresses they leave
// are explained as expected for Python.
//
// A thread may happen not to run during a walk (the machine is busy), so
// the program runs again, up to five times, until some snapshot warns.
func TestPythonWarningsExplained(t *testing.T) {
	for run := 0; run < 5; run++ {
		dir := t.TempDir()
		runPython(t, "busythreads.py", dir)
		warned := false
		for i := 0; i < 3; i++ {
			snap := filepath.Join(dir, string(rune('0'+i))+".pysnap")
			short, verbose := warningLines(t, snap)
			if verbose == "" {
				continue
			}
			warned = true
			checkExplained(t, snap, "python", short, verbose)
		}
		if warned {
			return
		}
	}
	t.Error("in five runs of three snapshots each, no thread ran while the agent walked the heap: no warning to explain")
}

// TestJavaWarningsExplained dumps a JVM with class data sharing on (the
// default): the references into the archive the dump leaves out are
// explained as expected for Java.
func TestJavaWarningsExplained(t *testing.T) {
	if _, err := exec.LookPath("javac"); err != nil {
		t.Skip("javac is not installed")
	}
	dir := t.TempDir()
	if out, err := exec.Command("javac", "-d", dir, filepath.Join("testdata", "Leaky.java")).CombinedOutput(); err != nil {
		t.Fatalf("javac: %v\n%s", err, out)
	}
	if out, err := exec.Command("java", "-Xmx256m", "-cp", dir, "Leaky", dir).CombinedOutput(); err != nil {
		t.Fatalf("java: %v\n%s", err, out)
	}
	snap := filepath.Join(dir, "final.hprof")
	short, verbose := warningLines(t, snap)
	if !strings.Contains(verbose, "references point to no object") {
		t.Skipf("this JVM's dump refers to no object it leaves out (class data sharing off?):\n%s", verbose)
	}
	checkExplained(t, snap, "java", short, verbose)
	if !strings.Contains(verbose, "class data sharing") {
		t.Errorf("-v does not say where the references go:\n%s", verbose)
	}
}
