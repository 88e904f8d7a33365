package main

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/heapscope/heapscope/internal/heaptest"
	"github.com/heapscope/heapscope/pysnap"
)

var updateFixtures = flag.Bool("update-fixtures", false, "rewrite testdata/*.pysnap from testdata/*.heap")

// TestFixtures checks that every testdata/NAME.pysnap is what pysnap.Write
// makes of testdata/NAME.heap, so that goldens never rest on stale inputs.
func TestFixtures(t *testing.T) {
	srcs, _ := filepath.Glob("testdata/*.heap")
	sets, _ := filepath.Glob("testdata/fleet/*/*.heap")
	srcs = append(srcs, sets...)
	if len(srcs) == 0 {
		t.Fatal("no fixtures")
	}
	for _, src := range srcs {
		text, err := os.ReadFile(src)
		if err != nil {
			t.Fatal(err)
		}
		var buf bytes.Buffer
		if err := pysnap.Write(&buf, heaptest.MustParse(t, string(text)), 4); err != nil {
			t.Fatal(err)
		}
		dst := strings.TrimSuffix(src, ".heap") + ".pysnap"
		if *updateFixtures {
			if err := os.WriteFile(dst, buf.Bytes(), 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		have, err := os.ReadFile(dst)
		if err != nil || !bytes.Equal(have, buf.Bytes()) {
			t.Errorf("%s is stale or missing: run go test -run TestFixtures -update-fixtures", dst)
		}
	}
}

// golden runs heapscope in-process with args and compares what it prints
// (stdout, then the error, if any) with testdata/NAME.golden.
func golden(t *testing.T, name string, args ...string) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	err := run(args, &stdout, &stderr)
	got := stdout.String()
	if err != nil {
		got += "error: " + err.Error() + "\n"
	}
	heaptest.Golden(t, filepath.Join("testdata", name+".golden"), []byte(got))
}

func TestCommands(t *testing.T) {
	const before, mid, after = "testdata/before.pysnap", "testdata/mid.pysnap", "testdata/after.pysnap"
	const rich = "testdata/rich.pysnap"
	const classesBefore, classesAfter = "testdata/classes-before.pysnap", "testdata/classes-after.pysnap"
	const sbefore, safter = "testdata/sites-before.pysnap", "testdata/sites-after.pysnap"
	tests := []struct {
		name string
		args []string
	}{
		{"summary", []string{"summary", before}},
		{"summary-json", []string{"summary", "--json", before}},
		{"summary-top", []string{"summary", after, "--top", "3"}},
		{"summary-retained", []string{"summary", "--retained", rich}},
		{"summary-retained-json", []string{"summary", "--retained", "--json", "--top", "3", rich}},
		{"diff", []string{"diff", before, after}},
		{"diff-json", []string{"diff", "--json", before, after}},
		{"diff-same", []string{"diff", before, before}},
		{"trend", []string{"trend", before, after, after}},
		{"trend-growing", []string{"trend", before, mid, after}},
		{"trend-json", []string{"trend", "--json", before, after, after}},
		{"leaks", []string{"leaks", before, after, after}},
		{"leaks-json", []string{"leaks", "--json", before, after, after}},
		// What target made is gone by final.
		{"leaks-none", []string{"leaks", before, mid, before}},
		{"leaks-list-noise", []string{"leaks", "--list-noise"}},
		{"check-fail", []string{"check", "--strict", before, after, after}},
		{"check-stopped", []string{"check", before, after, after}},
		{"check-junit", []string{"check", "--strict", "--format", "junit", before, after, after}},
		{"check-json", []string{"check", "--strict", "--json", before, after, after}},
		{"check-allowed", []string{"check", "--strict", "--config", "testdata/check-allow.json", before, after, after}},
		{"check-pass", []string{"check", before, before, before}},
		{"top", []string{"top", rich}},
		{"top-json", []string{"top", "--json", rich}},
		{"tree", []string{"tree", rich}},
		{"tree-small", []string{"tree", "--depth", "5", "--min-size", "1K", rich}},
		{"tree-from", []string{"tree", "--from", "0x1300", rich}},
		{"tree-json", []string{"tree", "--json", "--depth", "2", rich}},
		{"retained", []string{"retained", rich, "app.Item"}},
		{"retained-json", []string{"retained", "--json", rich, "type:bytearray"}},
		{"summary-instanceof", []string{"summary", "../../hprof/testdata/tiny.hprof", "instanceof:java.lang.Object"}},
		{"why-instanceof", []string{"why", "../../hprof/testdata/tiny.hprof", "instanceof:java.lang.ref.Reference"}},
		{"why-type", []string{"why", rich, "app.Item"}},
		{"why-native", []string{"why", rich, "type:bytearray"}},
		{"why-addr", []string{"why", rich, "0x4100"}},
		{"why-value", []string{"why", "--json", rich, "value:hello"}},
		{"why-weak", []string{"why", "--weak", rich, "0x3200"}},
		{"why-nothing", []string{"why", rich, "NoSuchType"}},
		{"why-id", []string{"why", rich, "@16640"}},
		{"why-object", []string{"why", rich, "app.Item@0x3100"}},
		{"why-other-object", []string{"why", rich, "app.Item@0x4100"}},
		{"why-nearest", []string{"why", rich, "app.Itme"}},
		{"why-dot", []string{"why", "--format", "dot", rich, "app.Item"}},
		{"retainers", []string{"retainers", rich, "app.Item"}},
		{"retainers-deep", []string{"retainers", "--depth", "3", rich, "0x3200"}},
		{"retainers-grouped", []string{"retainers", "--each", "0", rich, "app.Item"}},
		{"retainers-json", []string{"retainers", "--json", rich, "0x3200"}},
		{"retainers-dot", []string{"retainers", "--format", "dot", "--depth", "3", rich, "0x3200"}},
		{"retainers-nothing", []string{"retainers", rich, "app.Itme"}},
		{"refs", []string{"refs", rich, "0x1300"}},
		{"refs-grouped", []string{"refs", "--each", "0", "--depth", "2", rich, "dict"}},
		{"refs-json", []string{"refs", "--json", rich, "0x1100"}},
		{"containers", []string{"containers", rich}},
		{"containers-json", []string{"containers", "--json", rich}},
		{"duplicates", []string{"duplicates", rich}},
		{"duplicates-json", []string{"duplicates", "--json", rich}},
		{"duplicates-values", []string{"duplicates", "testdata/values.pysnap"}},
		{"duplicates-values-json", []string{"duplicates", "--json", "testdata/values.pysnap"}},
		{"diff-classes", []string{"diff", classesBefore, classesAfter}},
		{"leaks-classes", []string{"leaks", classesBefore, classesAfter, classesAfter}},
		{"leaks-classes-json", []string{"leaks", "--json", classesBefore, classesAfter, classesAfter}},
		{"top-classes", []string{"top", classesAfter}},
		{"why-class", []string{"why", classesAfter, "Model_13"}},
		{"why-class-family", []string{"why", classesAfter, "class:app.Model_*"}},
		{"leaks-sites", []string{"leaks", sbefore, safter, safter}},
		{"leaks-sites-json", []string{"leaks", "--json", sbefore, safter, safter}},
		{"check-sites", []string{"check", "--strict", sbefore, safter, safter}},
		{"check-sites-junit", []string{"check", "--strict", "--format", "junit", sbefore, safter, safter}},
		{"why-sites", []string{"why", safter, "app.Item"}},
		{"why-sites-json", []string{"why", "--json", safter, "app.Item"}},
		{"top-sites", []string{"top", safter}},
		{"top-sites-json", []string{"top", "--json", "--top", "2", safter}},
		{"summary-missing-file", []string{"summary", "testdata/nonexistent.pysnap"}},
		{"summary-not-a-snapshot", []string{"summary", "testdata/before.heap"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) { golden(t, tc.name, tc.args...) })
	}
}

func TestMisuse(t *testing.T) {
	for _, args := range [][]string{
		{},
		{"nosuchcommand"},
		{"summary"},
		{"summary", "a", "b", "c"},
		{"summary", "--format", "xml", "testdata/before.pysnap"},
		{"summary", "--json", "--format", "markdown", "testdata/before.pysnap"},
		{"summary", "--top", "-1", "testdata/before.pysnap"},
		{"diff", "testdata/before.pysnap"},
		{"trend", "testdata/before.pysnap"},
		{"leaks", "testdata/before.pysnap", "testdata/before.pysnap"},
		{"why", "testdata/rich.pysnap"},
		{"why", "testdata/rich.pysnap", "0xZZ"},
		{"tree", "--min-size", "lots", "testdata/rich.pysnap"},
		{"tree", "--from", "0xZZ", "testdata/rich.pysnap"},
		{"tree", "--from", "str", "testdata/rich.pysnap"}, // many objects, where it wants one
		{"summary", "--format", "dot", "testdata/rich.pysnap"},
		{"retainers", "--depth", "0", "testdata/rich.pysnap", "app.Item"},
		{"retainers", "testdata/rich.pysnap"},
		{"refs", "testdata/rich.pysnap", "@12x"},
	} {
		var stdout, stderr bytes.Buffer
		err := run(args, &stdout, &stderr)
		if exitCode(err) != 2 {
			t.Errorf("run(%q) = %v, want a usage error (exit 2)", args, err)
		}
	}
}

func TestHelp(t *testing.T) {
	var stdout, stderr bytes.Buffer
	if err := run([]string{"help"}, &stdout, &stderr); err != nil {
		t.Fatal(err)
	}
	for _, c := range commands {
		if !strings.Contains(stdout.String(), c.name) && c.name != "help" {
			t.Errorf("help does not mention %s", c.name)
		}
	}
}
