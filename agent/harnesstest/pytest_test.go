package harnesstest

import (
	"archive/zip"
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/heapscope/heapscope/agent"
	"github.com/heapscope/heapscope/internal/report"
)

// harnessPython returns a python3 that has pytest, pip and venv, or skips.
func harnessPython(t *testing.T) string {
	t.Helper()
	py := needPytest(t)
	if exec.Command(py, "-m", "pip", "--version").Run() != nil || exec.Command(py, "-m", "venv", "--help").Run() != nil {
		t.Skipf("%s has no pip or venv (Debian: python3-pip, python3-venv)", py)
	}
	return py
}

// TestPytestInstalled installs the heapscope-agent package offline into
// virtual environments (a wheel built by its standard-library backend)
// and runs pytest on a project with a leaking and a clean marked test,
// with no -p, PYTHONPATH or HEAPSCOPE_BIN: pytest finds the plugin by its
// entry point and the program on PATH, or in the wheel that carries it.
// Without the program both tests fail and say what to do; without the
// plugin, the recommended pytest settings fail the run.
func TestPytestInstalled(t *testing.T) {
	t.Parallel() // these tests wait on single-threaded Python processes
	py := harnessPython(t)
	src, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	const sysPath = "/usr/bin:/bin"
	if p, err := exec.LookPath("/usr/bin/heapscope"); err == nil {
		t.Skipf("%s is installed: the tests of a missing program cannot run", p)
	}
	env := cleanEnv(sysPath)
	binDir := t.TempDir()
	if err := os.Symlink(bin, filepath.Join(binDir, "heapscope")); err != nil {
		t.Fatal(err)
	}
	withBin := cleanEnv(binDir + ":" + sysPath)

	// Two wheels: pure Python, and one that carries the program.
	wheels := t.TempDir()
	must(t, wheels, env, py, "-m", "pip", "wheel", "--no-build-isolation", "--no-deps", "--no-index", "-q", "-w", "pure", src)
	must(t, wheels, env, py, "-m", "pip", "wheel", "--no-build-isolation", "--no-deps", "--no-index", "-q", "-w", "bin",
		"--config-settings", "binary="+bin, src)
	pure, _ := filepath.Glob(filepath.Join(wheels, "pure", "heapscope_agent-*-py3-none-any.whl"))
	withProgram, _ := filepath.Glob(filepath.Join(wheels, "bin", "heapscope_agent-*-py3-none-*.whl"))
	if len(pure) != 1 || len(withProgram) != 1 || strings.HasSuffix(withProgram[0], "-any.whl") {
		t.Fatalf("wheels: %v and %v, want one pure and one for this platform", pure, withProgram)
	}
	checkWheel(t, pure[0], bin, false)
	checkWheel(t, withProgram[0], bin, true)

	venv := func(wheel string) string {
		dir := filepath.Join(t.TempDir(), "venv")
		must(t, "", env, py, "-m", "venv", "--system-site-packages", dir)
		vpy := filepath.Join(dir, "bin", "python")
		must(t, "", env, vpy, "-m", "pip", "install", "--no-index", "--no-deps", "-q", wheel)
		return vpy
	}
	proj := projectDir(t, "installed/test_sample.py")
	pytest := func(vpy string, env []string) (string, int) {
		return runIn(t, proj, env, vpy, "-m", "pytest", "-q", "-p", "no:cacheprovider", "test_sample.py")
	}
	wantOneLeak := func(what, out string, code int) {
		t.Helper()
		if code != 1 || !slices.Equal(failedTests(out), []string{"test_sample.py::test_leaks"}) {
			t.Errorf("%s: exit %d, failed %v; want 1 and test_leaks only:\n%s", what, code, failedTests(out), out)
		}
		wantAll(t, what, out, "1 failed, 1 passed", "held by module test_sample -> .held list -> [*] test_sample.Record")
	}

	// The recommended settings (docs/harness.md) change nothing when the
	// plugin is there...
	ini := filepath.Join(proj, "pytest.ini")
	write := func(text string) {
		if err := os.WriteFile(ini, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("[pytest]\naddopts = --strict-markers\nrequired_plugins = heapscope-agent\n")
	vpure := venv(pure[0])
	out, code := pytest(vpure, withBin)
	wantOneLeak("pure wheel, heapscope on PATH", out, code)

	out, code = pytest(vpure, env)
	if len(failedTests(out)) != 2 {
		t.Errorf("no heapscope anywhere: failed %v, want both tests:\n%s", failedTests(out), out)
	}
	wantAll(t, "no heapscope anywhere", out, "needs the heapscope program", "HEAPSCOPE_BIN", "on PATH")

	out, code = pytest(venv(withProgram[0]), env)
	wantOneLeak("wheel with the program, none on PATH", out, code)

	// ...and fail the run when it is not: the system Python has pytest
	// but not heapscope-agent.
	if exec.Command(py, "-c", "import heapscope").Run() == nil {
		t.Skipf("%s imports heapscope: cannot test a run without the plugin", py)
	}
	out, code = pytest(py, withBin)
	if code == 0 || code == 1 {
		t.Errorf("required_plugins without the plugin: exit %d, want a usage error:\n%s", code, out)
	}
	wantAll(t, "required_plugins without the plugin", out, "Missing required plugins: heapscope-agent")
	write("[pytest]\naddopts = --strict-markers\n")
	out, code = pytest(py, withBin)
	if code == 0 {
		t.Errorf("--strict-markers without the plugin: exit 0:\n%s", out)
	}
	wantAll(t, "--strict-markers without the plugin", out, "'no_leaks' not found in `markers` configuration option")
	// Without them, pytest only warns and the leak passes: what the
	// settings are for.
	if err := os.Remove(ini); err != nil {
		t.Fatal(err)
	}
	out, code = pytest(py, withBin)
	if code != 0 {
		t.Errorf("no settings, no plugin: exit %d, want the unchecked pass the settings prevent:\n%s", code, out)
	}
	wantAll(t, "no settings, no plugin", out, "2 passed", "PytestUnknownMarkWarning")
}

// checkWheel checks a wheel's members: the package's modules, the entry
// point, and the program (executable, byte for byte) when it carries it.
func checkWheel(t *testing.T, path, bin string, withProgram bool) {
	t.Helper()
	z, err := zip.OpenReader(path)
	if err != nil {
		t.Fatal(err)
	}
	defer z.Close()
	names := map[string]*zip.File{}
	for _, f := range z.File {
		names[f.Name] = f
	}
	for _, n := range []string{"heapscope/__init__.py", "heapscope/leakcheck.py", "heapscope/pytest_plugin.py"} {
		if names[n] == nil {
			t.Errorf("%s lacks %s", path, n)
		}
	}
	var ep string
	for n, f := range names {
		if strings.HasSuffix(n, ".dist-info/entry_points.txt") {
			rc, err := f.Open()
			if err != nil {
				t.Fatal(err)
			}
			var b bytes.Buffer
			b.ReadFrom(rc)
			rc.Close()
			ep = b.String()
		}
	}
	if !strings.Contains(ep, "[pytest11]\nheapscope.pytest_plugin = heapscope.pytest_plugin") {
		t.Errorf("%s: entry points %q", path, ep)
	}
	f := names["heapscope/bin/heapscope"]
	if (f != nil) != withProgram {
		t.Fatalf("%s: carries the program: %v, want %v", path, f != nil, withProgram)
	}
	if f == nil {
		return
	}
	want, err := os.ReadFile(bin)
	if err != nil {
		t.Fatal(err)
	}
	if f.Mode()&0o111 == 0 || f.UncompressedSize64 != uint64(len(want)) {
		t.Errorf("%s: heapscope/bin/heapscope mode %v, %d bytes; want executable, %d bytes", path, f.Mode(), f.UncompressedSize64, len(want))
	}
}

// TestPytestWheelAcrossPythons builds the wheel with the oldest and the
// newest pyenv Python (with build isolation and no index: the backend
// needs nothing installed): TOML read by the backend's own reader (3.9,
// 3.10) or by tomllib (3.11+) gives the same wheel, byte for byte.
func TestPytestWheelAcrossPythons(t *testing.T) {
	t.Parallel()
	pys := pyenvPythons()
	if len(pys) < 2 {
		t.Skip("fewer than two pyenv Pythons")
	}
	pys = []string{pys[0], pys[len(pys)-1]}
	src, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	var first []byte
	for _, py := range pys {
		if exec.Command(py, "-m", "pip", "--version").Run() != nil {
			continue
		}
		dir := t.TempDir()
		must(t, dir, cleanEnv(os.Getenv("PATH")), py, "-m", "pip", "wheel", "--no-deps", "--no-index", "-q", "-w", dir, src)
		ws, _ := filepath.Glob(filepath.Join(dir, "*.whl"))
		if len(ws) != 1 {
			t.Fatalf("%s: wheels %v", py, ws)
		}
		data, err := os.ReadFile(ws[0])
		if err != nil {
			t.Fatal(err)
		}
		if first == nil {
			first = data
		} else if !bytes.Equal(data, first) {
			t.Errorf("%s built a different wheel from %s's", py, pys[0])
		}
	}
}

// pyenvPythons returns the python3 of each pyenv version the agent
// supports (3.9 and later), oldest first.
func pyenvPythons() []string {
	root := os.Getenv("PYENV_ROOT")
	if root == "" {
		home, err := os.UserHomeDir()
		if err != nil {
			return nil
		}
		root = filepath.Join(home, ".pyenv")
	}
	pys, _ := filepath.Glob(filepath.Join(root, "versions", "3.*", "bin", "python3"))
	minor := func(p string) int {
		v := filepath.Base(filepath.Dir(filepath.Dir(p)))
		parts := strings.Split(v, ".")
		n, _ := strconv.Atoi(parts[1])
		return n
	}
	pys = slices.DeleteFunc(pys, func(p string) bool { return minor(p) < 9 })
	slices.SortFunc(pys, func(a, b string) int { return minor(a) - minor(b) })
	return pys
}

// TestPytestFixtures runs clean tests that use caplog, monkeypatch,
// capsys, tmp_path and unittest.mock (whose records grow with every run
// of the body) and a leak in a test that uses caplog: only the leak
// fails, and it says what was set aside. With the rules for pytest and
// mocks disabled, two of the clean tests fail. Leaking tests keep their
// snapshots (in --heapscope-dir), passing tests leave none.
func TestPytestFixtures(t *testing.T) {
	t.Parallel()
	py := needPytest(t)
	proj := projectDir(t, "test_fixtures.py", "no_rules.json")
	keep := filepath.Join(t.TempDir(), "kept")
	out, _ := runIn(t, proj, harnessEnv(t), py, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "heapscope.pytest_plugin",
		"--heapscope-dir", keep, "test_fixtures.py")
	wantFailed := []string{
		"test_fixtures.py::test_leak_with_caplog",
		"test_fixtures.py::test_magicmock_without_rules",
		"test_fixtures.py::test_monkeypatch_without_rules",
	}
	if got := failedTests(out); !slices.Equal(got, wantFailed) {
		t.Fatalf("failed %v, want %v:\n%s", got, wantFailed, out)
	}
	wantAll(t, "pytest output", out,
		"10 test_fixtures.Thing in list at module test_fixtures.held, retaining ",
		"held by module test_fixtures -> .held list -> [*] test_fixtures.Thing",
		"objects on that path after 22, 32 and 42 runs: 22 -> 32 -> 42",
		// The leak's report says what it set aside...
		"logging.LogRecord held by _pytest.",
		// ...and without the rules, what the mock and monkeypatch hold is reported.
		"-> ._setattr list -> [*] tuple",
		"unittest.mock._Call",
		"11 tests checked for leaks, 3 leaked",
		"set aside as not the tests' leaks: ",
		"(python-pytest) in ", "(python-unittest-mock) in ")
	if !regexp.MustCompile(`retaining \d+(\.\d)? (B|KiB|MiB)\n`).MatchString(out) {
		t.Errorf("sizes are not in B, KiB or MiB:\n%s", out)
	}

	// Snapshots: those of the three leaking tests stay, named in the
	// failures; the passing tests leave nothing.
	kept, err := os.ReadDir(keep)
	if err != nil {
		t.Fatal(err)
	}
	var dirs []string
	for _, d := range kept {
		dirs = append(dirs, d.Name())
	}
	if want := []string{"test_fixtures.py_test_leak_with_caplog", "test_fixtures.py_test_magicmock_without_rules",
		"test_fixtures.py_test_monkeypatch_without_rules"}; !slices.Equal(dirs, want) {
		t.Errorf("kept %v, want %v", dirs, want)
	}
	leakDir := filepath.Join(keep, "test_fixtures.py_test_leak_with_caplog")
	// Kept snapshots hold what the tests held: the user's alone.
	for _, p := range []string{leakDir, filepath.Join(leakDir, "a.pysnap"), filepath.Join(leakDir, "c.pysnap")} {
		fi, err := os.Stat(p)
		if err != nil {
			t.Fatal(err)
		}
		if want := map[bool]os.FileMode{true: 0o700, false: 0o600}[fi.IsDir()]; fi.Mode().Perm() != want {
			t.Errorf("%s: mode %v, want %v", p, fi.Mode().Perm(), want)
		}
	}
	wantAll(t, "pytest output", out, "snapshots kept in "+leakDir+": a.pysnap, b.pysnap, c.pysnap (after 22, 32 and 42 runs)")
	out = must(t, "", harnessEnv(t), bin, "leaks", "--scaling", filepath.Join(leakDir, "a.pysnap"),
		filepath.Join(leakDir, "b.pysnap"), filepath.Join(leakDir, "c.pysnap"))
	wantAll(t, "heapscope leaks on the kept snapshots", out, "test_fixtures.Thing")
}

// TestPytestMarkerArgs: a marker with arguments it does not take fails
// its test, naming the marker and what it takes; so do a coroutine test
// and a body that fails on its second run, which says why.
func TestPytestMarkerArgs(t *testing.T) {
	py := needPytest(t)
	proj := projectDir(t, "test_marker_args.py")
	out, _ := runIn(t, proj, harnessEnv(t), py, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "heapscope.pytest_plugin", "test_marker_args.py")
	wantAll(t, "pytest output", out, "7 failed",
		"@pytest.mark.no_leaks: unknown argument 'iteration' (did you mean 'iterations'?). It takes only iterations=N",
		"@pytest.mark.no_leaks: iterations='20' is not an int.",
		"@pytest.mark.no_leaks: iterations=0: it must be at least 1.",
		"@pytest.mark.no_leaks: it takes no positional arguments (got 20).",
		"@pytest.mark.no_leaks: config='nowhere.json': no such file",
		"heapscope cannot check test_coroutine: it is a coroutine function",
		"Expected 'get' to be called once. Called 2 times.",
		"this failure happened on run 2 of 12 of the workload under the leak check")
	if strings.Contains(out, "TypeError") {
		t.Errorf("a marker argument reached the test:\n%s", out)
	}
}

// TestUnittestLeakCheck checks unittest.TestCase methods: under pytest
// with the marker and with the no_leaks decorator, and under python -m
// unittest with the decorator, on the machine's Pythons. The leaking
// methods fail; the clean ones pass though they use a mock from setUp,
// assertLogs, subTest and addCleanup on every run.
func TestUnittestLeakCheck(t *testing.T) {
	t.Parallel()
	proj := projectDir(t, "test_unittest.py")
	env := harnessEnv(t)
	if py := pytestPython(); py != "" {
		out, _ := runIn(t, proj, env, py, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "heapscope.pytest_plugin", "test_unittest.py")
		want := []string{"test_unittest.py::Decorated::test_leaks", "test_unittest.py::Marked::test_leaks"}
		if got := failedTests(out); !slices.Equal(got, want) {
			t.Errorf("pytest: failed %v, want %v:\n%s", got, want, out)
		}
		wantAll(t, "pytest output", out, "2 failed, 2 passed", "held by module test_unittest -> .held list -> [*] test_unittest.Record")
	}
	pys := []string{"python3"}
	if all := pyenvPythons(); len(all) > 0 {
		pys = append(pys, all[0], all[len(all)-1])
	}
	for _, py := range pys {
		if _, err := exec.LookPath(py); err != nil {
			continue
		}
		out, code := runIn(t, proj, env, py, "-m", "unittest", "test_unittest")
		if code != 1 {
			t.Errorf("%s -m unittest: exit %d, want 1", py, code)
		}
		// The marker means nothing to unittest: only the decorator checks.
		wantAll(t, py+" -m unittest", out, "Ran 4 tests", "FAILED (failures=1)", "FAIL: test_leaks (test_unittest.Decorated",
			"held by module test_unittest -> .held list -> [*] test_unittest.Record", "snapshots kept in ")
	}
}

// TestHumanBytes compares the harness's sizes with the Go report's.
func TestHumanBytes(t *testing.T) {
	if _, err := exec.LookPath("python3"); err != nil {
		t.Skip("python3 is not installed")
	}
	ns := []uint64{0, 1, 1023, 1024, 1075, 1536, 8397, 1<<20 - 1, 1 << 20, 5_000_000_000, 1 << 50, 1<<62 + 12345}
	var args, want []string
	for _, n := range ns {
		args = append(args, strconv.FormatUint(n, 10))
		want = append(want, report.Bytes(n))
	}
	pp, err := agent.Dir()
	if err != nil {
		t.Fatal(err)
	}
	script := "import sys; from heapscope.leakcheck import human_bytes; print('\\n'.join(human_bytes(int(a)) for a in sys.argv[1:]))"
	out := must(t, "", cleanEnv(os.Getenv("PATH"), "PYTHONPATH="+pp), "python3", append([]string{"-c", script}, args...)...)
	if got := strings.Split(strings.TrimSpace(out), "\n"); !slices.Equal(got, want) {
		t.Errorf("human_bytes %v\n= %q\nwant %q", ns, got, want)
	}
}
