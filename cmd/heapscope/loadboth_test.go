package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestDiffReadsBothInOrder: diff reads its two snapshots at once, yet
// says what it would say reading them one after the other: the rows of
// the diff golden files are checked elsewhere; here, a broken snapshot
// is named whichever side it is on, and of two broken ones BEFORE's
// error is the one reported.
func TestDiffReadsBothInOrder(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join("testdata", "before.pysnap")
	data, err := os.ReadFile(good)
	if err != nil {
		t.Fatal(err)
	}
	cut := filepath.Join(dir, "cut.pysnap")
	if err := os.WriteFile(cut, data[:len(data)/2], 0o600); err != nil {
		t.Fatal(err)
	}
	cut2 := filepath.Join(dir, "cut2.pysnap")
	if err := os.WriteFile(cut2, data[:len(data)/3], 0o600); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ a, b, want string }{
		{good, cut, cut},
		{cut, good, cut},
		{cut, cut2, cut},
		{cut2, cut, cut2},
	} {
		code, _, msg := heapscopeRun("diff", c.a, c.b)
		if code != 1 || !strings.HasPrefix(msg, c.want+": ") || !strings.Contains(msg, "unexpected EOF") {
			t.Errorf("diff %s %s: exit %d, %q; want 1 and an error that names %s as cut short", c.a, c.b, code, msg, c.want)
		}
		other := c.a
		if other == c.want {
			other = c.b
		}
		if other != c.want && strings.Contains(msg, other) {
			t.Errorf("diff %s %s: %q names %s too", c.a, c.b, msg, other)
		}
	}
	// Warnings: two censuses of a real Python program (each says some
	// roots name objects it does not list), either way round.
	d1, d2 := filepath.Join(dir, "1"), filepath.Join(dir, "2")
	for _, d := range []string{d1, d2} {
		if err := os.Mkdir(d, 0o700); err != nil {
			t.Fatal(err)
		}
		runPython(t, "census.py", d)
	}
	c1, c2 := filepath.Join(d1, "census.pysnap"), filepath.Join(d2, "census.pysnap")
	for _, pair := range [][2]string{{c1, c2}, {c2, c1}} {
		_, stderr, msg := heapscopeRun("diff", pair[0], pair[1])
		if msg != "" {
			t.Fatalf("diff %s %s: %s", pair[0], pair[1], msg)
		}
		i, j := strings.Index(stderr, pair[0]+": "), strings.Index(stderr, pair[1]+": ")
		if i < 0 || j < 0 || i > j {
			t.Errorf("diff %s %s: warnings not in the order of the snapshots:\n%s", pair[0], pair[1], stderr)
		}
	}
}
