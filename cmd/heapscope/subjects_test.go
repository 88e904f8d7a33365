package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// subjects returns the node_modules directory that holds the real npm
// programs these tests run (express, eslint), as an absolute path,
// skipping the test when pkg is not installed there. The default is the
// repository's testdata/subjects/node_modules, which `cd
// testdata/subjects && npm ci` fills at the versions its lock file pins
// (.ci/run does); HEAPSCOPE_SUBJECTS names another directory.
func subjects(t *testing.T, pkg string) string {
	t.Helper()
	if _, err := exec.LookPath("node"); err != nil {
		t.Skip("node is not installed")
	}
	dir := os.Getenv("HEAPSCOPE_SUBJECTS")
	hint := "set HEAPSCOPE_SUBJECTS to a node_modules that has it"
	if dir == "" {
		dir = filepath.Join("..", "..", "testdata", "subjects", "node_modules")
		hint = "from the repository root: cd testdata/subjects && npm ci; or set HEAPSCOPE_SUBJECTS"
	}
	dir, err := filepath.Abs(dir)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, pkg, "package.json")); err != nil {
		t.Skipf("npm package %s is not installed in %s (%s)", pkg, dir, hint)
	}
	return dir
}

// runESLintScript writes n small CommonJS modules into DIR/src, DIR a
// new temporary directory, and runs testdata/script with node on DIR and
// the installed eslint (see [subjects]); it returns DIR.
func runESLintScript(t *testing.T, script string, n int) string {
	t.Helper()
	mods := subjects(t, "eslint")
	dir := t.TempDir()
	src := filepath.Join(dir, "src")
	os.MkdirAll(src, 0o700)
	for i := range n {
		code := fmt.Sprintf("'use strict';\nconst parts = [];\nfunction build%d(n) {\n  let s = '';\n  for (let i = 0; i < n; i++) { s += i; parts.push({ s, i, k: [i, i + 1] }); }\n  return s == parts.join('') ? parts : null;\n}\nmodule.exports = { build%d };\n", i, i)
		os.WriteFile(filepath.Join(src, fmt.Sprintf("m%d.js", i)), []byte(code), 0o600)
	}
	path, _ := filepath.Abs(filepath.Join("testdata", script))
	cmd := exec.Command("node", path, dir)
	cmd.Env = append(os.Environ(), "SUBJECTS="+mods)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("node: %v\n%s", err, out)
	}
	return dir
}

// TestExpressLeaks runs a real express server with planted leaks (a
// Map of sessions in the handler's closure that is never evicted, a
// listener added per request and never removed; per-session metadata in
// a WeakMap, which its Session key retains), driven over loopback, and
// checks that leaks names the
// growing elements and where they sit, not the Map's backing store or
// the server's socket handle.
func TestExpressLeaks(t *testing.T) {
	mods := subjects(t, "express")
	dir := t.TempDir()
	cmd := exec.Command("node", filepath.Join("testdata", "express-leak.js"), dir)
	cmd.Env = append(os.Environ(), "SUBJECTS="+mods)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("node: %v\n%s", err, out)
	}
	snap := func(n string) string { return filepath.Join(dir, n+".heapsnapshot") }
	var rep leakRows
	runJSON(t, &rep, "leaks", "--json", "--top", "0", snap("1-baseline"), snap("2-target"), snap("3-final"))
	found := map[string]int{}
	for _, r := range rep.Rows {
		for _, p := range r.Parts {
			found[p.Type+" "+r.Place.Text] += p.Count
			// A backing store or handle in place of the planted
			// elements would retain them (500 Sessions: over 100 KiB).
			// Small ones are Node's own: a request slowed by load can
			// add a timer list, and with it a new property store of
			// timerListMap.
			backing := p.Type == "(array)" || p.Type == "TCP" || p.Type == "Array" || strings.HasPrefix(p.Type, "system / ")
			if backing && p.Retained >= 64<<10 {
				t.Errorf("part names a backing store or handle: %s x %d %s, retaining %d bytes", p.Type, p.Count, r.Place.Text, p.Retained)
			}
		}
	}
	// The Map is one finding: its values and its keys are parts of it.
	for _, want := range []string{
		"onConfigChange (closure) EventEmitter._events.change",
		"Session Map at system / Context.sessions",
		"(string) Map at system / Context.sessions",
	} {
		if found[want] != 500 {
			t.Errorf("%q: %d leaked, want 500; parts:\n%v", want, found[want], found)
		}
	}
	maps := 0
	for _, r := range rep.Rows {
		if r.Place.Text == "Map at system / Context.sessions" {
			maps++
			if r.Verdict != "grows" || !strings.Contains(r.HeldBy, "onRequest (closure)") {
				t.Errorf("the Map's finding %q: %s, %s; want growing, held by the request handler", r.Text, r.Verdict, r.HeldBy)
			}
		}
	}
	if maps != 1 {
		t.Errorf("%d findings of the sessions Map, want one", maps)
	}
}

