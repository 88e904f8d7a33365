package agent

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
)

// heapscope runs the files it extracts (the Python agent, the Node
// preload) inside the user's programs, so they must be files no one else
// can have written. They live in a per-user directory:
//
//  1. <user cache>/heapscope ($XDG_CACHE_HOME, or ~/.cache, made 0700 if
//     missing);
//  2. else <tmp>/heapscope-UID;
//  3. else a <tmp>/heapscope-UID-XXXXXXXX of the user's that an earlier
//     run made and that passes the checks below, or a fresh one (when
//     another user has taken the name in 2, or it is unusable): later
//     runs reuse it, so a taken name costs one directory, not one per
//     run.
//
// A directory is used only if Lstat says it is a directory (not a
// symbolic link), owned by the user, and not writable by group or
// others, in a parent that others cannot rename it out of (not
// group/world-writable, or sticky like /tmp). heapscope makes it 0700,
// and tightens a 0755 one of older versions to 0700. What is reused
// inside is checked the same way, and its content compared with the
// embedded files; a copy that differs is replaced.

var privateOnce = sync.OnceValues(findPrivate)

// privateDir returns the per-user directory, checked, made if needed.
func privateDir() (string, error) { return privateOnce() }

func findPrivate() (string, error) {
	var errs []error
	if d, err := os.UserCacheDir(); err == nil && d != "" {
		if err := os.MkdirAll(d, 0o700); err != nil {
			errs = append(errs, err)
		} else if dir, err := ensurePrivate(filepath.Join(d, "heapscope")); err == nil {
			return dir, nil
		} else {
			errs = append(errs, err)
		}
	}
	uid := strconv.Itoa(os.Getuid())
	if dir, err := ensurePrivate(filepath.Join(os.TempDir(), "heapscope-"+uid)); err == nil {
		return dir, nil
	} else {
		errs = append(errs, err)
	}
	if dir, ok := reusePrivate(os.TempDir(), "heapscope-"+uid+"-"); ok {
		return dir, nil
	}
	dir, err := os.MkdirTemp(os.TempDir(), "heapscope-"+uid+"-")
	if err == nil {
		if dir, err = checkPrivateDir(dir); err == nil {
			return dir, nil
		}
	}
	errs = append(errs, err)
	return "", fmt.Errorf("agent: no private directory for heapscope's files: %w", errors.Join(errs...))
}

// reusePrivate returns the first directory (by name) in parent named
// prefix + 8 digits, as os.MkdirTemp makes them, that passes
// checkPrivateDir.
func reusePrivate(parent, prefix string) (string, bool) {
	if checkParent(parent) != nil {
		return "", false
	}
	matches, _ := filepath.Glob(filepath.Join(parent, prefix+"[0-9]*"))
	for _, m := range matches {
		rest := strings.TrimPrefix(filepath.Base(m), prefix)
		if strings.Trim(rest, "0123456789") != "" {
			continue
		}
		if dir, err := checkPrivateDir(m); err == nil {
			return dir, true
		}
	}
	return "", false
}

// ensurePrivate makes dir (0700) if it is missing and checks it.
func ensurePrivate(dir string) (string, error) {
	if err := checkParent(filepath.Dir(dir)); err != nil {
		return "", err
	}
	if err := os.Mkdir(dir, 0o700); err != nil && !errors.Is(err, fs.ErrExist) {
		return "", err
	}
	return checkPrivateDir(dir)
}

// checkParent checks that others cannot rename entries of dir: it is
// owned by the user or root, and not writable by group or others unless
// sticky. It follows symbolic links (~/.cache may be one).
func checkParent(dir string) error {
	fi, err := os.Stat(dir)
	if err != nil {
		return err
	}
	if uid, ok := owner(fi); ok && uid != os.Getuid() && uid != 0 {
		return fmt.Errorf("%s belongs to uid %d", dir, uid)
	}
	if fi.Mode().Perm()&0o022 != 0 && fi.Mode()&fs.ModeSticky == 0 {
		return fmt.Errorf("%s is writable by others and not sticky", dir)
	}
	return nil
}

// checkPrivateDir checks dir as the package doc says, tightening a
// directory of the user's that others can read to 0700.
func checkPrivateDir(dir string) (string, error) {
	fi, err := checkOwn(dir)
	if err != nil {
		return "", err
	}
	if !fi.IsDir() {
		return "", fmt.Errorf("%s is not a directory", dir)
	}
	if fi.Mode().Perm() != 0o700 {
		if err := os.Chmod(dir, 0o700); err != nil {
			return "", err
		}
	}
	return dir, nil
}

// checkOwn returns Lstat of path if it is the user's and not writable by
// group or others, and not a symbolic link.
func checkOwn(path string) (fs.FileInfo, error) {
	fi, err := os.Lstat(path)
	if err != nil {
		return nil, err
	}
	if fi.Mode()&fs.ModeSymlink != 0 {
		return nil, fmt.Errorf("%s is a symbolic link", path)
	}
	if uid, ok := owner(fi); ok && uid != os.Getuid() {
		return nil, fmt.Errorf("%s belongs to uid %d, not to this user", path, uid)
	}
	if fi.Mode().Perm()&0o022 != 0 {
		return nil, fmt.Errorf("%s is writable by others (mode %v)", path, fi.Mode().Perm())
	}
	return fi, nil
}

// sameFile reports whether path is a regular file of the user's, not
// writable by others, holding exactly want.
func sameFile(path string, want []byte) bool {
	fi, err := checkOwn(path)
	if err != nil || !fi.Mode().IsRegular() || fi.Size() != int64(len(want)) {
		return false
	}
	got, err := os.ReadFile(path)
	return err == nil && bytes.Equal(got, want)
}

// replaceFile writes data to path through a temporary file (0600) in the
// same directory and a rename, replacing whatever path was.
func replaceFile(path string, data []byte) error {
	dir := filepath.Dir(path)
	tmp, err := os.CreateTemp(dir, ".tmp-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	_, werr := tmp.Write(data)
	if cerr := tmp.Close(); werr == nil {
		werr = cerr
	}
	if werr != nil {
		return werr
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		// A directory in the way: move it off first.
		if rerr := os.RemoveAll(path); rerr != nil {
			return err
		}
		return os.Rename(tmp.Name(), path)
	}
	return nil
}
