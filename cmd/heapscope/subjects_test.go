package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
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
	var rep struct {
		Rows []struct {
			Type     string `json:"type"`
			Where    string `json:"where"`
			Count    int    `json:"count"`
			Retained uint64 `json:"retained_bytes"`
		} `json:"rows"`
	}
	runJSON(t, &rep, "leaks", "--json", "--top", "0", snap("1-baseline"), snap("2-target"), snap("3-final"))
	found := map[string]int{}
	for _, r := range rep.Rows {
		found[r.Type+" "+r.Where] += r.Count
		// A backing store or handle in place of the planted elements
		// would retain them (500 Sessions: over 100 KiB). Small ones are
		// Node's own: a request slowed by load can add a timer list,
		// and with it a new property store of timerListMap.
		backing := r.Type == "(array)" || r.Type == "TCP" || r.Type == "Array" || strings.HasPrefix(r.Type, "system / ")
		if backing && r.Retained >= 64<<10 {
			t.Errorf("finding names a backing store or handle: %s x %d %s, retaining %d bytes", r.Type, r.Count, r.Where, r.Retained)
		}
	}
	for _, want := range []string{
		"onConfigChange (closure) in Array change of Object _events",
		"Session in Map sessions of onConfigChange (closure)",
	} {
		if found[want] != 500 {
			t.Errorf("%q: %d leaked, want 500; findings:\n%v", want, found[want], found)
		}
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
		Objects []struct {
			Type string `json:"type"`
			Path string `json:"path"`
		} `json:"objects"`
	}
	runJSON(t, &top, "top", "--json", "--top", "0", files[0])
	closures, roots := 0, 0
	for _, o := range top.Objects {
		switch {
		case o.Type == "Function" || o.Type == "(synthetic)":
			t.Fatalf("an object of type %q: closures and synthetic roots must be named", o.Type)
		case strings.HasSuffix(o.Type, " (closure)"):
			closures++
		case o.Type == "(GC roots)" || o.Type == "(Handle scope)" || o.Type == "(Global handles)":
			roots++
		}
		steps := strings.Split(o.Path, " -> ")
		for i := 1; i < len(steps); i++ {
			if steps[i] == steps[i-1] {
				t.Fatalf("path with a run of equal steps not folded: %s", o.Path)
			}
		}
	}
	if closures < 1000 || roots != 3 {
		t.Errorf("%d closures, %d of (GC roots), (Handle scope), (Global handles); want many and 3", closures, roots)
	}
}
