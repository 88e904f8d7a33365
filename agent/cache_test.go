package agent

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// nobody is a uid other than the test's, for files "another user" made.
const nobody = 65534

// asOther makes path another user's; it needs root.
func asOther(t *testing.T, path string) {
	t.Helper()
	if os.Getuid() != 0 {
		t.Skip("making another user's files needs root")
	}
	if err := os.Lchown(path, nobody, nobody); err != nil {
		t.Fatal(err)
	}
}

// privateEnv points the user cache and the temporary directory at fresh
// directories and returns them: cache does not exist yet.
func privateEnv(t *testing.T) (cache, tmp string) {
	cache = filepath.Join(t.TempDir(), "cache")
	tmp = t.TempDir()
	t.Setenv("XDG_CACHE_HOME", cache)
	t.Setenv("TMPDIR", tmp)
	return cache, tmp
}

func mode(t *testing.T, path string) os.FileMode {
	t.Helper()
	fi, err := os.Lstat(path)
	if err != nil {
		t.Fatal(err)
	}
	return fi.Mode().Perm()
}

// TestPrivateDir prepares the places heapscope looks at as another user
// could have, and checks which directory it picks: never one that is a
// symbolic link, another user's, or writable by others.
func TestPrivateDir(t *testing.T) {
	uid := strconv.Itoa(os.Getuid())
	tests := []struct {
		name    string
		prepare func(t *testing.T, cache, tmp string)
		want    func(cache, tmp string) string // "" for a fresh temporary directory
	}{
		{"fresh", func(t *testing.T, cache, tmp string) {},
			func(cache, tmp string) string { return filepath.Join(cache, "heapscope") }},
		{"old mode 0755 is tightened", func(t *testing.T, cache, tmp string) {
			os.MkdirAll(filepath.Join(cache, "heapscope"), 0o755)
			os.Chmod(filepath.Join(cache, "heapscope"), 0o755)
		}, func(cache, tmp string) string { return filepath.Join(cache, "heapscope") }},
		{"world-writable", func(t *testing.T, cache, tmp string) {
			os.MkdirAll(filepath.Join(cache, "heapscope"), 0o700)
			os.Chmod(filepath.Join(cache, "heapscope"), 0o777)
		}, func(cache, tmp string) string { return filepath.Join(tmp, "heapscope-"+uid) }},
		{"symbolic link", func(t *testing.T, cache, tmp string) {
			os.MkdirAll(cache, 0o700)
			os.Symlink(t.TempDir(), filepath.Join(cache, "heapscope"))
		}, func(cache, tmp string) string { return filepath.Join(tmp, "heapscope-"+uid) }},
		{"cache writable by others", func(t *testing.T, cache, tmp string) {
			os.MkdirAll(cache, 0o700)
			os.Chmod(cache, 0o777)
		}, func(cache, tmp string) string { return filepath.Join(tmp, "heapscope-"+uid) }},
		{"another user's, both", func(t *testing.T, cache, tmp string) {
			for _, d := range []string{filepath.Join(cache, "heapscope"), filepath.Join(tmp, "heapscope-"+uid)} {
				os.MkdirAll(d, 0o700)
				asOther(t, d)
			}
		}, func(cache, tmp string) string { return "" }},
		{"another user's, and an earlier run's fresh one", func(t *testing.T, cache, tmp string) {
			for _, d := range []string{filepath.Join(cache, "heapscope"), filepath.Join(tmp, "heapscope-"+uid)} {
				os.MkdirAll(d, 0o700)
				asOther(t, d)
			}
			// Another user's fresh one, and a link, both skipped.
			other := filepath.Join(tmp, "heapscope-"+uid+"-000000001")
			os.Mkdir(other, 0o700)
			asOther(t, other)
			os.Symlink(t.TempDir(), filepath.Join(tmp, "heapscope-"+uid+"-000000002"))
			os.Mkdir(filepath.Join(tmp, "heapscope-"+uid+"-123456789"), 0o700)
		}, func(cache, tmp string) string { return filepath.Join(tmp, "heapscope-"+uid+"-123456789") }},
		{"temporary name a symbolic link", func(t *testing.T, cache, tmp string) {
			os.MkdirAll(cache, 0o700)
			os.Symlink(t.TempDir(), filepath.Join(cache, "heapscope"))
			os.Symlink(t.TempDir(), filepath.Join(tmp, "heapscope-"+uid))
		}, func(cache, tmp string) string { return "" }},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			cache, tmp := privateEnv(t)
			tc.prepare(t, cache, tmp)
			got, err := findPrivate()
			if err != nil {
				t.Fatal(err)
			}
			want := tc.want(cache, tmp)
			if want == "" {
				if filepath.Dir(got) != tmp || !strings.HasPrefix(filepath.Base(got), "heapscope-"+uid+"-") {
					t.Errorf("findPrivate() = %s, want a fresh directory in %s", got, tmp)
				}
			} else if got != want {
				t.Errorf("findPrivate() = %s, want %s", got, want)
			}
			if m := mode(t, got); m != 0o700 {
				t.Errorf("%s has mode %v, want 0700", got, m)
			}
			if _, err := checkOwn(got); err != nil {
				t.Error(err)
			}
		})
	}
}

