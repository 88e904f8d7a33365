package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestJavaFrames runs testdata/Frames.java, whose thread "holder" keeps
// a Payload in a local variable of Frames.hold while it sleeps, and
// checks that the path to the Payload names the thread and the frame as
// a Java stack trace does, and that summary counts roots by object and
// kind.
func TestJavaFrames(t *testing.T) {
	if _, err := exec.LookPath("java"); err != nil {
		t.Skip("java is not installed")
	}
	t.Parallel()
	src := filepath.Join("testdata", "Frames.java")
	text, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	line := 0
	for i, l := range strings.Split(string(text), "\n") {
		if strings.Contains(l, "// HOLD_LINE") {
			line = i + 1
		}
	}
	dump := filepath.Join(t.TempDir(), "frames.hprof")
	if out, err := exec.Command("java", "-Xmx64m", "-Xshare:off", src, dump).CombinedOutput(); err != nil {
		t.Fatalf("java: %v\n%s", err, out)
	}
	var stdout, stderr bytes.Buffer
	if err := run([]string{"why", dump, "Frames$Payload"}, &stdout, &stderr); err != nil {
		t.Fatalf("why: %v\n%s", err, stderr.String())
	}
	want := "held by  thread holder -> at Frames.hold(Frames.java:" + strconv.Itoa(line) + ") <local> Frames$Payload"
	if !strings.Contains(stdout.String(), want) {
		t.Errorf("why does not say %q:\n%s", want, stdout.String())
	}
	stdout.Reset()
	if err := run([]string{"summary", "--top", "1", dump}, &stdout, &stderr); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(stdout.String(), "roots: ") || !strings.Contains(stdout.String(), "sticky class ") || !strings.Contains(stdout.String(), "thread ") {
		t.Errorf("summary does not count the roots by kind:\n%s", stdout.String())
	}
}
