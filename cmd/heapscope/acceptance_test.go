package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/heapscope/heapscope/agent"
	"github.com/heapscope/heapscope/heap"
	"github.com/heapscope/heapscope/heapfile"
	"github.com/heapscope/heapscope/internal/report"
)

// leakFindings runs heapscope leaks --json on three snapshots and returns
// the path text of every finding.
func leakFindings(t *testing.T, base, target, final string, extra ...string) []string {
	t.Helper()
	var stdout, stderr bytes.Buffer
	args := append([]string{"leaks", "--json", "--top", "0"}, extra...)
	if err := run(append(args, base, target, final), &stdout, &stderr); err != nil {
		t.Fatalf("leaks: %v\n%s", err, stderr.String())
	}
	var rep struct {
		Rows []struct {
			Type     string `json:"type"`
			Count    int    `json:"count"`
			Retained uint64 `json:"retained_bytes"`
			Path     string `json:"path"`
		} `json:"rows"`
	}
	if err := json.Unmarshal(stdout.Bytes(), &rep); err != nil {
		t.Fatal(err)
	}
	var paths []string
	for _, r := range rep.Rows {
		paths = append(paths, r.Path)
	}
	return paths
}

// wantExactly checks that every finding matches one of the planted
// leaks (a substring of its path) and every planted leak is found.
func wantExactly(t *testing.T, findings []string, planted ...string) {
	t.Helper()
	found := make([]bool, len(planted))
	for _, f := range findings {
		ok := false
		for i, p := range planted {
			if strings.Contains(f, p) {
				found[i], ok = true, true
			}
		}
		if !ok {
			t.Errorf("finding %q is not a planted leak", f)
		}
	}
	for i, p := range planted {
		if !found[i] {
			t.Errorf("planted leak %q not found; findings:\n%s", p, strings.Join(findings, "\n"))
		}
	}
}

// whyText runs heapscope why and returns its text output, paths unwrapped.
func whyText(t *testing.T, snap, selector string) string {
	t.Helper()
	var stdout, stderr bytes.Buffer
	if err := run([]string{"why", "--width", "0", snap, selector}, &stdout, &stderr); err != nil {
		t.Fatalf("why: %v\n%s", err, stderr.String())
	}
	return stdout.String()
}

// TestNodeLeaks runs a real node program with two planted leaks (a
// global Map that only grows, listeners never removed) beside a bounded
// LRU cache, warm-up allocations and churn: leaks reports exactly the two
// planted leaks, and why explains what holds a leaked object.
func TestNodeLeaks(t *testing.T) {
	if _, err := exec.LookPath("node"); err != nil {
		t.Skip("node is not installed")
	}
	dir := t.TempDir()
	cmd := exec.Command("node", "--expose-gc", filepath.Join("testdata", "leaky.js"), dir)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("node: %v\n%s", err, out)
	}
	snap := func(n string) string { return filepath.Join(dir, n+".heapsnapshot") }
	findings := leakFindings(t, snap("baseline"), snap("target"), snap("final"))
	wantExactly(t, findings, "contexts Map", "bus EventEmitter -> _events Object -> tick Array")
	why := whyText(t, snap("final"), "RequestContext")
	if !strings.Contains(why, "contexts Map -> table (array) -> [*] RequestContext") {
		t.Errorf("why RequestContext does not go through the contexts map:\n%s", why)
	}
	// V8 ids are stable: diff tells which objects are new, not only which
	// types grew.
	var d struct {
		Rows []struct {
			Type       string `json:"type"`
			CountDelta int    `json:"count_delta"`
			New        int    `json:"new"`
		} `json:"rows"`
	}
	runJSON(t, &d, "diff", "--json", "--top", "0", snap("baseline"), snap("final"))
	for _, r := range d.Rows {
		if r.Type == "RequestContext" && (r.New != 600 || r.CountDelta != 600) {
			t.Errorf("diff: RequestContext +%d, %d new; want 600 and 600", r.CountDelta, r.New)
		}
		if r.Type == "CacheEntry" && r.New < 50 {
			t.Errorf("diff: %d new CacheEntry, want all 50 of the bounded cache replaced", r.New)
		}
	}
}

