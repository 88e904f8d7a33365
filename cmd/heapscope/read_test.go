package main

import (
	"bytes"
	"compress/gzip"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestMaxInflated reads a gzip HPROF dump under a limit on its
// decompressed size below and above its size, and gives bad limits.
func TestMaxInflated(t *testing.T) {
	dump, err := os.ReadFile("../../hprof/testdata/tiny.hprof")
	if err != nil {
		t.Fatal(err)
	}
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write(dump)
	zw.Close()
	path := filepath.Join(t.TempDir(), "tiny.hprof.gz")
	if err := os.WriteFile(path, gz.Bytes(), 0o600); err != nil {
		t.Fatal(err)
	}
	var stdout, stderr bytes.Buffer
	err = run([]string{"summary", "--max-inflated", "1K", path}, &stdout, &stderr)
	if exitCode(err) != 1 || !strings.Contains(err.Error(), path+": ") || !strings.Contains(err.Error(), "limit of 1 KiB") || !strings.Contains(err.Error(), "--max-inflated") {
		t.Errorf("summary --max-inflated 1K (a %d-byte dump) = %v; want a failure naming the file, the limit and the flag", len(dump), err)
	}
	if err := run([]string{"summary", "--max-inflated", "1M", path}, &stdout, &stderr); err != nil {
		t.Errorf("summary --max-inflated 1M: %v", err)
	}
	for _, args := range [][]string{
		{"summary", "--max-inflated", "lots", path},
		{"summary", "--max-inflated", "0", path},
		{"check", "--max-inflated", "-1", path, path, path},
		{"web", "--max-inflated", "1X", path},
	} {
		if err := run(args, &stdout, &stderr); exitCode(err) != 2 {
			t.Errorf("run(%q) = %v, want a usage error (exit 2)", args, err)
		}
	}
}

// TestCutDump reads an HPROF dump cut right after a record: without its
// HEAP_DUMP_END, and with no object at all. summary fails (exit 1) and
// check cannot check (exit 3), with an error that names the file and says
// what is missing, where check used to read them as sound and pass.
func TestCutDump(t *testing.T) {
	dump, err := os.ReadFile("../../hprof/testdata/tiny.hprof")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	noEnd := filepath.Join(dir, "noend.hprof")
	os.WriteFile(noEnd, dump[:len(dump)-9], 0o600)
	header := filepath.Join(dir, "header.hprof")
	os.WriteFile(header, dump[:31], 0o600)
	for path, want := range map[string]string{noEnd: "HEAP_DUMP_END", header: "no objects"} {
		var stdout, stderr bytes.Buffer
		err := run([]string{"summary", path}, &stdout, &stderr)
		if exitCode(err) != 1 || !strings.HasPrefix(err.Error(), path+": ") || !strings.Contains(err.Error(), want) {
			t.Errorf("summary %s = %v; want a failure naming the file and %q", filepath.Base(path), err, want)
		}
		stdout.Reset()
		err = run([]string{"check", path, path, path}, &stdout, &stderr)
		if exitCode(err) != exitCannotCheck || !strings.Contains(err.Error(), path+": ") || !strings.Contains(err.Error(), want) {
			t.Errorf("check %s = %v; want exit %d naming the file and %q", filepath.Base(path), err, exitCannotCheck, want)
		}
		if strings.Contains(stdout.String(), "PASS") {
			t.Errorf("check %s passed", filepath.Base(path))
		}
	}
}
