package agent

import (
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"
)

//go:embed heapscope/*.py site/sitecustomize.py
var files embed.FS

// Layout of an extracted copy, under <private dir>/python-agent-<hash>
// (see cache.go for the private directory):
//
//	py/heapscope/*.py          the importable package (Dir returns .../py)
//	site/sitecustomize.py      the run-mode hook (RunDir returns .../site)
//	ok                         written last: the copy is complete
const (
	pkgSub  = "py"
	siteSub = "site"
	okFile  = "ok"
)

var (
	once    sync.Once
	rootDir string
	rootErr error
)

// Dir extracts the Python agent (once per process, and once per content
// version on the machine) and returns the directory that holds the
// importable heapscope package: put it on PYTHONPATH, or on sys.path, and
// `import heapscope`.
func Dir() (string, error) {
	r, err := root()
	if err != nil {
		return "", err
	}
	return filepath.Join(r, pkgSub), nil
}

// RunDir returns the directory that holds the sitecustomize.py of
// `heapscope run`. It is separate from [Dir] so that users of
// `heapscope python-path` do not load it.
func RunDir() (string, error) {
	r, err := root()
	if err != nil {
		return "", err
	}
	return filepath.Join(r, siteSub), nil
}

func root() (string, error) {
	once.Do(func() { rootDir, rootErr = extract() })
	return rootDir, rootErr
}

// contentHash hashes the names and contents of the embedded files.
func contentHash() (string, []string, error) {
	var names []string
	err := fs.WalkDir(files, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() {
			names = append(names, p)
		}
		return nil
	})
	if err != nil {
		return "", nil, err
	}
	sort.Strings(names)
	h := sha256.New()
	for _, n := range names {
		b, err := files.ReadFile(n)
		if err != nil {
			return "", nil, err
		}
		fmt.Fprintf(h, "%s\x00%d\x00", n, len(b))
		h.Write(b)
	}
	return hex.EncodeToString(h.Sum(nil))[:16], names, nil
}

// extract writes the files into a content-hashed directory under the
// per-user directory (see cache.go), atomically: into a fresh temporary
// directory first, then renamed into place. A copy that is already there
// is reused only if it holds exactly the embedded files (and Python's
// caches of them), all the user's and writable by no one else; any other
// is replaced.
func extract() (string, error) {
	base, err := privateDir()
	if err != nil {
		return "", err
	}
	return extractIn(base)
}

// extractIn is extract into the directory base.
func extractIn(base string) (string, error) {
	sum, names, err := contentHash()
	if err != nil {
		return "", err
	}
	name := "python-agent-" + sum
	final := filepath.Join(base, name)
	if verifyCopy(final, name, names) == nil {
		return final, nil
	}
	tmp, err := os.MkdirTemp(base, "."+name+".tmp-")
	if err != nil {
		return "", err
	}
	defer os.RemoveAll(tmp) // a no-op once renamed
	if err := writeCopy(tmp, name, names); err != nil {
		return "", err
	}
	for try := 0; ; try++ {
		err := os.Rename(tmp, final)
		if err == nil {
			return final, nil
		}
		// Another process may have put a good copy there meanwhile.
		if verifyCopy(final, name, names) == nil {
			return final, nil
		}
		if try == 1 {
			return "", fmt.Errorf("agent: cannot put the Python agent in place at %s: %w", final, err)
		}
		// A stale, incomplete or altered copy: move it off and remove it.
		stale := tmp + ".old"
		if err := os.Rename(final, stale); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return "", err
		}
		os.RemoveAll(stale)
	}
}

// writeCopy writes the embedded files into dir, with empty __pycache__
// directories of mode 0700 for Python to fill (so that their mode does
// not depend on the umask).
func writeCopy(dir, name string, names []string) error {
	for _, n := range names {
		b, err := files.ReadFile(n)
		if err != nil {
			return err
		}
		dst := filepath.Join(dir, target(n))
		if err := os.MkdirAll(filepath.Join(filepath.Dir(dst), "__pycache__"), 0o700); err != nil {
			return err
		}
		if err := os.WriteFile(dst, b, 0o600); err != nil {
			return err
		}
	}
	return os.WriteFile(filepath.Join(dir, okFile), []byte(name+"\n"), 0o600)
}

