package heaptest

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Pythons returns the CPython 3.9+ interpreters of the machine, for
// tests that run on each: pyenv's builds (with debug information) of
// 3.9 to 3.13, then Debian's /usr/bin/python3 (stripped), those that
// are installed.
func Pythons() []string {
	var out []string
	for _, v := range []string{"3.9", "3.10", "3.11", "3.12", "3.13"} {
		m, _ := filepath.Glob("/root/.pyenv/versions/" + v + ".*/bin/python3")
		out = append(out, m...)
	}
	if _, err := os.Stat("/usr/bin/python3"); err == nil {
		out = append(out, "/usr/bin/python3")
	}
	return out
}

// LineOf returns the 1-based number of the first line of file that holds
// text, for tests that check where a program allocated.
func LineOf(t testing.TB, file, text string) int {
	t.Helper()
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	for i, l := range strings.Split(string(b), "\n") {
		if strings.Contains(l, text) {
			return i + 1
		}
	}
	t.Fatalf("%s has no line with %q", file, text)
	return 0
}
