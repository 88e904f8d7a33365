package heaptest

import (
	"flag"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

var update = flag.Bool("update", false, "rewrite golden files with the output the tests get")

// Golden compares got with the file at path. With -update it rewrites the
// file instead. On a mismatch it writes path+".got" and reports a unified
// diff.
func Golden(t testing.TB, path string, got []byte) {
	t.Helper()
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("golden file: %v (run go test -update to create it)", err)
	}
	if string(want) == string(got) {
		os.Remove(path + ".got")
		return
	}
	gotPath := path + ".got"
	if err := os.WriteFile(gotPath, got, 0o644); err != nil {
		t.Fatal(err)
	}
	out, _ := exec.Command("diff", "-u", path, gotPath).CombinedOutput()
	t.Errorf("output differs from %s (go test -update rewrites it):\n%s", path, out)
}
