// Command testsum reads the event stream of 'go test -json' on its input
// and prints what plain 'go test' prints (a line per package, the output
// of failed tests), then the tests that were skipped with the reasons
// they gave, and a closing line "N passed, N failed, N skipped". It exits
// 1 when a test or a build failed. test.sh runs it.
package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"
)

// event is one line of 'go test -json' (see 'go doc test2json').
type event struct {
	Action     string
	Package    string
	ImportPath string // build events
	Test       string
	Output     string
}

// summary is what the stream said.
type summary struct {
	passed, failed, skipped int
	buildFailed             bool
	skips                   []string // "package Test: reason"
}

func main() {
	s, err := summarize(os.Stdin, os.Stdout)
	if err != nil {
		fmt.Fprintln(os.Stderr, "testsum:", err)
		os.Exit(1)
	}
	if s.failed > 0 || s.buildFailed {
		os.Exit(1)
	}
}

// summarize reads the events on r and writes the report on w as the
// packages finish.
func summarize(r io.Reader, w io.Writer) (summary, error) {
	var s summary
	output := map[string][]string{} // a running test's output, by package and test
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	for sc.Scan() {
		line := sc.Bytes()
		var e event
		if err := json.Unmarshal(line, &e); err != nil || e.Action == "" {
			fmt.Fprintf(w, "%s\n", line) // not an event: pass it on
			continue
		}
		key := e.Package + " " + e.Test
		switch e.Action {
		case "build-output":
			fmt.Fprint(w, e.Output)
		case "build-fail":
			s.buildFailed = true
		case "output":
			if e.Test == "" {
				if keepPackageLine(e.Output) {
					fmt.Fprint(w, e.Output)
				}
				continue
			}
			output[key] = append(output[key], e.Output)
		case "pass":
			if e.Test != "" {
				s.passed++
			}
			delete(output, key)
		case "fail":
			if e.Test == "" {
				continue
			}
			s.failed++
			for _, o := range output[key] {
				if !strings.HasPrefix(o, "=== ") { // RUN, PAUSE, CONT: verbose only
					fmt.Fprint(w, o)
				}
			}
			delete(output, key)
		case "skip":
			if e.Test == "" {
				continue // a package without tests
			}
			s.skipped++
			s.skips = append(s.skips, fmt.Sprintf("%s %s: %s", e.Package, e.Test, skipReason(output[key])))
			delete(output, key)
		}
	}
	if err := sc.Err(); err != nil {
		return s, err
	}
	if len(s.skips) > 0 {
		fmt.Fprintf(w, "\nskipped (%d):\n", len(s.skips))
		for _, k := range s.skips {
			fmt.Fprintf(w, "  %s\n", k)
		}
	}
	fmt.Fprintf(w, "\n%d passed, %d failed, %d skipped\n", s.passed, s.failed, s.skipped)
	return s, nil
}

// keepPackageLine reports whether a package's own output line is one
// plain 'go test' prints: its verdict ("ok", "FAIL", "?"), not the
// "PASS" or "=== RUN" lines of verbose output.
func keepPackageLine(s string) bool {
	return strings.HasPrefix(s, "ok ") || strings.HasPrefix(s, "FAIL") || strings.HasPrefix(s, "?") ||
		strings.HasPrefix(s, "panic") || strings.HasPrefix(s, "---")
}

// skipReason is what a skipped test logged: its lines but for the
// "=== RUN" and "--- SKIP" lines, joined; the file:line prefix stays.
func skipReason(lines []string) string {
	var out []string
	for _, l := range lines {
		t := strings.TrimSpace(l)
		if t == "" || strings.HasPrefix(t, "=== ") || strings.HasPrefix(t, "--- SKIP") {
			continue
		}
		out = append(out, t)
	}
	if len(out) == 0 {
		return "(no reason given)"
	}
	return strings.Join(out, " ")
}
