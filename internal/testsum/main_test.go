package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestSummarize runs 'go test -json' on a module with a passing, a
// failing and two skipped tests, and reads its stream.
func TestSummarize(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go test")
	}
	dir := t.TempDir()
	write := func(name, text string) {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("go.mod", "module example.com/m\n\ngo 1.24\n")
	write("m_test.go", `package m

import "testing"

func TestPass(t *testing.T) {}

func TestFail(t *testing.T) { t.Log("the log of a failure"); t.Fatal("it broke") }

func TestSkip(t *testing.T) { t.Skip("node is not installed") }

func TestSub(t *testing.T) {
	t.Run("inner", func(t *testing.T) { t.Skipf("needs %s", "fish") })
}
`)
	cmd := exec.Command("go", "test", "-count=1", "-json", "./...")
	cmd.Dir = dir
	stream, _ := cmd.Output() // fails: a test fails
	var out bytes.Buffer
	s, err := summarize(bytes.NewReader(stream), &out)
	if err != nil {
		t.Fatal(err)
	}
	got := out.String()
	for _, want := range []string{
		"the log of a failure", "it broke", "FAIL\texample.com/m",
		"skipped (2):",
		"example.com/m TestSkip: m_test.go:9: node is not installed",
		"example.com/m TestSub/inner: m_test.go:12: needs fish",
		"\n2 passed, 1 failed, 2 skipped\n",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("the summary lacks %q:\n%s", want, got)
		}
	}
	if strings.Contains(got, "=== RUN") || strings.Contains(got, "TestPass") {
		t.Errorf("the summary shows what plain go test does not:\n%s", got)
	}
	if s.failed != 1 || s.skipped != 2 || s.passed != 2 {
		t.Errorf("summarize = %+v", s)
	}
}