// TestNodeTransientRoots runs a real node program that writes its
// snapshots while V8 itself holds the program's objects for a moment (a
// JSON.stringify, a v8.serialize in progress), the way an optimizing
// compiler job in flight holds them when a snapshot is written under
// load: why still goes through the program's own Map, although V8's
// handles and identity map hold the Map or its Items by shorter paths.
func TestNodeTransientRoots(t *testing.T) {
	if _, err := exec.LookPath("node"); err != nil {
		t.Skip("node is not installed")
	}
	dir := t.TempDir()
	cmd := exec.Command("node", filepath.Join("testdata", "transient.js"), dir)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("node: %v\n%s", err, out)
	}
	for _, c := range []struct {
		snap, held string // what V8 held when it wrote the snapshot
	}{
		{"handles", "Map"},
		{"identity", "Item"},
	} {
		snap := filepath.Join(dir, c.snap+".heapsnapshot")
		// The snapshot sets up what is checked: V8's synthetic roots
		// hold the objects directly, one step below the GC roots.
		g, err := heapfile.Open(snap)
		if err != nil {
			t.Fatal(err)
		}
		byRoot := 0
		for v := range g.Objects() {
			if g.Flags(v)&heap.FlagSynthetic == 0 {
				continue
			}
			for _, e := range g.Edges(v) {
				if g.TypeName(g.Type(e.To)) == c.held {
					byRoot++
				}
			}
		}
		if want := map[string]int{"Map": 1, "Item": 100}[c.held]; byRoot < want {
			t.Fatalf("%s: V8's roots hold %d %s directly, want %d: the program no longer sets up the case", c.snap, byRoot, c.held, want)
		}
		why := whyText(t, snap, "Item")
		if !strings.Contains(why, "Item selects 100 objects held by 1 path") ||
			!strings.Contains(why, "system / Context -> held Map -> table (array) -> [*] Item") {
			t.Errorf("%s: why Item does not go through the program's Map:\n%s", c.snap, why)
		}
	}
}

