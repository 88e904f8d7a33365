package main

import (
	"bytes"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestTrendPathsDiffer follows a real Python program whose two growing
// lists are held by long paths that part at one step near the root: at
// any width, the paths that grew print differently, and JSON keeps them
// whole.
func TestTrendPathsDiffer(t *testing.T) {
	dir := t.TempDir()
	runPython(t, "deeppaths.py", dir)
	snaps, _ := filepath.Glob(filepath.Join(dir, "*.pysnap"))
	if len(snaps) != 3 {
		t.Fatalf("deeppaths.py wrote %d snapshots", len(snaps))
	}
	for _, width := range []string{"0", "50", "80", "120"} {
		var out, stderr bytes.Buffer
		if err := run(append([]string{"trend", "--width", width}, snaps...), &out, &stderr); err != nil {
			t.Fatal(err)
		}
		section := out.String()[strings.Index(out.String(), "Paths that grew"):]
		section = section[:strings.Index(section, "Collections")]
		var items []string
		for _, line := range strings.Split(section, "\n") {
			if strings.Contains(line, "__main__.Item") {
				items = append(items, line)
			}
		}
		if len(items) != 2 || items[0] == items[1] {
			t.Errorf("--width %s: the paths that grew are\n%s\nwant two that differ", width, section)
			continue
		}
		if !strings.Contains(items[0]+items[1], ".alpha") || !strings.Contains(items[0]+items[1], ".beta") {
			t.Errorf("--width %s: the paths lost the steps where they part:\n%s", width, section)
		}
		if width == "0" && !strings.Contains(section, "-> .child module alpha0 -> .child module alpha1") {
			t.Errorf("--width 0 elides:\n%s", section)
		}
		if width == "50" && strings.Contains(section, ".child") {
			t.Errorf("--width 50 does not elide:\n%s", section)
		}
	}
	var tr struct {
		Paths []struct {
			Path string `json:"path"`
		} `json:"paths"`
	}
	runJSON(t, &tr, append([]string{"trend", "--json", "--width", "30"}, snaps...)...)
	for _, p := range tr.Paths {
		if strings.Contains(p.Path, "…") || strings.Count(p.Path, ".child") != 3 {
			t.Errorf("JSON path %q is cut", p.Path)
		}
	}
}

// TestTerminalWidth runs heapscope on a terminal of 64 columns (a pseudo
// terminal that python3 opens): it prints what --width 64 prints, which
// is not what it prints with no limit.
func TestTerminalWidth(t *testing.T) {
	if _, err := exec.LookPath("python3"); err != nil {
		t.Skip("python3 is not installed")
	}
	bin := heapscopeBinary(t)
	const script = `
import fcntl, os, pty, struct, sys, termios
pid, fd = pty.fork()
if pid == 0:
    fcntl.ioctl(1, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 64, 0, 0))
    os.execv(sys.argv[1], sys.argv[1:])
out = b""
while True:
    try:
        data = os.read(fd, 65536)
    except OSError:
        break
    if not data:
        break
    out += data
os.waitpid(pid, 0)
sys.stdout.buffer.write(out)
`
	for _, args := range [][]string{
		{"top", "testdata/rich.pysnap"},
		{"leaks", "testdata/markup-before.pysnap", "testdata/markup-after.pysnap", "testdata/markup-after.pysnap"},
	} {
		cmd := exec.Command("python3", append([]string{"-c", script, bin}, args...)...)
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("%s on a pty: %v", args[0], err)
		}
		onTerminal := strings.ReplaceAll(string(out), "\r\n", "\n")
		var w64, unlimited, stderr bytes.Buffer
		if err := run(append([]string{args[0], "--width", "64"}, args[1:]...), &w64, &stderr); err != nil {
			t.Fatal(err)
		}
		if err := run(append([]string{args[0], "--width", "0"}, args[1:]...), &unlimited, &stderr); err != nil {
			t.Fatal(err)
		}
		if onTerminal != w64.String() {
			t.Errorf("%s on a 64-column terminal prints\n%s\nwith --width 64\n%s", args[0], onTerminal, w64.String())
		}
		if w64.String() == unlimited.String() {
			t.Errorf("%s: --width 64 prints what --width 0 prints:\n%s", args[0], unlimited.String())
		}
	}
}