// verifyCopy checks an extracted copy: every embedded file with its
// content, the ok file, and nothing else but __pycache__ directories;
// nothing a symbolic link, everything the user's and not writable by
// others. A __pycache__ that fails the check is emptied, as Python
// remakes it.
func verifyCopy(dir, name string, names []string) error {
	want := map[string][]byte{okFile: []byte(name + "\n")}
	for _, n := range names {
		b, err := files.ReadFile(n)
		if err != nil {
			return err
		}
		want[target(n)] = b
	}
	dirs := map[string]bool{}
	for rel := range want {
		for d := filepath.Dir(rel); d != "."; d = filepath.Dir(d) {
			dirs[d] = true
		}
	}
	if fi, err := checkOwn(dir); err != nil {
		return err
	} else if !fi.IsDir() {
		return fmt.Errorf("%s is not a directory", dir)
	}
	seen := 0
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		if rel == "." {
			return nil
		}
		if d.IsDir() && d.Name() == "__pycache__" {
			if checkCache(p) != nil {
				if err := os.RemoveAll(p); err != nil {
					return err
				}
				return os.Mkdir(p, 0o700)
			}
			return filepath.SkipDir
		}
		fi, err := checkOwn(p)
		if err != nil {
			return err
		}
		if fi.IsDir() {
			if !dirs[rel] {
				return fmt.Errorf("%s: not heapscope's", p)
			}
			return nil
		}
		b, ok := want[rel]
		if !ok {
			return fmt.Errorf("%s: not heapscope's", p)
		}
		if !sameFile(p, b) {
			return fmt.Errorf("%s differs from heapscope's", p)
		}
		seen++
		return nil
	})
	if err != nil {
		return err
	}
	if seen != len(want) {
		return fmt.Errorf("%s: %d of %d files", dir, seen, len(want))
	}
	return nil
}

// checkCache checks a __pycache__ directory and its files: the user's,
// not writable by others, no symbolic links, nothing below it.
func checkCache(dir string) error {
	if _, err := checkOwn(dir); err != nil {
		return err
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return err
	}
	for _, e := range entries {
		fi, err := checkOwn(filepath.Join(dir, e.Name()))
		if err != nil {
			return err
		}
		if !fi.Mode().IsRegular() {
			return fmt.Errorf("%s: not a file", filepath.Join(dir, e.Name()))
		}
	}
	return nil
}

// target maps an embedded path to its place in the extracted copy.
func target(n string) string {
	if strings.HasPrefix(n, "heapscope/") {
		return filepath.Join(pkgSub, filepath.FromSlash(n))
	}
	return filepath.FromSlash(n) // site/sitecustomize.py
}

// ownKeys are the variables of the run protocol; Env replaces them.
var ownKeys = map[string]bool{
	"HEAPSCOPE_OUT": true, "HEAPSCOPE_AT_EXIT": true, "HEAPSCOPE_SIGNAL": true,
	"HEAPSCOPE_EVERY": true, "HEAPSCOPE_VALUES": true, "HEAPSCOPE_MAX_VALUE_LEN": true,
	"HEAPSCOPE_COLLECT": true, "HEAPSCOPE_CHILDREN": true, "HEAPSCOPE_AGENT_DIR": true, "HEAPSCOPE_EDGES": true,
	"HEAPSCOPE_ORIG_PYTHONPATH": true, "HEAPSCOPE_ORIG_PYTHONTRACEMALLOC": true, "HEAPSCOPE_TRACE_ALLOC": true,
	"HEAPSCOPE_FORK": true, "HEAPSCOPE_WATCH_GROWTH": true,
}

// RunOptions configures `heapscope run`.
type RunOptions struct {
	OutDir      string        // where snapshots go (HEAPSCOPE_OUT); required
	AtExit      bool          // a snapshot when the interpreter exits
	Signal      string        // a snapshot on this signal ("SIGUSR2"), "" for none
	Every       time.Duration // a snapshot at this interval, 0 for none
	NoValues    bool          // no value prefixes (values=False)
	MaxValueLen int           // value prefix length, 0 for the default (64)
	NoCollect   bool          // no gc.collect() before each snapshot
	Census      bool          // censuses (types and sizes, no references) instead of full snapshots
	Children    bool          // child Python processes take snapshots too
	// Fork has the signal and interval snapshots taken by a child
	// process that walks a copy of the heap (Linux): the program stops
	// only for the fork. The exit snapshot is taken in the process.
	Fork bool
	// TraceAlloc, when positive, has tracemalloc record that many
	// frames of each allocation from the interpreter's start
	// (PYTHONTRACEMALLOC), so that snapshots say where their objects
	// were allocated.
	TraceAlloc int
	// WatchGrowth has the agent record where the instances of the
	// classes that grew at each of the last two steps between full
	// snapshots are allocated, from then on, by their allocator (a
	// watch: see heapscope.watch), so that later snapshots say where
	// they were made. Nothing is watched in censuses or under
	// tracemalloc.
	WatchGrowth bool

	// PackageDir and SiteDir are Dir() and RunDir(); Env fills them in
	// when they are empty (the CLI should call Dir first to report errors).
	PackageDir, SiteDir string
}

