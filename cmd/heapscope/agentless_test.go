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
// leaves them out of the file), while the program's own objects are:
// snapshots the program takes, and those run takes when signalled.
// Strings are the program's data: the names of the agent's modules are
// keys of sys.modules and the import system caches its files' names, so
// quoted values and the program's import paths are not checked.
func TestPythonAgentNotInReports(t *testing.T) {
	dir := t.TempDir()
	a, b, c := filepath.Join(dir, "a.pysnap"), filepath.Join(dir, "b.pysnap"), filepath.Join(dir, "c.pysnap")
	runPython(t, "agentless.py", a, b, c)
	t.Run("api", func(t *testing.T) { agentNotIn(t, dir, a, b, c) })
	t.Run("run", func(t *testing.T) {
		rdir := t.TempDir()
		var stdout, stderr bytes.Buffer
		prog := "import os, signal\nclass Item: pass\nkeep = []\nfor _ in range(3):\n    keep += [Item() for _ in range(1000)]\n    os.kill(os.getpid(), signal.SIGUSR2)\n"
		if err := run([]string{"run", "-o", rdir, "--signal", "SIGUSR2", "--", "python3", "-c", prog}, &stdout, &stderr); err != nil {
			t.Fatalf("heapscope run: %v\n%s", err, stderr.String())
		}
		snaps, _ := filepath.Glob(filepath.Join(rdir, "*-signal.pysnap"))
		if len(snaps) != 3 {
			t.Fatalf("run wrote %v, want 3 snapshots\n%s", snaps, stderr.String())
		}
		agentNotIn(t, rdir, snaps[0], snaps[1], snaps[2])
	})
}

// agentNotIn checks reports of the snapshots a, b and c (in dir) for the
// agent's objects.
func agentNotIn(t *testing.T, dir, a, b, c string) {
	t.Helper()
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
	// run loads the agent from a copy in the user's cache, which the
	// import system's caches name, as they name any import path.
	cache := regexp.MustCompile(`\S*/python-agent-[0-9a-f]+/site`)
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
		out = cache.ReplaceAllString(out, "AGENTDIR")
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