// TestJavaLeaks runs a real Java program with two planted leaks (a static
// map that only grows, listeners never removed) beside a bounded LRU
// cache, warm-up allocations and churn: leaks reports exactly the two
// planted leaks, although HPROF addresses cannot be matched across dumps.
func TestJavaLeaks(t *testing.T) {
	if _, err := exec.LookPath("javac"); err != nil {
		t.Skip("javac is not installed")
	}
	dir := t.TempDir()
	if out, err := exec.Command("javac", "-d", dir, filepath.Join("testdata", "Leaky.java")).CombinedOutput(); err != nil {
		t.Fatalf("javac: %v\n%s", err, out)
	}
	cmd := exec.Command("java", "-Xshare:off", "-Xmx256m", "-cp", dir, "Leaky", dir)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("java: %v\n%s", err, out)
	}
	snap := func(n string) string { return filepath.Join(dir, n+".hprof") }
	findings := leakFindings(t, snap("baseline"), snap("target"), snap("final"))
	wantExactly(t, findings, "sessions java.util.HashMap", "listeners java.util.ArrayList")
	why := whyText(t, snap("final"), "Leaky$Session")
	if !strings.Contains(why, "sessions java.util.HashMap -> table java.util.HashMap$Node[] -> [*] java.util.HashMap$Node -> value Leaky$Session") {
		t.Errorf("why Leaky$Session does not go through the sessions map:\n%s", why)
	}

	// The header counts the noise among the objects it names: "N of
	// them, in M groups", as the JSON's suppressed_objects and suppressed.
	var text, js, stderr bytes.Buffer
	if err := run([]string{"leaks", snap("baseline"), snap("target"), snap("final")}, &text, &stderr); err != nil {
		t.Fatalf("leaks: %v\n%s", err, stderr.String())
	}
	if err := run([]string{"leaks", "--json", snap("baseline"), snap("target"), snap("final")}, &js, &stderr); err != nil {
		t.Fatalf("leaks --json: %v\n%s", err, stderr.String())
	}
	var counts struct {
		Leaked      int `json:"leaked"`
		Suppressed  int `json:"suppressed"`
		SuppObjects int `json:"suppressed_objects"`
	}
	if err := json.Unmarshal(js.Bytes(), &counts); err != nil {
		t.Fatal(err)
	}
	want := fmt.Sprintf("they hold %s objects (", report.Count(counts.Leaked))
	noise := fmt.Sprintf("; %s of them, in %s groups, set aside as known noise", report.Count(counts.SuppObjects), report.Count(counts.Suppressed))
	if counts.Suppressed == 0 || !strings.Contains(text.String(), want) || !strings.Contains(text.String(), noise) {
		t.Errorf("leaks' header does not say %q and %q:\n%s", want, noise, text.String())
	}

	// check's allowances name what leaks reports: the sessions (the
	// finding's objects are the map's nodes, whose values they are), and
	// the lambda by a pattern, since its hidden class's name carries an
	// address. Without the "*" the lambda is no longer allowed.
	for _, tc := range []struct {
		lambda string
		code   int
	}{{"Leaky$$Lambda*", 0}, {"Leaky$$Lambda", 1}} {
		cfg := filepath.Join(dir, "allow.json")
		if err := os.WriteFile(cfg, []byte(`{"allow": [{"type": "Leaky$Session"}, {"type": "`+tc.lambda+`"}]}`), 0o644); err != nil {
			t.Fatal(err)
		}
		var stdout, stderr bytes.Buffer
		err := run([]string{"check", "--config", cfg, snap("baseline"), snap("target"), snap("final")}, &stdout, &stderr)
		if code := exitCode(err); code != tc.code {
			t.Errorf("check allowing %s: exit %d (%v), want %d\n%s", tc.lambda, code, err, tc.code, stdout.String())
		}
		if !regexp.MustCompile(`(?m)^pass \(allowed\): 900 Leaky\$Session in java.util.HashMap`).Match(stdout.Bytes()) ||
			tc.code == 1 && !regexp.MustCompile(`(?m)^leak: 900 Leaky\$\$Lambda.*/0x`).Match(stdout.Bytes()) {
			t.Errorf("check allowing %s:\n%s", tc.lambda, stdout.String())
		}
	}
}

// TestPythonLeaks runs a real Python program with two planted leaks (a
// module-level dict that only grows, callbacks never removed) beside a
// bounded LRU cache, an lru_cache, warm-up allocations and churn whose
// objects reuse each other's addresses: leaks reports exactly the two
// planted leaks.
func TestPythonLeaks(t *testing.T) {
	if _, err := exec.LookPath("python3"); err != nil {
		t.Skip("python3 is not installed")
	}
	dir := t.TempDir()
	pp, err := agent.Dir()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("python3", filepath.Join("testdata", "leaky.py"), dir)
	cmd.Env = append(os.Environ(), "PYTHONPATH="+pp)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("python3: %v\n%s", err, out)
	}
	snap := func(n string) string { return filepath.Join(dir, n+".pysnap") }
	findings := leakFindings(t, snap("baseline"), snap("target"), snap("final"))
	wantExactly(t, findings, "module __main__ -> .contexts dict", "module __main__ -> .listeners list")
	why := whyText(t, snap("final"), "__main__.RequestContext")
	if !strings.Contains(why, "module __main__ -> .contexts dict -> [*] __main__.RequestContext") {
		t.Errorf("why RequestContext does not go through the contexts dict:\n%s", why)
	}
}
