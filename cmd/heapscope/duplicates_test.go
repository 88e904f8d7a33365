package main

import (
	"bytes"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestDuplicatesOneLine: duplicates shows a value that holds a newline and
// a tab escaped, as Go quotes it, so each group stays on one line.
func TestDuplicatesOneLine(t *testing.T) {
	snap := filepath.Join(t.TempDir(), "d.pysnap")
	runPython(t, "dupvalues.py", snap)
	var out, errOut bytes.Buffer
	if err := run([]string{"duplicates", "--width", "0", snap}, &out, &errOut); err != nil {
		t.Fatalf("duplicates: %v\n%s", err, errOut.String())
	}
	text := out.String()
	var row string
	for _, l := range strings.Split(text, "\n") {
		if strings.Contains(l, `"first line\nsecond\tline"`) {
			row = l
		}
	}
	if !regexp.MustCompile(`^\s*\S+ \S+\s+50\s+\S+ \S+\s+str\s+"`).MatchString(row) {
		t.Errorf("no one-line group of the 50 strings:\n%s", text)
	}
	if strings.Contains(text, "first line\n") || strings.Contains(text, "second\tline") {
		t.Errorf("a value's newline or tab is printed raw:\n%s", text)
	}
}
