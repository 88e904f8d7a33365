package heap_test

import (
	"os/exec"
	"slices"
	"strings"
	"testing"
)

// The house's layers: readers -> heap <- analyses <- renderers <- cmd,
// and capture beside the readers. Each package of the module is in one
// layer (a package under capture/ or bench/ is in that layer by its
// path, so that a new one is checked without being listed here); a
// package no rule places fails the test, so that none goes unchecked.
var layerOf = map[string]string{
	"heap":         "model",
	"pysnap":       "reader",
	"hprof":        "reader",
	"heapsnapshot": "reader",
	// Opens any snapshot by its first bytes: the readers' dispatcher.
	"heapfile":        "reader",
	"analyze":         "analysis",
	"internal/report": "renderer",
	"internal/web":    "renderer",
	"cmd/heapscope":   "command",
	// Runs each command in a copy of heapscope: part of the command.
	"internal/crash": "command",
	// Helpers of tests.
	"internal/heaptest": "support",
	"internal/testsum":  "support",
	"agent/harnesstest": "support",
}

// layerImports says which layers a layer's packages may import. Tests
// and benchmarks may import anything but the command.
var layerImports = map[string][]string{
	"model":    {},
	"reader":   {"model"},
	"analysis": {"model"},
	"renderer": {"model", "analysis"},
	// Capture takes snapshots of live programs: it stages the agent and
	// runs programs, debuggers and the JVM's tools, and it may use the
	// readers to check what a program wrote (the format's magic) or to
	// redact a Node snapshot as it streams by the V8 reader's rules; it
	// never builds a graph (no heap of its own) and knows nothing of
	// the analyses, renderers or commands.
	"capture": {"reader"},
	"command": {"model", "reader", "capture", "analysis", "renderer"},
	"support": {"model", "reader", "capture", "analysis", "renderer"},
}

// leafUsers lists the packages that import nothing of the module and
// the layers that may use each.
var leafUsers = map[string][]string{
	// Opening input without blocking, nameless temporary files.
	"internal/input": {"reader", "capture", "command", "support"},
	// The terminal: its width, whether heapscope is in its foreground.
	"internal/term": {"capture", "command", "support"},
	// Starts heapscope web and reads its address, for the web
	// benchmarks (bench/web, bench/web/load).
	"bench/web/server": {"support"},
	// The names of a set of many processes' snapshots: the capture
	// that writes a set and the commands that read one agree on them.
	"internal/fleet": {"capture", "command", "support"},
	// The Python agent and the Node preload, embedded: what capture
	// stages in a program.
	"agent": {"capture", "command", "support"},
	// The page's files (templates, scripts, the chart library): data
	// that both renderers embed.
	"internal/web/static": {"renderer", "support"},
	// Large arrays within a memory budget (--max-memory): the graph's
	// columns and edges, the readers' indices, the analyses' arrays,
	// and the command that sets the budget.
	"internal/spill": {"model", "reader", "analysis", "command", "support"},
}

// composes names the packages that may import others of their own layer:
// one layer's packages are otherwise independent of each other. Within
// capture, the package capture holds what the others share and imports
// none of them; the others may import it.
var composes = map[string][]string{
	"heapfile":     {"pysnap", "hprof", "heapsnapshot"},
	"internal/web": {"internal/report"},
	// run's supervisor drives each runtime's capture.
	"capture/supervisor": {"capture/inspector", "capture/jvm"},
	"cmd/heapscope":      {"internal/crash"},
}

func layer(pkg string) string {
	if l, ok := layerOf[pkg]; ok {
		return l
	}
	if _, ok := leafUsers[pkg]; ok {
		return "leaf"
	}
	switch {
	case pkg == "capture" || strings.HasPrefix(pkg, "capture/"):
		return "capture"
	case strings.HasPrefix(pkg, "bench/"):
		return "support"
	}
	return ""
}

// TestLayers checks every package's imports (not its tests') against
// the layers above; as each import is checked, what a package reaches
// through others follows the layers too.
func TestLayers(t *testing.T) {
	const mod = "github.com/heapscope/heapscope/"
	out, err := exec.Command("go", "list", "-f", "{{.ImportPath}} {{join .Imports \" \"}}", "../...").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	seen := 0
	for line := range strings.Lines(string(out)) {
		fields := strings.Fields(line)
		pkg, ours := strings.CutPrefix(fields[0], mod)
		if !ours {
			continue
		}
		seen++
		l := layer(pkg)
		if l == "" {
			t.Errorf("%s is in no layer: place it in TestLayers", pkg)
			continue
		}
		for _, imp := range fields[1:] {
			dep, ours := strings.CutPrefix(imp, mod)
			if !ours {
				continue
			}
			if why := forbidden(pkg, l, dep); why != "" {
				t.Errorf("%s (%s) imports %s: %s", pkg, l, dep, why)
			}
		}
	}
	if seen < len(layerOf) {
		t.Fatalf("go list listed %d packages of the module, fewer than the %d placed here", seen, len(layerOf))
	}
}

// forbidden says why pkg, of layer l, must not import dep, or "".
func forbidden(pkg, l, dep string) string {
	dl := layer(dep)
	switch {
	case dl == "":
		return "it is in no layer"
	case l == "leaf":
		return "a leaf imports nothing of the module"
	case dl == "leaf":
		if !slices.Contains(leafUsers[dep], l) {
			return "its users are " + strings.Join(leafUsers[dep], ", ")
		}
	case dl == l && l != "support":
		shared := l == "capture" && dep == "capture" && pkg != "capture"
		if !shared && !slices.Contains(composes[pkg], dep) {
			return "one layer's packages are independent of each other"
		}
	case !slices.Contains(layerImports[l], dl):
		return "the " + l + " layer must not know the " + dl + " layer"
	}
	return ""
}

// TestLayerRules checks that the rules tell a wrong import from a right
// one, so that TestLayers can fail.
func TestLayerRules(t *testing.T) {
	for _, c := range []struct {
		pkg, dep string
		bad      bool
	}{
		{"capture/attach", "pysnap", false},
		{"capture/attach", "analyze", true},
		{"capture/attach", "heap", true},
		{"capture/attach", "capture", false},
		{"capture/attach", "capture/jvm", true},
		{"capture", "capture/attach", true},
		{"capture/supervisor", "capture/jvm", false},
		{"capture/new", "internal/report", true},
		{"pysnap", "capture", true},
		{"pysnap", "hprof", true},
		{"analyze", "pysnap", true},
		{"analyze", "agent", true},
		{"internal/report", "internal/web", true},
		{"internal/web", "internal/report", false},
		{"heap", "internal/input", true},
		{"internal/input", "heap", true},
		{"bench/new", "analyze", false},
		{"bench/new", "cmd/heapscope", true},
		{"cmd/heapscope", "capture/dask", false},
		{"cmd/heapscope", "nothing", true},
	} {
		why := forbidden(c.pkg, layer(c.pkg), c.dep)
		if (why != "") != c.bad {
			t.Errorf("%s importing %s: forbidden %q, want forbidden %v", c.pkg, c.dep, why, c.bad)
		}
	}
}
