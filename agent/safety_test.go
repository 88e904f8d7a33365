package agent

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/heapscope/heapscope/heap"
)

// These tests hold the agent to what docs/security.md promises of a
// capture of a live Python process, on every CPython 3.9+ the machine
// has (see pythons).

type interp struct{ Version, Path string }

// minor is the interpreter's minor version: 11 for 3.11.7.
func (p interp) minor() int {
	f := strings.Split(p.Version, ".")
	if len(f) < 2 {
		return 0
	}
	n, _ := strconv.Atoi(f[1])
	return n
}

var (
	interpsOnce sync.Once
	interps     []interp
)

// pythons returns every CPython of 3.9 or later the machine has, once
// each: python3 on PATH, /usr/bin/python3 and pyenv's versions.
// HEAPSCOPE_TEST_PYTHONS (paths separated by the path list separator)
// replaces the search.
func pythons(t *testing.T) []interp {
	t.Helper()
	interpsOnce.Do(func() {
		var cands []string
		if v := os.Getenv("HEAPSCOPE_TEST_PYTHONS"); v != "" {
			cands = filepath.SplitList(v)
		} else {
			if p, err := exec.LookPath("python3"); err == nil {
				cands = append(cands, p)
			}
			cands = append(cands, "/usr/bin/python3")
			root := os.Getenv("PYENV_ROOT")
			if root == "" {
				if h, err := os.UserHomeDir(); err == nil {
					root = filepath.Join(h, ".pyenv")
				}
			}
			if root != "" {
				m, _ := filepath.Glob(filepath.Join(root, "versions", "*", "bin", "python3"))
				cands = append(cands, m...)
			}
		}
		seen := map[string]bool{}
		for _, c := range cands {
			out, err := exec.Command(c, "-c", "import os, sys; print('%d.%d.%d' % sys.version_info[:3], "+
				"sys.version_info >= (3, 9) and sys.implementation.name == 'cpython', os.path.realpath(sys.executable))").Output()
			if err != nil {
				continue
			}
			f := strings.Fields(string(out))
			if len(f) != 3 || f[1] != "True" || seen[f[2]] {
				continue
			}
			seen[f[2]] = true
			interps = append(interps, interp{f[0], c})
		}
		sort.Slice(interps, func(i, j int) bool {
			if a, b := interps[i].minor(), interps[j].minor(); a != b {
				return a < b
			}
			return interps[i].Version < interps[j].Version
		})
	})
	if len(interps) == 0 {
		t.Skip("no CPython 3.9 or later")
	}
	return interps
}

// eachPython runs fn as a subtest per interpreter of pythons.
func eachPython(t *testing.T, fn func(t *testing.T, py interp)) {
	for _, p := range pythons(t) {
		t.Run(p.Version, func(t *testing.T) { fn(t, p) })
	}
}

func readFile(t *testing.T, p string) []byte {
	t.Helper()
	if p == "" {
		t.Fatal("the agent returned None")
	}
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func hasSection(t *testing.T, file []byte, kind uint32) bool {
	for _, k := range sectionKinds(t, file) {
		if k == kind {
			return true
		}
	}
	return false
}

// TestNoUserData: with values=False no secret of the program's is in the
// file, wherever it sat; with values they are (so the check can fail).
func TestNoUserData(t *testing.T) {
	const argv, envName, envValue = "ARGVSECRET-5d21", "ENVSECRET_NAME_2c7e", "ENVSECRET-VALUE-b19f"
	eachPython(t, func(t *testing.T, py interp) {
		for _, seed := range []string{"", "0"} {
			dir := t.TempDir()
			var r struct {
				With, Without, Census string
				Secrets               map[string]string
			}
			env := []string{envName + "=" + envValue}
			if seed != "" {
				env = append(env, "PYTHONHASHSEED="+seed)
			}
			runPyWith(t, py.Path, env, "userdata.py", &r, dir, argv)
			secrets := map[string]string{"argv": argv, "env name": envName, "env value": envValue}
			for k, v := range r.Secrets {
				secrets[k] = v
			}
			if len(secrets) != 10 {
				t.Fatalf("secrets: %v", secrets)
			}
			with, without, census := readFile(t, r.With), readFile(t, r.Without), readFile(t, r.Census)
			for name, s := range secrets {
				if !bytes.Contains(with, []byte(s)) {
					t.Errorf("values=True: the %s secret %q is not in the file", name, s)
				}
				if bytes.Contains(without, []byte(s)) {
					t.Errorf("values=False: the %s secret %q is in the file", name, s)
				}
				if bytes.Contains(census, []byte(s)) {
					t.Errorf("census with values=False: the %s secret %q is in the file", name, s)
				}
			}
			if hasSection(t, without, 6) {
				t.Errorf("values=False: the file has a VALUES section")
			}
			// Digests are the interpreter's keyed str hash: without a
			// secret key (PYTHONHASHSEED set), a short secret could be
			// found from its digest, so there are none.
			if got, want := hasSection(t, without, 8), seed == ""; got != want {
				t.Errorf("PYTHONHASHSEED=%q: values=False file has DIGESTS %v, want %v", seed, got, want)
			}
			if !hasSection(t, with, 8) {
				t.Errorf("values=True: no DIGESTS")
			}
		}
		// heapscope run --values=false: the exit snapshot.
		out := t.TempDir()
		cmd := exec.Command(py.Path, testdata("userdata.py"), t.TempDir(), argv)
		cmd.Env = append(Env(os.Environ(), RunOptions{OutDir: out, AtExit: true, NoValues: true}),
			envName+"="+envValue, "PYTHONDONTWRITEBYTECODE=1")
		if b, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("run mode: %v\n%s", err, b)
		}
		ents, _ := os.ReadDir(out)
		if len(ents) != 1 || !strings.HasSuffix(ents[0].Name(), "-exit.pysnap") {
			t.Fatalf("run mode wrote %v", ents)
		}
		exit := readFile(t, filepath.Join(out, ents[0].Name()))
		for _, s := range []string{argv, envName, envValue, "KEYSECRET-71c3", "STRSECRET-44d1"} {
			if bytes.Contains(exit, []byte(s)) {
				t.Errorf("run mode with values off: %q is in the exit snapshot", s)
			}
		}
	})
}

