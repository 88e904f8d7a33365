package attach

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/heapscope/heapscope/agent"
	"github.com/heapscope/heapscope/capture"
	"github.com/heapscope/heapscope/pysnap"
)

// stage is the directory through which heapscope and the process talk:
//
//	go                 heapscope's request; the process claims it by
//	                   renaming it to started, heapscope withdraws it by
//	                   removing it (whoever is first wins)
//	started            the capture runs
//	snapshot.pysnap    the snapshot, written by the process as its user
//	status             the outcome, JSON, written last
//	agent/heapscope/   a copy of the agent, for a process of another user
//	boot.py            the bootstrap, for sys.remote_exec
//
// It is made next to the output file (or, if the process's user cannot
// reach that directory, in the temporary directory), 0700, owned by the
// process's user. The bootstrap and gdb's script go in a directory of
// heapscope's own (priv).
type stage struct {
	dir  string
	pkg  string // the package directory the process loads
	priv string
	own  bool // the process runs as heapscope's user
	same bool // dir is in the output file's directory
}

// newStage makes the stage for process p and output file out.
func newStage(p *Process, out string) (s *stage, err error) {
	abs, err := filepath.Abs(out)
	if err != nil {
		return nil, err
	}
	s = &stage{own: p.UID == os.Geteuid(), same: true}
	parent := filepath.Dir(abs)
	if !s.own && !reaches(p.UID, p.GID, p.Groups, parent) {
		parent, s.same = os.TempDir(), false
		if !reaches(p.UID, p.GID, p.Groups, parent) {
			return nil, fmt.Errorf("process %d runs as uid %d, which can reach neither %s nor %s to write its snapshot", p.PID, p.UID, filepath.Dir(abs), parent)
		}
	}
	defer func() {
		if err != nil {
			s.remove()
		}
	}()
	// What a heapscope killed before left (capture.Sweep).
	capture.Sweep(safeTemp(), false)
	capture.Sweep(parent, false)
	if s.priv, err = capture.MkdirTemp(safeTemp(), "heapscope-attach-"); err != nil {
		return nil, err
	}
	if s.dir, err = capture.MkdirTemp(parent, ".heapscope-"); err != nil {
		return nil, err
	}
	if s.own {
		d, err := agent.Dir()
		if err != nil {
			return nil, err
		}
		s.pkg = filepath.Join(d, "heapscope")
	} else {
		// A copy the process can read and only heapscope's user can
		// change, in a directory the process owns, so that it can write
		// its snapshot there.
		a := filepath.Join(s.dir, "agent")
		if err := os.Mkdir(a, 0o755); err != nil {
			return nil, err
		}
		if err := os.Chmod(a, 0o755); err != nil {
			return nil, err
		}
		if s.pkg, err = agent.WritePackage(a); err != nil {
			return nil, err
		}
		if err := os.Chown(s.dir, p.UID, p.GID); err != nil {
			return nil, fmt.Errorf("cannot give process %d (uid %d) a directory to write its snapshot into: %w", p.PID, p.UID, err)
		}
	}
	if err := os.WriteFile(filepath.Join(s.dir, "go"), nil, 0o600); err != nil {
		return nil, err
	}
	return s, nil
}

// safeTemp is the temporary directory, if gdb can be given paths in it
// without quoting; else /tmp.
func safeTemp() string {
	d := os.TempDir()
	for _, c := range d {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '/' || c == '.' || c == '_' || c == '-') {
			return "/tmp"
		}
	}
	return d
}

// remove removes the stage and heapscope's own directory.
func (s *stage) remove() {
	if s.dir != "" {
		os.RemoveAll(s.dir)
	}
	if s.priv != "" {
		os.RemoveAll(s.priv)
	}
}

// withdraw takes the request back. It reports false when the process
// has claimed it already: the capture then runs and must be waited for.
func (s *stage) withdraw() bool {
	err := os.Remove(filepath.Join(s.dir, "go"))
	return err == nil || !errors.Is(err, fs.ErrNotExist) && !s.started()
}

// started reports whether the process has claimed the request.
func (s *stage) started() bool {
	_, err := os.Lstat(filepath.Join(s.dir, "started"))
	return err == nil
}

// status is what the process says of its capture.
type status struct {
	OK       bool     `json:"ok"`
	Messages []string `json:"messages"`
	Seconds  float64  `json:"seconds"`
	// PauseSeconds is, for a fork capture, the time the main thread
	// spent on it (the rest is the child's).
	PauseSeconds float64 `json:"pause_seconds"`
	// LoadSeconds is, for a fork capture loaded on a thread of the
	// agent's, that thread's time until the fork had returned.
	LoadSeconds float64 `json:"load_seconds"`
}

// result returns the status, once the process has written it.
func (s *stage) result() (*status, bool) {
	f, err := openNoFollow(filepath.Join(s.dir, "status"))
	if err != nil {
		return nil, false
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, 1<<20))
	if err != nil {
		return nil, false
	}
	var st status
	if err := json.Unmarshal(b, &st); err != nil {
		return &status{Messages: []string{"unreadable status: " + err.Error()}}, true
	}
	return &st, true
}

// collect puts the snapshot the process wrote at out, 0600 and
// heapscope's user's: renamed when the process is of the same user and
// wrote next to out, copied otherwise. It reads the file as hostile: not
// through a symbolic link, a regular file, a Python snapshot's magic.
func (s *stage) collect(out string) error {
	f, err := openNoFollow(filepath.Join(s.dir, "snapshot.pysnap"))
	if err != nil {
		return fmt.Errorf("the process wrote no snapshot: %w", err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return err
	}
	var head [len(pysnap.Magic)]byte
	if !fi.Mode().IsRegular() {
		return fmt.Errorf("the process wrote something that is not a file")
	}
	if _, err := io.ReadFull(f, head[:]); err != nil || !pysnap.Match(head[:]) {
		return fmt.Errorf("the process wrote something that is not a Python snapshot")
	}
	if s.own && s.same {
		if err := f.Chmod(0o600); err != nil {
			return err
		}
		return os.Rename(f.Name(), out)
	}
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return err
	}
	tmp, err := capture.CreateTemp(filepath.Dir(out), ".heapscope-", ".tmp")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	_, werr := io.Copy(tmp, f)
	if err := tmp.Close(); werr == nil {
		werr = err
	}
	if werr != nil {
		return werr
	}
	return os.Rename(tmp.Name(), out)
}
