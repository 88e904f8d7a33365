package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
)

// TestRunNodeNoValues runs a real node program that holds a secret under
// run --values=false: the snapshot holds the program's objects and no
// secret, in a directory run made 0700 (and its parent), as a 0600 file.
// The same program with values writes the secret: the test can fail.
func TestRunNodeNoValues(t *testing.T) {
	if _, err := exec.LookPath("node"); err != nil {
		t.Skip("node is not installed")
	}
	js := liveJS[:len(liveJS)-len("setInterval(() => {}, 1000);\nconsole.log('ready');\n")]
	for _, values := range []bool{false, true} {
		base := t.TempDir()
		dir := filepath.Join(base, "new", "snaps")
		var stdout, stderr bytes.Buffer
		args := []string{"run", "-o", dir, "--at-exit", "--values=" + strconv.FormatBool(values), "--", "node", "-e", js}
		if err := run(args, &stdout, &stderr); err != nil {
			t.Fatalf("%v: %v\n%s", args, err, stderr.String())
		}
		for _, d := range []string{filepath.Join(base, "new"), dir} {
			if fi, err := os.Stat(d); err != nil || fi.Mode().Perm() != 0o700 {
				t.Errorf("%s: %v, want mode 0700", d, fi.Mode().Perm())
			}
		}
		files, _ := filepath.Glob(filepath.Join(dir, "*"))
		if len(files) != 1 {
			t.Fatalf("%s holds %v, want one snapshot", dir, files)
		}
		assertOnly(t, dir, filepath.Base(files[0]))
		if n := countOf(t, files[0], "Marker"); n != 123 {
			t.Errorf("values=%v: %d Marker objects, want 123", values, n)
		}
		b, _ := os.ReadFile(files[0])
		if secretWord.Match(b) != values {
			t.Errorf("values=%v: the snapshot holds the secret: %v", values, !values)
		}
	}
}
