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
		{[]string{"heapscope", "tree", "--"}, []string{"--cpuprofile", "--depth", "--dump", "--format", "--from", "--json", "--max-inflated", "--max-memory", "--memprofile", "--min-size", "--timings", "--top", "--width"}},
		{[]string{"heapscope", "check", "--format", ""}, []string{"text", "json", "junit", "markdown"}},
		{[]string{"heapscope", "top", "--format", ""}, []string{"text", "json", "markdown", "html", "pprof"}},
		{[]string{"heapscope", "summary", "--format", "="}, []string{"text", "json", "markdown", "pprof"}},
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

// zshDriver runs an interactive zsh on a pseudo terminal with the
// completion script loaded (argv[1]), types argv[2] and a tab, waits until
// every word in argv[3:] shows on the screen (or 60 s), and prints the
// screen.
const zshDriver = `
import os, pty, select, sys, time
script, line, want = sys.argv[1], sys.argv[2], sys.argv[3:]
home = os.path.dirname(script)
with open(os.path.join(home, ".zshrc"), "w") as f:
    f.write("autoload -U compinit && compinit -u -D\nsource %s\nPS1='READY> '\nLISTMAX=1000\n" % script)
pid, fd = pty.fork()
if pid == 0:
    os.environ.update(ZDOTDIR=home, TERM="dumb")
    os.execvp("zsh", ["zsh", "-i"])
screen = b""
def until(words, limit=60):
    global screen
    end = time.time() + limit
    while time.time() < end and not all(w.encode() in screen for w in words):
        if select.select([fd], [], [], 0.2)[0]:
            try:
                screen += os.read(fd, 65536)
            except OSError:
                return
until(["READY> "])
screen = b""
os.write(fd, line.encode() + b"\t")
until(want)
os.kill(pid, 9)
os.waitpid(pid, 0)
sys.stdout.write(screen.decode("utf-8", "replace"))
`

// TestZshCompletion types heapscope command lines and a tab into an
// interactive zsh (compinit and the script loaded) and reads what zsh
// completes or lists.
func TestZshCompletion(t *testing.T) {
	if _, err := exec.LookPath("zsh"); err != nil {
		t.Skip("zsh is not installed (Debian package zsh)")
	}
	if _, err := exec.LookPath("python3"); err != nil {
		t.Skip("python3, which drives zsh on a pseudo terminal, is not installed")
	}
	script := completionScript(t, "zsh")
	tests := []struct {
		line string
		want []string // each shows on the screen
	}{
		{"heapscope su", []string{"heapscope summary"}},
		{"heapscope summary --js", []string{"--json"}},
		{"heapscope check --format ", []string{"json", "junit", "markdown", "text"}},
		{"heapscope completion ", []string{"bash", "fish", "zsh"}},
		{"heapscope help tre", []string{"tree", "trend"}},
	}
	for _, tc := range tests {
		cmd := exec.Command("python3", append([]string{"-c", zshDriver, script, tc.line}, tc.want...)...)
		cmd.Dir = "testdata"
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("zsh: %v\n%s", err, out)
		}
		for _, w := range tc.want {
			if !strings.Contains(string(out), w) {
				t.Errorf("completing %q: zsh shows %q, want %q", tc.line, out, w)
			}
		}
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
