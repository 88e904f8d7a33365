package capture

import (
	"bytes"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// The temporary files and directories a capture makes carry the pid of
// the heapscope that made them (".heapscope-PID-RANDOM.tmp",
// "heapscope-attach-PID-RANDOM"), so that a later heapscope can tell
// what one that was killed (SIGKILL: no cleanup runs) left from what
// one still running uses, and remove the leftovers (Sweep). A Python
// agent's temporary file carries the pid of its program (".NAME.PID.N.tmp",
// and the Node preload's ".NNNN-PID-REASON.heapsnapshot.tmp"), and
// heapscope run sweeps those of programs that are gone from its
// directory.

// tempPrefix is how a temporary name made with prefix begins: prefix,
// this process's pid, "-"; the random part follows.
func tempPrefix(prefix string) string { return prefix + strconv.Itoa(os.Getpid()) + "-" }

// CreateTemp creates a file (0600) in dir named prefix + PID + "-" +
// random + suffix, as os.CreateTemp does.
func CreateTemp(dir, prefix, suffix string) (*os.File, error) {
	return os.CreateTemp(dir, tempPrefix(prefix)+"*"+suffix)
}

// MkdirTemp creates a directory (0700) in dir named prefix + PID + "-" +
// random, as os.MkdirTemp does.
func MkdirTemp(dir, prefix string) (string, error) {
	return os.MkdirTemp(dir, tempPrefix(prefix))
}

// TempName returns a name in dir for a file someone else will create
// (the JVM's dump): prefix + PID + "-" + a random part + suffix.
func TempName(dir, prefix, random, suffix string) string {
	return filepath.Join(dir, tempPrefix(prefix)+random+suffix)
}

// Leftover names: a heapscope's, with its pid after the prefix, and a
// Python agent's, with its program's pid before the counter.
var (
	heapscopeTemp = regexp.MustCompile(`^(?:\.heapscope-|\.heapscope-exit-|heapscope-attach-|heapscope-run-)([0-9]+)-[^/]+$`)
	agentTemp     = regexp.MustCompile(`^\..+\.([0-9]+)\.[0-9]+\.tmp$`)
	nodeTemp      = regexp.MustCompile(`^\.[0-9]{4,}-([0-9]+)-[a-z-]+\.heapsnapshot\.tmp$`)
)

// Sweep removes from dir what a capture that is gone left there:
// entries named as [CreateTemp], [MkdirTemp] and [TempName] name them
// (and, with agents, as the Python agent names its temporary files)
// whose process no longer runs, or runs but started after the entry was
// made (its pid was given to another process since; see made). It removes
// only the user's own entries (any, for root), never follows a symbolic
// link, and returns the names it removed. Errors are not reported: a
// leftover that cannot be removed stays.
func Sweep(dir string, agents bool) []string {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil
	}
	var removed []string
	for _, e := range entries {
		name := e.Name()
		m := heapscopeTemp.FindStringSubmatch(name)
		if m == nil && agents {
			if m = agentTemp.FindStringSubmatch(name); m == nil {
				m = nodeTemp.FindStringSubmatch(name)
			}
		}
		if m == nil {
			continue
		}
		pid, err := strconv.Atoi(m[1])
		if err != nil || pid <= 0 {
			continue
		}
		path := filepath.Join(dir, name)
		fi, err := os.Lstat(path)
		if err != nil || fi.Mode()&fs.ModeSymlink != 0 || !(fi.Mode().IsRegular() || fi.IsDir()) {
			continue
		}
		if uid, ok := ownerOf(fi); ok && uid != os.Geteuid() && os.Geteuid() != 0 {
			continue
		}
		if Alive(pid, made(path, fi)) {
			continue
		}
		if os.RemoveAll(path) == nil {
			removed = append(removed, name)
		}
	}
	return removed
}

// made is when the entry at path was made, as near as its times tell:
// a file's modification time; for a directory, the oldest of its own
// and those of the entries in it. A stage directory is changed by the
// process captured after heapscope is gone (its status), which would
// make a pid reused meanwhile look like its maker; the files its maker
// wrote into it when it made it are older.
func made(path string, fi fs.FileInfo) time.Time {
	t := fi.ModTime()
	if !fi.IsDir() {
		return t
	}
	entries, err := os.ReadDir(path)
	if err != nil {
		return t
	}
	for _, e := range entries {
		if info, err := e.Info(); err == nil && info.ModTime().Before(t) {
			t = info.ModTime()
		}
	}
	return t
}

// Alive reports whether process pid runs and started before since (so
// that it may be the process that made something at since). A zombie
// (a process that has ended and that its parent has not reaped: a
// heapscope killed whose parent went first, which a container's init
// may never reap) runs nothing. Where /proc cannot tell when it
// started, a running pid counts as alive.
func Alive(pid int, since time.Time) bool {
	dir := "/proc/" + strconv.Itoa(pid)
	stat, err := os.ReadFile(dir + "/stat")
	if err != nil {
		return false
	}
	if i := bytes.LastIndexByte(stat, ')'); i >= 0 {
		if f := strings.Fields(string(stat[i+1:])); len(f) > 0 && (f[0] == "Z" || f[0] == "X") {
			return false
		}
	}
	start, ok := ProcessStart(dir)
	return !ok || !start.After(since.Add(2*time.Second))
}

// ProcessStart returns when the process of /proc/PID dir started: its
// start time in /proc/PID/stat, in clock ticks since boot, after the boot
// time in /proc/stat. A tick is 1/100 s: USER_HZ, which the kernel uses
// for /proc on every architecture Go runs Linux on.
func ProcessStart(dir string) (time.Time, bool) {
	stat, err := os.ReadFile(dir + "/stat")
	if err != nil {
		return time.Time{}, false
	}
	i := bytes.LastIndexByte(stat, ')')
	if i < 0 {
		return time.Time{}, false
	}
	f := strings.Fields(string(stat[i+1:])) // from field 3, the state
	if len(f) < 20 {
		return time.Time{}, false
	}
	ticks, err := strconv.ParseUint(f[19], 10, 64) // field 22, starttime
	if err != nil {
		return time.Time{}, false
	}
	all, err := os.ReadFile("/proc/stat")
	if err != nil {
		return time.Time{}, false
	}
	for _, l := range strings.Split(string(all), "\n") {
		if v, ok := strings.CutPrefix(l, "btime "); ok {
			boot, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
			if err != nil {
				return time.Time{}, false
			}
			return time.Unix(boot, 0).Add(time.Duration(ticks) * 10 * time.Millisecond), true
		}
	}
	return time.Time{}, false
}
