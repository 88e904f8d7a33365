package main

import (
	"bytes"
	"debug/buildinfo"
	"encoding/json"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

func TestDidYouMean(t *testing.T) {
	tests := []struct {
		args []string
		want string // in the error; "" when no suggestion may be made
	}{
		{[]string{"sumary"}, "did you mean summary?"},
		{[]string{"leak"}, "did you mean leaks?"},
		{[]string{"contain"}, "did you mean containers?"},
		{[]string{"chekc"}, "did you mean check?"},
		{[]string{"xyzzy"}, ""},
		{[]string{"help", "trnd"}, "did you mean trend?"},
		{[]string{"summary", "--jsn", "x"}, "did you mean --json?"},
		{[]string{"summary", "--tpo", "3", "x"}, "did you mean --top?"},
		{[]string{"check", "--confg", "c.json", "a", "b", "c"}, "did you mean --config?"},
		{[]string{"run", "--at-exti", "--", "true"}, "did you mean --at-exit?"},
		{[]string{"summary", "--qqqqqq", "x"}, ""},
		{[]string{"completion", "bsh"}, "did you mean bash?"},
	}
	for _, tc := range tests {
		var stdout, stderr bytes.Buffer
		err := run(tc.args, &stdout, &stderr)
		if exitCode(err) != 2 {
			t.Errorf("run(%q) = %v, want a usage error", tc.args, err)
			continue
		}
		if tc.want == "" {
			if strings.Contains(err.Error(), "did you mean") {
				t.Errorf("run(%q) = %v, want no suggestion", tc.args, err)
			}
		} else if !strings.Contains(err.Error(), tc.want) {
			t.Errorf("run(%q) = %v, want %q", tc.args, err, tc.want)
		}
		if stderr.Len() != 0 {
			t.Errorf("run(%q) wrote %q on stderr; main prints the error once", tc.args, stderr.String())
		}
	}
}

// TestHelpCommand: 'help COMMAND' and 'COMMAND -h' print the same usage,
// made of the doc.go entry and every flag the command takes.
func TestHelpCommand(t *testing.T) {
	for _, c := range commands {
		t.Run(c.name, func(t *testing.T) {
			var out, stderr bytes.Buffer
			if err := run([]string{"help", c.name}, &out, &stderr); err != nil {
				t.Fatal(err)
			}
			help := out.String()
			if !strings.HasPrefix(help, "usage: heapscope "+c.name) {
				t.Errorf("help %s starts %q", c.name, firstLine(help))
			}
			if c.name != "help" && commandDoc(c.name) == "" {
				t.Errorf("doc.go says nothing of %s", c.name)
			}
			for _, f := range flagNames(c) {
				if !strings.Contains(help, "  -"+f) {
					t.Errorf("help %s does not list -%s", c.name, f)
				}
			}
			if c.name == "help" {
				return
			}
			var h, herr bytes.Buffer
			err := run([]string{c.name, "-h"}, &bytes.Buffer{}, &h)
			if exitCode(err) != 0 {
				t.Errorf("%s -h: %v, want exit status 0", c.name, err)
			}
			_ = herr
			if h.String() != help {
				t.Errorf("%s -h prints\n%s\nhelp %s prints\n%s", c.name, h.String(), c.name, help)
			}
		})
	}
	var out, stderr bytes.Buffer
	if err := run([]string{"help", "nosuch"}, &out, &stderr); exitCode(err) != 2 {
		t.Errorf("help nosuch = %v, want a usage error", err)
	}
}

func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return line
}

// TestVersion builds the binary with a version and checks what version
// and --version print; where the go command stamped the commit (a git
// checkout, not a worktree), it must be git's HEAD.
func TestVersion(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	bin := filepath.Join(t.TempDir(), "heapscope")
	build := exec.Command("go", "build", "-buildvcs=auto", "-ldflags", "-X main.version=v9.8.7-test", "-o", bin, ".")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	for _, args := range [][]string{{"version"}, {"--version"}, {"-version"}} {
		out, err := exec.Command(bin, args...).Output()
		if err != nil {
			t.Fatalf("heapscope %s: %v", args[0], err)
		}
		if !strings.HasPrefix(string(out), "heapscope v9.8.7-test") || !strings.Contains(string(out), "go1.") {
			t.Errorf("heapscope %s = %q", args[0], out)
		}
	}
	out, err := exec.Command(bin, "version", "--json").Output()
	if err != nil {
		t.Fatal(err)
	}
	var v buildInfo
	if err := json.Unmarshal(out, &v); err != nil || v.Version != "v9.8.7-test" {
		t.Errorf("version --json = %s (%v)", out, err)
	}
	bi, err := buildinfo.ReadFile(bin)
	if err != nil {
		t.Fatal(err)
	}
	stamped := ""
	for _, s := range bi.Settings {
		if s.Key == "vcs.revision" {
			stamped = s.Value
		}
	}
	if stamped == "" {
		t.Log("the go command stamped no commit here (a git worktree, or no git): revision not checked")
		return
	}
	head, err := exec.Command("git", "rev-parse", "HEAD").Output()
	if err != nil {
		t.Fatalf("git rev-parse HEAD: %v", err)
	}
	if v.Revision != strings.TrimSpace(string(head)) {
		t.Errorf("version --json revision %q, git HEAD %s", v.Revision, head)
	}
	if text, _ := exec.Command(bin, "version").Output(); !strings.Contains(string(text), "commit "+v.Revision[:12]) {
		t.Errorf("heapscope version = %q, want commit %s", text, v.Revision[:12])
	}
}