// Env returns base (an os.Environ()-style list) with the variables that
// make a Python program started with it load the agent and take
// snapshots as o asks. Earlier values of the protocol's variables in base are dropped;
// PYTHONPATH gets SiteDir in front, and its original value is kept in
// HEAPSCOPE_ORIG_PYTHONPATH so that the agent can restore it for the
// program's own child processes.
func Env(base []string, o RunOptions) []string {
	if o.PackageDir == "" {
		o.PackageDir, _ = Dir()
	}
	if o.SiteDir == "" {
		o.SiteDir, _ = RunDir()
	}
	out := make([]string, 0, len(base)+12)
	var pp, ptm string
	havePP, havePTM := false, false
	for _, kv := range base {
		k, v, _ := strings.Cut(kv, "=")
		switch {
		case ownKeys[k]:
			continue
		case k == "PYTHONPATH":
			pp, havePP = v, true
			continue
		case k == "PYTHONTRACEMALLOC" && o.TraceAlloc > 0:
			ptm, havePTM = v, true
			continue
		}
		out = append(out, kv)
	}
	if o.TraceAlloc > 0 {
		out = append(out, "PYTHONTRACEMALLOC="+strconv.Itoa(o.TraceAlloc), "HEAPSCOPE_TRACE_ALLOC="+strconv.Itoa(o.TraceAlloc))
		if havePTM {
			out = append(out, "HEAPSCOPE_ORIG_PYTHONTRACEMALLOC="+ptm)
		}
	}
	if o.SiteDir != "" {
		p := o.SiteDir
		if havePP && pp != "" {
			p += string(os.PathListSeparator) + pp
		}
		out = append(out, "PYTHONPATH="+p)
	} else if havePP {
		out = append(out, "PYTHONPATH="+pp)
	}
	if havePP {
		out = append(out, "HEAPSCOPE_ORIG_PYTHONPATH="+pp)
	}
	out = append(out, "HEAPSCOPE_AGENT_DIR="+o.PackageDir, "HEAPSCOPE_OUT="+o.OutDir)
	if o.AtExit {
		out = append(out, "HEAPSCOPE_AT_EXIT=1")
	}
	if o.Signal != "" {
		out = append(out, "HEAPSCOPE_SIGNAL="+o.Signal)
	}
	if o.Every > 0 {
		out = append(out, "HEAPSCOPE_EVERY="+strconv.FormatFloat(o.Every.Seconds(), 'f', -1, 64))
	}
	if o.NoValues {
		out = append(out, "HEAPSCOPE_VALUES=0")
	}
	if o.MaxValueLen > 0 {
		out = append(out, "HEAPSCOPE_MAX_VALUE_LEN="+strconv.Itoa(o.MaxValueLen))
	}
	if o.NoCollect {
		out = append(out, "HEAPSCOPE_COLLECT=0")
	}
	if o.Census {
		out = append(out, "HEAPSCOPE_EDGES=0")
	}
	if o.Children {
		out = append(out, "HEAPSCOPE_CHILDREN=1")
	}
	if o.Fork {
		out = append(out, "HEAPSCOPE_FORK=1")
	}
	if o.WatchGrowth {
		out = append(out, "HEAPSCOPE_WATCH_GROWTH=1")
	}
	return out
}

// WritePackage writes a copy of the importable heapscope package into
// dir/heapscope, readable by every user and writable by none but the
// caller (directory 0755, files 0644), for a Python process of another
// user to load: the agent's code is no secret, and what only the caller
// can write only the caller can change. dir must exist and be the
// caller's; the copy has no __pycache__.
func WritePackage(dir string) (string, error) {
	pkg := filepath.Join(dir, "heapscope")
	if err := os.Mkdir(pkg, 0o755); err != nil {
		return "", err
	}
	if err := os.Chmod(pkg, 0o755); err != nil { // whatever the umask
		return "", err
	}
	names, err := fs.Glob(files, "heapscope/*.py")
	if err != nil {
		return "", err
	}
	for _, n := range names {
		b, err := files.ReadFile(n)
		if err != nil {
			return "", err
		}
		p := filepath.Join(pkg, path.Base(n))
		f, err := os.OpenFile(p, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
		if err != nil {
			return "", err
		}
		_, werr := f.Write(b)
		if err := f.Chmod(0o644); werr == nil {
			werr = err
		}
		if err := f.Close(); werr == nil {
			werr = err
		}
		if werr != nil {
			return "", werr
		}
	}
	return pkg, nil
}
