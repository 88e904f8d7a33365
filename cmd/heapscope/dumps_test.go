package main

import (
	"bytes"
	"encoding/binary"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestSeveralDumps joins two dumps of one real JVM, 1,000 items apart,
// into one file as the old hprof agent wrote several dumps (records of
// the second after the first's HEAP_DUMP_END), and checks that summary
// lists both and says which it reads and why, that --dump reads either
// in every command, and that a dump the file lacks is an error.
func TestSeveralDumps(t *testing.T) {
	if _, err := exec.LookPath("java"); err != nil {
		t.Skip("java is not installed")
	}
	t.Parallel()
	dir := t.TempDir()
	p := func(n string) string { return filepath.Join(dir, n) }
	src := filepath.Join("..", "..", "hprof", "testdata", "java", "Growing.java")
	if out, err := exec.Command("java", "-Xmx128m", "-Xshare:off", src, p("1.hprof"), p("2.hprof")).CombinedOutput(); err != nil {
		t.Fatalf("java: %v\n%s", err, out)
	}
	one, _ := os.ReadFile(p("1.hprof"))
	two, _ := os.ReadFile(p("2.hprof"))
	if len(one) == 0 || len(two) == 0 {
		t.Fatal("the JVM wrote no dump")
	}
	// The second file's records, without its header, after the first.
	joined := append(one, two[bytes.IndexByte(two, 0)+1+12:]...)
	if binary.BigEndian.Uint32(two[bytes.IndexByte(two, 0)+1:]) != 8 {
		t.Fatal("not a dump with 8-byte ids")
	}
	both := p("both.hprof")
	if err := os.WriteFile(both, joined, 0o600); err != nil {
		t.Fatal(err)
	}
	text := func(args ...string) string {
		t.Helper()
		var stdout, stderr bytes.Buffer
		if err := run(args, &stdout, &stderr); err != nil {
			t.Fatalf("heapscope %s: %v\n%s", strings.Join(args, " "), err, stderr.String())
		}
		return stdout.String()
	}
	out := text("summary", "--top", "0", both)
	for _, want := range []string{", dump 2 of 2, ", "the file holds 2 heap dumps, each a snapshot of its own; read: the last, the latest state, unless --dump N",
		"  * dump 2: ", "    dump 1: ", " 2,000  ", " Growing$Item\n"} {
		if !strings.Contains(out, want) {
			t.Errorf("summary does not say %q:\n%s", want, out)
		}
	}
	out = text("summary", "--top", "0", "--dump", "1", both)
	if !strings.Contains(out, ", dump 1 of 2, ") || !strings.Contains(out, "read: --dump N") || !strings.Contains(out, " 1,000  ") {
		t.Errorf("summary --dump 1:\n%s", out)
	}
	var sum struct {
		Snapshot struct {
			Overview struct {
				Objects int `json:"objects"`
				Dumps   []struct {
					Number, Objects int
					Read            bool
				} `json:"dumps"`
			} `json:"overview"`
		} `json:"snapshot"`
	}
	runJSON(t, &sum, "summary", "--json", "--dump", "1", both)
	o := sum.Snapshot.Overview
	if len(o.Dumps) != 2 || !o.Dumps[0].Read || o.Dumps[1].Read || o.Dumps[0].Objects != o.Objects || o.Dumps[1].Objects <= o.Objects {
		t.Errorf("overview of dump 1: %+v", o)
	}
	if out := text("why", "--dump", "1", both, "Growing$Item"); !strings.Contains(out, "Growing$Item selects 1,000 objects") {
		t.Errorf("why --dump 1 does not find the first dump's 1,000 items:\n%s", out)
	}
	var stdout, stderr bytes.Buffer
	err := run([]string{"summary", "--dump", "3", both}, &stdout, &stderr)
	if err == nil || !strings.Contains(err.Error(), "the file holds 2, and there is no dump 3") {
		t.Errorf("summary --dump 3: %v", err)
	}
	err = run([]string{"summary", "--dump", "2", filepath.Join("testdata", "before.pysnap")}, &stdout, &stderr)
	if err == nil || !strings.Contains(err.Error(), "only HPROF files hold several dumps") {
		t.Errorf("summary --dump 2 of a Python snapshot: %v", err)
	}
}
