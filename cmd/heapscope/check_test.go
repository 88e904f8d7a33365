package main

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

// TestCheckExitCodes checks every exit status check documents: 0 pass,
// 1 leak, 2 misuse (bad flags, bad or missing config), 3 could not check.
func TestCheckExitCodes(t *testing.T) {
	const before, after = "testdata/before.pysnap", "testdata/after.pysnap"
	dir := t.TempDir()
	badJSON := filepath.Join(dir, "bad.json")
	os.WriteFile(badJSON, []byte(`{"allow": [`), 0o644)
	unknownField := filepath.Join(dir, "unknown.json")
	os.WriteFile(unknownField, []byte(`{"alow": []}`), 0o644)
	garbage := filepath.Join(dir, "garbage.pysnap")
	os.WriteFile(garbage, []byte("HEAPSCOPE-PYSNAP but not really"), 0o644)
	unreadable := filepath.Join(dir, "unreadable.pysnap")
	os.WriteFile(unreadable, nil, 0o000)
	tests := []struct {
		name string
		args []string
		want int
	}{
		{"pass", []string{before, "testdata/mid.pysnap", before}, 0}, // what target made is gone by final
		{"one snapshot thrice", []string{before, before, before}, 2},
		{"baseline is target", []string{before, before, after}, 2},
		{"leak", []string{before, "testdata/mid.pysnap", after}, 1}, // grew in both intervals
		{"stopped", []string{before, after, after}, 0},              // grew, then nothing from target to final
		{"stopped, strict", []string{"--strict", before, after, after}, 1},
		{"missing config", []string{"--config", filepath.Join(dir, "nope.json"), before, after, after}, 2},
		{"bad config", []string{"--config", badJSON, before, after, after}, 2},
		{"unknown config field", []string{"--config", unknownField, before, after, after}, 2},
		{"bad flag", []string{"--nosuch", before, after, after}, 2},
		{"bad format", []string{"--format", "xml", before, after, after}, 2},
		{"two snapshots", []string{before, after}, 2},
		{"missing snapshot", []string{before, filepath.Join(dir, "gone.pysnap"), after}, 3},
		{"not a snapshot", []string{before, "testdata/before.heap", after}, 3},
		{"damaged snapshot", []string{before, garbage, after}, 3},
		{"directory", []string{before, dir, after}, 3},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			err := run(append([]string{"check"}, tc.args...), &stdout, &stderr)
			if got := exitCode(err); got != tc.want {
				t.Errorf("check %q: exit status %d (%v), want %d", tc.args, got, err, tc.want)
			}
		})
	}
	if os.Geteuid() != 0 { // root reads files whatever their mode
		var stdout, stderr bytes.Buffer
		err := run([]string{"check", before, unreadable, after}, &stdout, &stderr)
		if got := exitCode(err); got != 3 {
			t.Errorf("check of an unreadable snapshot: exit status %d (%v), want 3", got, err)
		}
	}
}

// TestLeaksBadSuppressFile: a bad --suppress file is a misuse, like a bad
// check config.
func TestLeaksBadSuppressFile(t *testing.T) {
	var stdout, stderr bytes.Buffer
	err := run([]string{"leaks", "--suppress", filepath.Join(t.TempDir(), "nope.json"), "--list-noise"}, &stdout, &stderr)
	if got := exitCode(err); got != 2 {
		t.Errorf("leaks --suppress of a missing file: exit status %d (%v), want 2", got, err)
	}
}