// TestESLintPluginLeak lints a source tree in rounds through eslint's
// own API with a plugin rule that keeps every AST node it visits in a
// module-level array (testdata/eslintleak.js): the nodes point at each
// other (parent, children, locations), and leaks reports them as one
// finding at the program's array, first, with the whole structure's
// retained size, in at most three findings.
func TestESLintPluginLeak(t *testing.T) {
	dir := runESLintScript(t, "eslintleak.js", 10)
	snap := func(n string) string { return filepath.Join(dir, n+".heapsnapshot") }
	var rep leakRows
	runJSON(t, &rep, "leaks", "--json", "--top", "0", snap("1"), snap("2"), snap("3"))
	if len(rep.Rows) == 0 || len(rep.Rows) > 3 {
		t.Fatalf("%d findings, want 1 to 3:\n%+v", len(rep.Rows), rep.Rows)
	}
	first := rep.Rows[0]
	var total uint64
	for _, r := range rep.Rows {
		total += r.Retained
	}
	if !strings.Contains(first.Place.Text, "Array at") || !strings.HasSuffix(first.Place.Text, ".kept") || first.Type != "Node" {
		t.Errorf("first finding %q at %q, want the Nodes in the program's array kept", first.Text, first.Place.Text)
	}
	if first.Retained*10 < total*9 {
		t.Errorf("the first finding retains %d bytes of %d: want the whole structure in it", first.Retained, total)
	}
}

// TestESLintResultsWhileAwaiting runs a lint server's loop through
// eslint's API that keeps every call's results in a module-level Map
// (testdata/eslintresults.js), with its snapshots taken while the loop
// awaits a sleep, as a snapshot of a running server is: the sleep's
// Timeout, made anew each time, then holds the loop's state and the Map.
// The entries the Map gained after target are its gains, and check
// fails on it; they were counted at the Timeout, and the Map "grew by
// 30, then 0: stopped growing", which check passed.
func TestESLintResultsWhileAwaiting(t *testing.T) {
	dir := runESLintScript(t, "eslintresults.js", 5)
	snaps := []string{filepath.Join(dir, "1.heapsnapshot"), filepath.Join(dir, "2.heapsnapshot"), filepath.Join(dir, "3.heapsnapshot")}
	var rep leakRows
	runJSON(t, &rep, append([]string{"leaks", "--json", "--top", "0"}, snaps...)...)
	if len(rep.Rows) == 0 || !strings.HasSuffix(rep.Rows[0].Place.Text, ".lastResults") {
		t.Fatalf("findings %+v, want the Map lastResults first", rep.Rows)
	}
	// Six rounds of five lintText calls between each two snapshots.
	f := rep.Rows[0]
	if f.Verdict != "grows" || f.Gains.New != [2]int{30, 30} {
		t.Errorf("the Map's finding %q: %s, gains %v; want growing, [30 30]", f.Text, f.Verdict, f.Gains.New)
	}
	var out bytes.Buffer
	err := run(append([]string{"check"}, snaps...), &out, io.Discard)
	var ee *exitError
	if !errors.As(err, &ee) || ee.code != exitLeak || !strings.Contains(out.String(), "leak: ") {
		t.Errorf("check: %v, want exit %d on the Map\n%s", err, exitLeak, out.String())
	}
}