// TestFileModes: snapshots, their temporary files and the run output
// directory are created for their owner only, whatever the umask.
func TestFileModes(t *testing.T) {
	eachPython(t, func(t *testing.T, py interp) {
		var r struct {
			Modes    []uint32
			TmpModes []uint32 `json:"tmp_modes"`
		}
		runPyWith(t, py.Path, nil, "modes.py", &r, t.TempDir())
		if len(r.Modes) != 2 || len(r.TmpModes) != 2 {
			t.Fatalf("modes %o, temporary files %o", r.Modes, r.TmpModes)
		}
		for _, m := range append(r.Modes, r.TmpModes...) {
			if m != 0o600 {
				t.Errorf("modes %o, temporary files %o; want 600", r.Modes, r.TmpModes)
				break
			}
		}
		out := filepath.Join(t.TempDir(), "new", "out")
		cmd := exec.Command(py.Path, "-c", "x = 1")
		cmd.Env = Env(append(os.Environ(), "PYTHONDONTWRITEBYTECODE=1"), RunOptions{OutDir: out, AtExit: true})
		if b, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("run mode: %v\n%s", err, b)
		}
		st, err := os.Stat(out)
		if err != nil {
			t.Fatal(err)
		}
		if st.Mode().Perm() != 0o700 {
			t.Errorf("the run output directory is %o, want 700", st.Mode().Perm())
		}
	})
}

// TestNotReadyType: a type never made ready (import _testcapi on
// 3.9-3.11) used to crash the host; it is in the snapshot, opaque.
func TestNotReadyType(t *testing.T) {
	eachPython(t, func(t *testing.T, py interp) {
		if exec.Command(py.Path, "-c", "import _testcapi").Run() != nil {
			t.Skip("no _testcapi")
		}
		var r struct {
			Full, Novalues, Census string
			NotReady               []uint64 `json:"not_ready"`
		}
		runPyWith(t, py.Path, nil, "notready.py", &r, t.TempDir())
		if py.minor() <= 11 && len(r.NotReady) == 0 {
			t.Errorf("_testcapi of %s has no type that is not ready: the test tests nothing", py.Version)
		}
		open(t, r.Census)
		for _, p := range []string{r.Full, r.Novalues} {
			g := open(t, p)
			for _, a := range r.NotReady {
				id := find(t, g, a, "the type that is not ready")
				if g.Flags(id)&heap.FlagOpaque == 0 || len(g.Edges(id)) != 0 {
					t.Errorf("%s: the type that is not ready has flags %v and %d edges, want opaque, none",
						filepath.Base(p), g.Flags(id), len(g.Edges(id)))
				}
			}
		}
	})
}

