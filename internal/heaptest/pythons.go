package heaptest

import (
	"os"
	"path/filepath"
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