// TestESLintReport takes a heap snapshot of a real eslint run at exit
// (heapscope run --at-exit) and checks what top names: closures by their
// function, roots by their names, and no path with a run of equal steps
// (rope halves, shape back pointers) spelled out.
func TestESLintReport(t *testing.T) {
	mods := subjects(t, "eslint")
	dir := t.TempDir()
	src := filepath.Join(dir, "src")
	os.MkdirAll(src, 0o700)
	for i := range 20 {
		code := "'use strict';\nconst parts = [];\nfunction build" + string(rune('a'+i)) + "(n) {\n  let s = '';\n  for (let i = 0; i < n; i++) { s += i; parts.push(s); }\n  return s == parts.join('');\n}\nmodule.exports = { build" + string(rune('a'+i)) + " };\n"
		os.WriteFile(filepath.Join(src, "m"+string(rune('a'+i))+".js"), []byte(code), 0o600)
	}
	os.WriteFile(filepath.Join(dir, "eslint.config.cjs"), []byte(`module.exports = [{ files: ["src/**/*.js"], languageOptions: { sourceType: "commonjs" }, rules: { eqeqeq: "warn", "prefer-const": "warn", "no-unused-vars": "warn" } }];`), 0o600)
	snaps := filepath.Join(dir, "snaps")
	var stdout, stderr bytes.Buffer
	t.Chdir(dir) // eslint lints only below its working directory
	err := run([]string{"run", "-o", snaps, "--at-exit", "--", "node", filepath.Join(mods, "eslint", "bin", "eslint.js"), "src"}, &stdout, &stderr)
	if err != nil && !strings.Contains(err.Error(), "exit") {
		t.Fatalf("run eslint: %v\n%s", err, stderr.String())
	}
	files, _ := filepath.Glob(filepath.Join(snaps, "*.heapsnapshot"))
	if len(files) != 1 {
		t.Fatalf("snapshots %v, want one at exit; stderr:\n%s", files, stderr.String())
	}
	var top struct {
		Columns []string            `json:"object_columns"`
		Objects [][]json.RawMessage `json:"objects"`
	}
	runJSON(t, &top, "top", "--json", "--top", "0", files[0])
	col := slices.Index(top.Columns, "type")
	if col < 0 {
		t.Fatalf("top --json: no type among the columns %q", top.Columns)
	}
	closures, roots := 0, 0
	for _, row := range top.Objects {
		var typ string
		if col >= len(row) || json.Unmarshal(row[col], &typ) != nil {
			t.Fatalf("top --json: a row without its type: %s", row)
		}
		switch {
		case typ == "Function" || typ == "(synthetic)":
			t.Fatalf("an object of type %q: closures and synthetic roots must be named", typ)
		case strings.HasSuffix(typ, " (closure)"):
			closures++
		case typ == "(GC roots)" || typ == "(Handle scope)" || typ == "(Global handles)":
			roots++
		}
	}
	// The paths as top prints them, whole (--width 0): runs of one step
	// folded, which some of the first 400 have.
	var text bytes.Buffer
	if err := run([]string{"top", "--top", "400", "--width", "0", files[0]}, &text, io.Discard); err != nil {
		t.Fatal(err)
	}
	folded := 0
	for line := range strings.Lines(text.String()) {
		if strings.Contains(line, "(repeated)") || strings.Contains(line, " steps)") {
			folded++
		}
		steps := strings.Split(strings.TrimSpace(line), " -> ")
		for i := 1; i < len(steps); i++ {
			if steps[i] == steps[i-1] {
				t.Fatalf("path with a run of equal steps not folded: %s", line)
			}
		}
	}
	if folded == 0 {
		t.Errorf("no path of the first 400 objects has a folded run of steps: the test checks nothing\n%s", text.String())
	}
	if closures < 1000 || roots != 3 {
		t.Errorf("%d closures, %d of (GC roots), (Handle scope), (Global handles); want many and 3", closures, roots)
	}
}