// TestHashCollisions: keys of the program's whose hashes equal those of
// every name the agent uses are never compared or hashed.
func TestHashCollisions(t *testing.T) {
	eachPython(t, func(t *testing.T, py interp) {
		var r struct {
			Full, Novalues, Census string
			Raised                 string
			Calls                  []string
			Names                  int
			Victim                 uint64
			VictimPayload          uint64 `json:"victim_payload"`
		}
		runPyWith(t, py.Path, []string{"PYTHONWARNINGS=ignore"}, "collide.py", &r, t.TempDir())
		if r.Raised != "" || len(r.Calls) != 0 {
			t.Fatalf("the agent hashed or compared the program's keys: raised %q, calls %v", r.Raised, r.Calls)
		}
		if r.Names < 500 {
			t.Errorf("only %d names collide", r.Names)
		}
		open(t, r.Census)
		open(t, r.Novalues)
		g := open(t, r.Full)
		v := find(t, g, r.Victim, "a Victim")
		p := find(t, g, r.VictimPayload, "its payload")
		held := false
		for _, e := range g.Edges(v) {
			if e.To == p {
				held = true
			}
			for _, e2 := range g.Edges(e.To) {
				if typeName(g, e.To) == "dict" && e2.To == p {
					held = true
				}
			}
		}
		if !held {
			t.Errorf("the Victim's payload is not among its references")
		}
	})
}

// TestLeavesNothingBehind: after a capture, what the program deletes is
// freed, and frames' locals() dicts are unchanged.
func TestLeavesNothingBehind(t *testing.T) {
	eachPython(t, func(t *testing.T, py interp) {
		var r struct {
			Snapshot      string
			SameReferrers bool    `json:"same_referrers"`
			RSS           []int64 `json:"rss_mb"`
			WeakrefDead   bool    `json:"weakref_dead"`
			Locals        map[string][2][]string
		}
		runPyWith(t, py.Path, nil, "linger.py", &r, t.TempDir())
		open(t, r.Snapshot)
		if !r.SameReferrers {
			t.Errorf("the capture left a new reference to the program's object")
		}
		if len(r.RSS) != 3 || r.RSS[2] > r.RSS[1]-200 {
			t.Errorf("RSS before the capture, after it, after del (MB): %v; the 300 MB buffer was not freed", r.RSS)
		}
		if !r.WeakrefDead {
			t.Errorf("a deleted object outlived the capture")
		}
		if len(r.Locals) != 3 {
			t.Fatalf("locals: %v", r.Locals)
		}
		for k, v := range r.Locals {
			if strings.Join(v[0], ",") != strings.Join(v[1], ",") {
				t.Errorf("%s frame: locals() was %v before the capture, %v after", k, v[0], v[1])
			}
		}
	})
}

// TestInterruptedAnywhere: an interrupted capture leaves no file; a
// directory as the target is a message, not an exception.
func TestInterruptedAnywhere(t *testing.T) {
	eachPython(t, func(t *testing.T, py interp) {
		var r struct {
			Interrupted, Returned, Broken int
			Left, Files                   []string
			Directory                     *string
			DirectorySlash                *string `json:"directory_slash"`
		}
		stderr := runPyWith(t, py.Path, nil, "interrupts.py", &r, t.TempDir())
		if r.Interrupted < 3 {
			t.Errorf("only %d of %d captures were interrupted", r.Interrupted, r.Interrupted+r.Returned)
		}
		if len(r.Left) != 0 || len(r.Files) != 0 || r.Broken != 0 {
			t.Errorf("files left %v %v, %d broken snapshots", r.Left, r.Files, r.Broken)
		}
		if r.Directory != nil || r.DirectorySlash != nil {
			t.Errorf("a directory as the target returned %v, %v", r.Directory, r.DirectorySlash)
		}
		if strings.Count(stderr, "it is a directory") != 2 {
			t.Errorf("no message for a directory as the target:\n%s", stderr)
		}
	})
}

// TestWithoutCtypes: where frames' slots cannot be read (no ctypes), the
// capture still works, never reads f_locals, and says what it lacks.
func TestWithoutCtypes(t *testing.T) {
	eachPython(t, func(t *testing.T, py interp) {
		if py.minor() >= 13 {
			t.Skip("3.13+ reads locals through f_locals, which makes no dict")
		}
		pkg, err := Dir()
		if err != nil {
			t.Fatal(err)
		}
		path := filepath.Join(t.TempDir(), "n.pysnap")
		script := `
import sys
sys.modules["ctypes"] = None
import heapscope
def f():
    a = 1
    d = locals()
    b = 2
    p = heapscope.snapshot(sys.argv[1])
    print(p, sorted(d))
f()
`
		cmd := exec.Command(py.Path, "-c", script, path)
		cmd.Env = append(os.Environ(), "PYTHONPATH="+pkg, "PYTHONDONTWRITEBYTECODE=1")
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("%v\n%s", err, out)
		}
		if got := strings.TrimSpace(string(out)); got != path+" ['a']" {
			t.Errorf("output %q: want the path and locals() unchanged", got)
		}
		g := open(t, path)
		warned := false
		for _, w := range g.Warnings() {
			if strings.Contains(w.Msg, "fast locals of frames cannot be read") {
				warned = true
			}
		}
		if !warned {
			t.Errorf("no warning that locals could not be read: %v", g.Warnings())
		}
	})
}
