package attach

import (
	"debug/elf"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
)

// ErrNotPython is matched (errors.Is) by the error [Inspect] and
// [Snapshot] return for a process that is not CPython 3.9 or later, or
// that heapscope cannot tell is.
var ErrNotPython = errors.New("not a CPython 3.9+ process")

type notPython struct{ msg string }

func (e *notPython) Error() string        { return e.msg }
func (e *notPython) Is(target error) bool { return target == ErrNotPython }

func notPythonf(format string, args ...any) error {
	return &notPython{fmt.Sprintf(format, args...)}
}

// Process is what heapscope learns of a process from /proc and its
// executable before it attaches.
type Process struct {
	PID int
	// Exe is the program the process runs; Lib the ELF file that
	// holds the Python C API (Exe itself for a static build, else a
	// libpython3.X.so).
	Exe, Lib string
	// Version is "3.11" as the file names tell, or "" when they do not.
	Version string
	// UID and GID are the process's file-system user and group (those
	// it creates files as); Groups its supplementary groups.
	UID, GID int
	Groups   []int
	// TracerPid is the process that traces it (a debugger), or 0.
	TracerPid int
	// State is the first letter of the State line: R, S, D, T, t, Z...
	State string
}

// apiSymbols are the functions heapscope has gdb call, all exported by
// every CPython since 3.9; PyFrame_GetCode is new in 3.9 and tells an
// older one.
var apiSymbols = []string{"Py_IsInitialized", "PyGILState_GetThisThreadState", "Py_AddPendingCall", "PyRun_SimpleString", "PyFrame_GetCode"}

var versionRE = regexp.MustCompile(`python(3\.[0-9]+)`)

// Inspect reads /proc/PID and the executable and libraries the process
// maps, and returns the process if it is CPython 3.9 or later: an ELF
// file it runs or maps exports the C API that heapscope calls. Otherwise
// the error matches [ErrNotPython] and says what the process is.
func Inspect(pid int) (*Process, error) {
	if pid <= 0 {
		return nil, notPythonf("bad pid %d", pid)
	}
	if _, err := os.Stat("/proc/self/status"); err != nil {
		return nil, fmt.Errorf("no /proc on this system: heapscope attaches to Python processes on Linux only")
	}
	dir := "/proc/" + strconv.Itoa(pid)
	status, err := os.ReadFile(dir + "/status")
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, notPythonf("no process %d", pid)
		}
		return nil, fmt.Errorf("process %d: %w", pid, err)
	}
	p := &Process{PID: pid, State: statusField(status, "State")}
	if strings.HasPrefix(p.State, "Z") || strings.HasPrefix(p.State, "X") {
		return nil, notPythonf("process %d has exited", pid)
	}
	p.UID = idField(status, "Uid", 3)
	p.GID = idField(status, "Gid", 3)
	for _, g := range strings.Fields(statusField(status, "Groups")) {
		if n, err := strconv.Atoi(g); err == nil {
			p.Groups = append(p.Groups, n)
		}
	}
	p.TracerPid, _ = strconv.Atoi(statusField(status, "TracerPid"))
	exe, err := os.Readlink(dir + "/exe")
	if err != nil {
		if errors.Is(err, fs.ErrPermission) {
			return nil, &PermissionError{PID: pid, Msg: fmt.Sprintf("cannot read what process %d runs: it runs as uid %d, and attaching needs the same user or root", pid, p.UID)}
		}
		return nil, notPythonf("cannot tell what process %d runs (%v); heapscope attaches only to processes it knows are CPython", pid, err)
	}
	p.Exe = strings.TrimSuffix(exe, " (deleted)")
	candidates := []string{dir + "/exe"}
	names := []string{p.Exe}
	if maps, err := os.ReadFile(dir + "/maps"); err == nil {
		seen := map[string]bool{}
		for _, l := range strings.Split(string(maps), "\n") {
			f := strings.Fields(l)
			if len(f) < 6 || !strings.HasPrefix(filepath.Base(f[5]), "libpython3") || seen[f[5]] {
				continue
			}
			seen[f[5]] = true
			candidates = append(candidates, f[5])
			names = append(names, f[5])
		}
	}
	var missing []string
	for i, c := range candidates {
		have := exported(c)
		var lack []string
		for _, s := range apiSymbols {
			if !have[s] {
				lack = append(lack, s)
			}
		}
		if len(lack) == 0 {
			p.Lib = names[i]
			break
		}
		if len(lack) < len(apiSymbols) {
			missing = lack
		}
	}
	if p.Lib == "" {
		if len(missing) == 1 && missing[0] == "PyFrame_GetCode" {
			return nil, notPythonf("process %d runs %s, a CPython older than 3.9: heapscope's agent needs 3.9 or later", pid, p.Exe)
		}
		return nil, notPythonf("process %d runs %s, not CPython (nothing it runs or maps exports Python's C API)", pid, p.Exe)
	}
	for _, n := range []string{p.Lib, p.Exe} {
		if m := versionRE.FindStringSubmatch(filepath.Base(n)); m != nil {
			p.Version = m[1]
			break
		}
	}
	return p, nil
}

// exported returns the dynamic symbols (and, if it has them, the static
// ones) that the ELF file at path defines.
func exported(path string) map[string]bool {
	f, err := elf.Open(path)
	if err != nil {
		return nil
	}
	defer f.Close()
	have := map[string]bool{}
	for _, get := range []func() ([]elf.Symbol, error){f.DynamicSymbols, f.Symbols} {
		syms, err := get()
		if err != nil {
			continue
		}
		for _, s := range syms {
			if s.Section != elf.SHN_UNDEF && elf.ST_TYPE(s.Info) == elf.STT_FUNC {
				have[s.Name] = true
			}
		}
		if len(have) > 0 {
			break
		}
	}
	return have
}

// statusField returns the value of a "Name:\tvalue" line of a status file.
func statusField(status []byte, name string) string {
	for _, l := range strings.Split(string(status), "\n") {
		if v, ok := strings.CutPrefix(l, name+":"); ok {
			return strings.TrimSpace(v)
		}
	}
	return ""
}

// idField returns the i-th number of a Uid or Gid line (real, effective,
// saved, file system), or -1.
func idField(status []byte, name string, i int) int {
	f := strings.Fields(statusField(status, name))
	if i >= len(f) {
		return -1
	}
	n, err := strconv.Atoi(f[i])
	if err != nil {
		return -1
	}
	return n
}

// reaches reports whether a process of user uid, group gid and groups
// can search every directory from / down to dir (by their mode bits;
// ACLs are not read): what it needs to write a file there.
func reaches(uid, gid int, groups []int, dir string) bool {
	if uid == 0 {
		return true
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return false
	}
	for d := abs; ; d = filepath.Dir(d) {
		fi, err := os.Stat(d)
		if err != nil {
			return false
		}
		o, g, ok := ownerOf(fi)
		if !ok {
			return true // cannot tell: let the process try
		}
		m := fi.Mode().Perm()
		var x bool
		switch {
		case o == uid:
			x = m&0o100 != 0
		case g == gid || contains(groups, g):
			x = m&0o010 != 0
		default:
			x = m&0o001 != 0
		}
		if !x {
			return false
		}
		if d == filepath.Dir(d) {
			return true
		}
	}
}

func contains(s []int, x int) bool {
	for _, v := range s {
		if v == x {
			return true
		}
	}
	return false
}