// TestExtractReplaces alters an extracted copy of the Python agent in
// the ways another user (or an accident) could, and checks that the
// next extraction replaces it with exactly the embedded files.
func TestExtractReplaces(t *testing.T) {
	tests := []struct {
		name  string
		alter func(t *testing.T, dir string)
	}{
		{"changed file", func(t *testing.T, dir string) {
			f, _ := os.OpenFile(filepath.Join(dir, "py", "heapscope", "__init__.py"), os.O_APPEND|os.O_WRONLY, 0)
			f.WriteString("\nimport os; os.system('echo pwned')\n")
			f.Close()
		}},
		{"planted module", func(t *testing.T, dir string) {
			os.WriteFile(filepath.Join(dir, "site", "json.py"), []byte("raise SystemExit('pwned')\n"), 0o600)
		}},
		{"planted directory", func(t *testing.T, dir string) {
			os.Mkdir(filepath.Join(dir, "py", "json"), 0o700)
		}},
		{"symbolic link for a file", func(t *testing.T, dir string) {
			evil := filepath.Join(t.TempDir(), "evil.py")
			os.WriteFile(evil, []byte("# evil\n"), 0o600)
			p := filepath.Join(dir, "site", "sitecustomize.py")
			os.Remove(p)
			os.Symlink(evil, p)
		}},
		{"missing ok", func(t *testing.T, dir string) {
			os.Remove(filepath.Join(dir, okFile))
		}},
		{"writable by others", func(t *testing.T, dir string) {
			os.Chmod(filepath.Join(dir, "py"), 0o777)
		}},
		{"another user's file", func(t *testing.T, dir string) {
			asOther(t, filepath.Join(dir, "py", "heapscope", "__init__.py"))
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			base := t.TempDir()
			dir, err := extractIn(base)
			if err != nil {
				t.Fatal(err)
			}
			tc.alter(t, dir)
			_, names, _ := contentHash()
			if verifyCopy(dir, filepath.Base(dir), names) == nil {
				t.Fatalf("the altered copy passes the check")
			}
			again, err := extractIn(base)
			if err != nil {
				t.Fatal(err)
			}
			if again != dir {
				t.Errorf("extracted to %s, then %s", dir, again)
			}
			if err := verifyCopy(dir, filepath.Base(dir), names); err != nil {
				t.Errorf("after extraction: %v", err)
			}
			entries, _ := os.ReadDir(base)
			if len(entries) != 1 {
				t.Errorf("%s holds %d entries, want the copy alone", base, len(entries))
			}
		})
	}
}

