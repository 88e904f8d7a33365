package main

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/heapscope/heapscope/agent"
)

// quoted matches a quoted value in a report (a str's or bytes' value).
var quoted = regexp.MustCompile(`"(?:[^"\\]|\\.)*"`)

// TestPythonAgentNotInReports: the agent's own modules, objects and
// frames are in no report of a real program's snapshots (the agent
// leaves them out of the file), while the program's own objects are.
// Strings are the program's data: the names of the agent's modules are
// keys of sys.modules and the import system caches its files' names, so
// quoted values and the program's import paths are not checked.
func TestPythonAgentNotInReports(t *testing.T) {
	dir := t.TempDir()
	a, b, c := filepath.Join(dir, "a.pysnap"), filepath.Join(dir, "b.pysnap"), filepath.Join(dir, "c.pysnap")
	runPython(t, "agentless.py", a, b, c)
	// The program's import paths (sys.path, the importer cache) name
	// directories that may contain the word: they are the program's.
	cwd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	pp, err := agent.Dir()
	if err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{
		{"top", "--top", "0", a},
		{"containers", "--top", "0", a},
		{"summary", "--top", "0", a},
		{"leaks", a, b, c},
		{"diff", "--top", "0", a, b},
		{"top", "--json", "--top", "0", a},
	} {
		var stdout, stderr bytes.Buffer
		if err := run(args, &stdout, &stderr); err != nil {
			t.Fatalf("heapscope %s: %v\n%s", strings.Join(args, " "), err, stderr.String())
		}
		out := strings.NewReplacer(dir, "DIR", cwd, "CWD", pp, "AGENTDIR").Replace(stdout.String())
		if !strings.Contains(out, "__main__") {
			t.Errorf("heapscope %s does not show the program's objects:\n%s", strings.Join(args, " "), out)
		}
		out = quoted.ReplaceAllString(out, `""`)
		for _, own := range []string{"heapscope", "_LENPFX"} {
			if i := strings.Index(out, own); i >= 0 {
				line := out[strings.LastIndexByte(out[:i], '\n')+1:]
				line, _, _ = strings.Cut(line, "\n")
				t.Errorf("heapscope %s shows the agent's %s: %s", strings.Join(args, " "), own, line)
			}
		}
	}
}
