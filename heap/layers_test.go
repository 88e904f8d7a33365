package heap_test

import (
	"os/exec"
	"strings"
	"testing"
)

// TestLayers checks that the packages depend on each other only in the
// house's direction: readers -> heap <- analyses <- renderers <- cmd.
func TestLayers(t *testing.T) {
	const mod = "github.com/heapscope/heapscope/"
	allowed := map[string][]string{
		"heap":         {},
		"pysnap":       {"heap", "internal/input"},
		"hprof":        {"heap", "internal/input"},
		"heapsnapshot": {"heap", "internal/input"},
		"inspector":    {},
		// Capturing a running Python: the agent it injects, and the
		// format's magic to check what the process wrote.
		"attach":   {"agent", "pysnap", "heap", "internal/input"},
		"heapfile": {"heap", "pysnap", "hprof", "heapsnapshot", "internal/input"},
		// Opening input without blocking, and nameless temporary files:
		// a leaf below the readers.
		"internal/input":  {},
		"analyze":         {"heap"},
		"internal/report": {"heap", "analyze", "internal/web/static"},
		"internal/web":    {"heap", "analyze", "internal/report", "internal/web/static"},
		// The page's files (templates, scripts, the chart library): data
		// that both renderers embed.
		"internal/web/static": {},
		"agent":               {},
	}
	for pkg, ok := range allowed {
		out, err := exec.Command("go", "list", "-deps", "-f", "{{.ImportPath}}", "../"+pkg).Output()
		if err != nil {
			t.Fatalf("go list %s: %v", pkg, err)
		}
		for _, dep := range strings.Fields(string(out)) {
			rest, ours := strings.CutPrefix(dep, mod)
			if !ours || rest == pkg {
				continue
			}
			allowedDep := false
			for _, a := range ok {
				allowedDep = allowedDep || a == rest
			}
			if !allowedDep {
				t.Errorf("%s depends on %s, which its layer must not know", pkg, rest)
			}
		}
	}
}
