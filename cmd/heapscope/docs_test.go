package main

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// docCommands returns the heapscope command lines in a file: every line
// of a workflow (.yml), and the lines of the sh code blocks of a
// Markdown file, with continued lines joined.
func docCommands(t *testing.T, path string) [][]string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	text := strings.ReplaceAll(string(data), "\\\n", " ")
	inCode := strings.HasSuffix(path, ".yml")
	word := regexp.MustCompile(`(?:^|[\s("$])(?:\./)?heapscope\s+(-{0,2}[a-z][a-z-]*)(.*)$`)
	placeholder := regexp.MustCompile(`^[A-Z][A-Z_]*$`)
	var out [][]string
	for _, line := range strings.Split(text, "\n") {
		if strings.HasSuffix(path, ".md") && strings.HasPrefix(line, "```") {
			inCode = line == "```sh" || line == "```bash"
			continue
		}
		if !inCode || strings.HasPrefix(strings.TrimSpace(line), "#") {
			continue
		}
		m := word.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		args := []string{m[1]}
		for _, f := range strings.Fields(m[2]) {
			if strings.ContainsAny(f[:1], ">|;&)#") {
				break
			}
			f = strings.Trim(f, `"'`)
			if strings.Contains(f, "$") || placeholder.MatchString(f) {
				f = "1" // a shell variable or PID: a number or a path alike
			}
			args = append(args, f)
		}
		out = append(out, args)
	}
	return out
}

// TestDocCommands checks that every heapscope command line in the CI
// examples and the README names a command heapscope has, with flags it
// accepts; that the pytest plugin and marker they use exist; and that the
// config in docs/ci.md is one check reads.
func TestDocCommands(t *testing.T) {
	files, _ := filepath.Glob("../../docs/ci/*.yml")
	if len(files) < 3 {
		t.Fatalf("docs/ci has %d workflows, want Python, Java and Node", len(files))
	}
	files = append(files, "../../README.md", "../../docs/ci.md", "../../docs/fleet.md")
	checks := 0
	for _, f := range files {
		for _, args := range docCommands(t, f) {
			if args[0] == "--version" {
				continue
			}
			c, ok := lookup(args[0])
			if !ok {
				t.Errorf("%s: heapscope %s: no such command", f, strings.Join(args, " "))
				continue
			}
			if c.name == "check" {
				checks++
			}
			if i := slices.Index(args, "--"); i >= 0 && c.name == "run" {
				args = args[:i] // the program's own command line
			}
			if fs := flagsOf(c); fs != nil {
				if _, err := parse(fs, args[1:], 0, -1); err != nil {
					t.Errorf("%s: heapscope %s: %v", f, strings.Join(args, " "), err)
				}
			}
		}
	}
	if checks < 3 {
		t.Errorf("the CI examples run heapscope check %d times, want one per runtime at least", checks)
	}
	plugin, err := os.ReadFile("../../agent/heapscope/pytest_plugin.py")
	if err != nil || !bytes.Contains(plugin, []byte(`"no_leaks(`)) {
		t.Errorf("the pytest plugin or its no_leaks marker, which docs/ci/python.yml uses, is gone (%v)", err)
	}
	ci, err := os.ReadFile("../../docs/ci.md")
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile("(?s)```json\n(.*?)```").FindSubmatch(ci)
	if m == nil {
		t.Fatal("docs/ci.md shows no config")
	}
	cfg := filepath.Join(t.TempDir(), "leaks.json")
	os.WriteFile(cfg, m[1], 0o644)
	if _, err := readConfig(cfg); err != nil {
		t.Errorf("the config in docs/ci.md: %v", err)
	}
}
