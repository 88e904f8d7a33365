package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// completionScript writes heapscope's completion script for shell into a
// temporary file.
func completionScript(t *testing.T, shell string) string {
	t.Helper()
	var out, stderr bytes.Buffer
	if err := run([]string{"completion", shell}, &out, &stderr); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "heapscope."+shell)
	if err := os.WriteFile(path, out.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestBashCompletion sources the bash script in bash and calls its
// completion function the way bash does: COMP_WORDS split as bash splits
// a command line (at "=" too), COMP_CWORD the word under the cursor.
func TestBashCompletion(t *testing.T) {
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("bash is not installed")
	}
	script := completionScript(t, "bash")
	tests := []struct {
		words []string // the last is the word being completed
		want  []string // exactly these, in any order
	}{
		{[]string{"heapscope", "su"}, []string{"summary"}},
		{[]string{"heapscope", "t"}, []string{"top", "tree", "trend"}},
		{[]string{"heapscope", "--v"}, []string{"--version"}},
		{[]string{"heapscope", "summary", "--js"}, []string{"--json"}},
		{[]string{"heapscope", "tree", "--"}, []string{"--depth", "--format", "--from", "--json", "--min-size", "--top", "--width"}},
		{[]string{"heapscope", "check", "--format", ""}, []string{"text", "json", "junit", "markdown"}},
		{[]string{"heapscope", "summary", "--format", "="}, []string{"text", "json", "markdown"}},
		{[]string{"heapscope", "summary", "--format", "=", "m"}, []string{"markdown"}},
		{[]string{"heapscope", "summary", "--top", ""}, nil},
		{[]string{"heapscope", "help", "tr"}, []string{"tree", "trend"}},
		{[]string{"heapscope", "completion", ""}, []string{"bash", "zsh", "fish"}},
		{[]string{"heapscope", "summary", "testdata/bef"}, []string{"testdata/before.heap", "testdata/before.pysnap"}},
		{[]string{"heapscope", "check", "--config", "testdata/check-allow."}, []string{"testdata/check-allow.json"}},
		{[]string{"heapscope", "version", "x"}, nil},
	}
	for _, tc := range tests {
		var sh strings.Builder
		sh.WriteString("source " + shellQuote(script) + "\nCOMP_WORDS=(")
		for _, w := range tc.words {
			sh.WriteString(shellQuote(w) + " ")
		}
		sh.WriteString(")\nCOMP_CWORD=" + strconv.Itoa(len(tc.words)-1) + "\n_heapscope\nprintf '%s\\n' \"${COMPREPLY[@]}\"\n")
		out, err := exec.Command("bash", "--norc", "--noprofile", "-c", sh.String()).CombinedOutput()
		if err != nil {
			t.Fatalf("bash: %v\n%s", err, out)
		}
		sameWords(t, strings.Join(tc.words, " "), out, tc.want)
	}
}

// TestFishCompletion asks fish itself what it would complete.
func TestFishCompletion(t *testing.T) {
	if _, err := exec.LookPath("fish"); err != nil {
		t.Skip("fish is not installed (Debian package fish)")
	}
	script := completionScript(t, "fish")
	tests := []struct {
		line string
		want []string
	}{
		{"heapscope su", []string{"summary"}},
		{"heapscope summary --js", []string{"--json"}},
		{"heapscope check --format ", []string{"text", "json", "junit", "markdown"}},
		{"heapscope completion ", []string{"bash", "zsh", "fish"}},
		{"heapscope help tr", []string{"tree", "trend"}},
		{"heapscope summary testdata/bef", []string{"testdata/before.heap", "testdata/before.pysnap"}},
	}
	for _, tc := range tests {
		cmd := exec.Command("fish", "--no-config", "-c", "source "+shellQuote(script)+"; complete -C "+shellQuote(tc.line))
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("fish: %v\n%s", err, out)
		}
		sameWords(t, tc.line, out, tc.want)
	}
}

// TestZshCompletion loads the zsh script after compinit and checks that
// zsh parsed it and bound it to heapscope.
func TestZshCompletion(t *testing.T) {
	if _, err := exec.LookPath("zsh"); err != nil {
		t.Skip("zsh is not installed (Debian package zsh)")
	}
	script := completionScript(t, "zsh")
	sh := "autoload -U compinit && compinit -u -D && source " + shellQuote(script) + " && print -r -- $_comps[heapscope] && whence -w _heapscope"
	out, err := exec.Command("zsh", "-f", "-c", sh).CombinedOutput()
	if err != nil {
		t.Fatalf("zsh: %v\n%s", err, out)
	}
	if got := string(out); got != "_heapscope\n_heapscope: function\n" {
		t.Errorf("zsh printed %q, want the completion function bound to heapscope", got)
	}
}

// sameWords checks that a shell offered exactly the words want (in any
// order) to complete line: out has one per line, each maybe followed by
// a tab and a description (fish).
func sameWords(t *testing.T, line string, out []byte, want []string) {
	t.Helper()
	var got []string
	for _, l := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		if w, _, _ := strings.Cut(l, "\t"); w != "" {
			got = append(got, w)
		}
	}
	slices.Sort(got)
	want = slices.Clone(want)
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Errorf("completing %q: %q, want %q", line, got, want)
	}
}

func shellQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }
