package main

import (
	"bufio"
	"bytes"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/heapscope/heapscope/analyze"
	"github.com/heapscope/heapscope/heap"
	"github.com/heapscope/heapscope/hprof"
)

// TestJavaCollections runs testdata/Fill.java, which keeps one of each
// of the JDK's collections in a static field with its own number of
// entries and prints, after dumping its heap, each one's size() and the
// length of its table or array as reflection reads them; containers
// must give the same entries and capacity for every one, and list no
// primitive array.
func TestJavaCollections(t *testing.T) {
	if _, err := exec.LookPath("java"); err != nil {
		t.Skip("java is not installed")
	}
	t.Parallel()
	dir := t.TempDir()
	dump := filepath.Join(dir, "fill.hprof")
	cmd := exec.Command("java", "-Xmx128m", "-Xshare:off",
		"--add-opens", "java.base/java.util=ALL-UNNAMED", "--add-opens", "java.base/java.util.concurrent=ALL-UNNAMED",
		"--add-opens", "java.base/java.lang=ALL-UNNAMED", filepath.Join("testdata", "Fill.java"), dump)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("java: %v\n%s", err, stderr.String())
	}
	g, err := hprof.Open(dump)
	if err != nil {
		t.Fatal(err)
	}
	// The objects in Fill's static fields, by field name.
	fields := map[string]heap.ObjectID{}
	for id := range g.Objects() {
		if name, _ := g.Name(id); name == "class Fill" {
			for _, e := range g.Edges(id) {
				fields[g.EdgeName(e.Label)] = e.To
			}
		}
	}
	rows := map[heap.ObjectID]analyze.Container{}
	for _, c := range analyze.Containers(analyze.Dominators(g, analyze.DomOptions{}), 0) {
		rows[c.Object] = c
		if strings.HasSuffix(c.Type, "[]") && !strings.Contains(c.Type, ".") && strings.Count(c.Type, "[]") == 1 {
			t.Errorf("a primitive array is listed: %s with %d entries", c.Type, c.Entries)
		}
	}
	checked := 0
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) != 4 {
			t.Fatalf("Fill printed %q", sc.Text())
		}
		size, _ := strconv.Atoi(f[2])
		capacity, _ := strconv.Atoi(f[3])
		capacity = max(capacity, 0)
		id, ok := fields[f[0]]
		if !ok {
			t.Errorf("%s: no static field of that name in the dump", f[0])
			continue
		}
		c, ok := rows[id]
		if !ok {
			t.Errorf("%s (%s): not listed as a container", f[0], f[1])
			continue
		}
		if c.Entries != size || c.Capacity != capacity {
			t.Errorf("%s (%s): %d entries, capacity %d; the JVM says %d, capacity %d", f[0], c.Type, c.Entries, c.Capacity, size, capacity)
		}
		checked++
	}
	if checked < 40 {
		t.Errorf("%d collections checked, want 40", checked)
	}
	// The command shows capacity and fill for Java.
	var text bytes.Buffer
	if err := run([]string{"containers", "--top", "5", dump}, &text, &stderr); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(text.String(), "capacity") || !strings.Contains(text.String(), "fill") {
		t.Errorf("containers shows no capacity or fill:\n%s", text.String())
	}
}