// TestExtractPycache checks that the __pycache__ directories Python
// fills are checked too: one with another user's file, or writable by
// others, is emptied; one Python wrote is kept.
func TestExtractPycache(t *testing.T) {
	py, err := exec.LookPath("python3")
	if err != nil {
		t.Skip("python3 is not installed")
	}
	base := t.TempDir()
	dir, err := extractIn(base)
	if err != nil {
		t.Fatal(err)
	}
	cache := filepath.Join(dir, "py", "heapscope", "__pycache__")
	if m := mode(t, cache); m != 0o700 {
		t.Errorf("%s has mode %v, want 0700", cache, m)
	}
	cmd := exec.Command(py, "-c", "import heapscope")
	cmd.Dir = t.TempDir() // not this package's own heapscope directory
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "PYTHONDONTWRITEBYTECODE=") {
			cmd.Env = append(cmd.Env, kv)
		}
	}
	cmd.Env = append(cmd.Env, "PYTHONPATH="+filepath.Join(dir, "py"))
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("import heapscope: %v\n%s", err, out)
	}
	written, _ := os.ReadDir(cache)
	if len(written) == 0 {
		t.Fatalf("python wrote no cache")
	}
	if _, err := extractIn(base); err != nil {
		t.Fatal(err)
	}
	if kept, _ := os.ReadDir(cache); len(kept) != len(written) {
		t.Errorf("python's own cache was not kept: %d files of %d", len(kept), len(written))
	}
	os.Chmod(cache, 0o777)
	if _, err := extractIn(base); err != nil {
		t.Fatal(err)
	}
	if left, _ := os.ReadDir(cache); len(left) != 0 || mode(t, cache) != 0o700 {
		t.Errorf("a cache writable by others was kept: %d files, mode %v", len(left), mode(t, cache))
	}
}

// TestPreloadReplaces checks the Node preload the same way: a changed
// file, a symbolic link (whose target stays untouched), a directory and
// another user's file in its place are replaced.
func TestPreloadReplaces(t *testing.T) {
	for name, alter := range map[string]func(t *testing.T, p string){
		"changed file": func(t *testing.T, p string) { os.WriteFile(p, []byte("process.exit(3)\n"), 0o600) },
		"symbolic link": func(t *testing.T, p string) {
			evil := filepath.Join(t.TempDir(), "evil.js")
			os.WriteFile(evil, []byte("process.exit(3)\n"), 0o600)
			os.Remove(p)
			os.Symlink(evil, p)
			t.Cleanup(func() {
				if b, _ := os.ReadFile(evil); string(b) != "process.exit(3)\n" {
					t.Errorf("the link's target was written")
				}
			})
		},
		"directory":      func(t *testing.T, p string) { os.Remove(p); os.Mkdir(p, 0o700) },
		"writable":       func(t *testing.T, p string) { os.Chmod(p, 0o666) },
		"another user's": func(t *testing.T, p string) { asOther(t, p) },
	} {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			p, err := writePreload(dir)
			if err != nil {
				t.Fatal(err)
			}
			alter(t, p)
			if sameFile(p, nodePreload) {
				t.Fatalf("the altered preload passes the check")
			}
			if p2, err := writePreload(dir); err != nil || p2 != p {
				t.Fatalf("writePreload() = %s, %v", p2, err)
			}
			if !sameFile(p, nodePreload) {
				t.Errorf("the preload was not replaced")
			}
			if m := mode(t, p); m != 0o600 {
				t.Errorf("mode %v, want 0600", m)
			}
			b, _ := os.ReadFile(p)
			if !bytes.Equal(b, nodePreload) {
				t.Errorf("content differs")
			}
		})
	}
}

// TestPrivateDirTakenOnce: when another user has taken <tmp>/heapscope-UID,
// every run uses the same fresh directory, not a new one each time.
func TestPrivateDirTakenOnce(t *testing.T) {
	uid := strconv.Itoa(os.Getuid())
	cache, tmp := privateEnv(t)
	for _, d := range []string{filepath.Join(cache, "heapscope"), filepath.Join(tmp, "heapscope-"+uid)} {
		os.MkdirAll(d, 0o700)
		asOther(t, d)
	}
	first, err := findPrivate()
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 3; i++ {
		again, err := findPrivate()
		if err != nil {
			t.Fatal(err)
		}
		if again != first {
			t.Errorf("run %d used %s, the first %s", i+2, again, first)
		}
	}
	if m, _ := filepath.Glob(filepath.Join(tmp, "heapscope-"+uid+"-*")); len(m) != 1 {
		t.Errorf("directories made: %v, want one", m)
	}
}
