package inspector

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// What heapscope reads of a process in /proc, and why: a signal's default
// action ends a process that does not handle it, so SIGUSR1 goes only to
// a process that is Node and handles SIGUSR1 (status SigCgt); the
// inspector's port comes from the command line and the process's own
// listening sockets; a port that another process listens on is reported
// at once, as Node cannot open its inspector there.

// ErrNotNode is matched (errors.Is) by the error [Snapshot] and
// [CheckNode] return when pid is not a Node process that SIGUSR1 can
// safely ask to open its inspector.
var ErrNotNode = errors.New("not a Node process")

// notNode is an error that says what the process is instead.
type notNode struct{ msg string }

func (e *notNode) Error() string        { return "inspector: " + e.msg }
func (e *notNode) Is(target error) bool { return target == ErrNotNode }

func notNodef(format string, args ...any) error {
	return &notNode{fmt.Sprintf(format, args...)}
}

// sigusr1 is SIGUSR1 on Linux, the only system with /proc status lines.
const sigusr1 = 10

var nodeNameRE = regexp.MustCompile(`^(node|nodejs)[0-9.\-]*$`)

// nodeMarker is text every Node binary with an inspector holds (it
// prints it when the inspector opens), for binaries named otherwise.
var nodeMarker = []byte("Debugger listening on ")

// CheckNode returns nil if process pid is a Node process that handles
// SIGUSR1, and otherwise an error that matches [ErrNotNode] and says
// what the process is. A process is Node when its executable is named node or
// nodejs, maps libnode, or holds Node's inspector messages. Where /proc
// is missing (macOS), it cannot tell and returns nil.
func CheckNode(pid int) error {
	if pid <= 0 {
		return notNodef("bad pid %d", pid)
	}
	dir := "/proc/" + strconv.Itoa(pid)
	if _, err := os.Stat("/proc/self/status"); err != nil {
		return nil // no /proc: nothing to check against
	}
	status, err := os.ReadFile(dir + "/status")
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return notNodef("no process %d", pid)
		}
		return notNodef("process %d: %v", pid, err)
	}
	if st := statusField(status, "State"); strings.HasPrefix(st, "Z") || strings.HasPrefix(st, "X") {
		return notNodef("process %d has exited", pid)
	}
	exe, err := os.Readlink(dir + "/exe")
	if err != nil {
		return notNodef("cannot tell what process %d runs (%v); heapscope signals only processes it knows are Node", pid, err)
	}
	exe = strings.TrimSuffix(exe, " (deleted)")
	if !isNode(dir, exe) {
		return notNodef("process %d runs %s, not node: SIGUSR1 would end it", pid, exe)
	}
	caught, err := strconv.ParseUint(statusField(status, "SigCgt"), 16, 64)
	if err != nil {
		return notNodef("process %d: cannot read its signal handlers", pid)
	}
	if caught&(1<<(sigusr1-1)) == 0 {
		return notNodef("process %d (%s) does not handle SIGUSR1 (started with --disable-sigusr1, or not yet started up): SIGUSR1 would end it", pid, exe)
	}
	return nil
}

// isNode reports whether the process in dir, running exe, is Node.
func isNode(dir, exe string) bool {
	if nodeNameRE.MatchString(filepath.Base(exe)) {
		return true
	}
	if maps, err := os.ReadFile(dir + "/maps"); err == nil {
		for _, l := range strings.Split(string(maps), "\n") {
			if f := strings.Fields(l); len(f) >= 6 && strings.HasPrefix(filepath.Base(f[5]), "libnode.so") {
				return true
			}
		}
	}
	f, err := os.Open(dir + "/exe")
	if err != nil {
		return false
	}
	defer f.Close()
	return containsBytes(io.LimitReader(f, 1<<30), nodeMarker)
}

// containsBytes reports whether r holds pat, reading it in blocks.
func containsBytes(r io.Reader, pat []byte) bool {
	buf := make([]byte, 1<<20+len(pat))
	keep := 0
	for {
		n, err := r.Read(buf[keep:])
		if bytes.Contains(buf[:keep+n], pat) {
			return true
		}
		if err != nil {
			return false
		}
		if keep+n >= len(pat) {
			copy(buf, buf[keep+n-len(pat)+1:keep+n])
			keep = len(pat) - 1
		} else {
			keep += n
		}
	}
}

// statusField returns the value of a "Name:\tvalue" line of
// /proc/PID/status.
func statusField(status []byte, name string) string {
	for _, l := range strings.Split(string(status), "\n") {
		if v, ok := strings.CutPrefix(l, name+":"); ok {
			return strings.TrimSpace(v)
		}
	}
	return ""
}

// nsPID returns pid as the process itself sees it (its pid in its own
// namespace, the last NSpid field), or pid where /proc does not say.
func nsPID(pid int) int {
	status, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/status")
	if err != nil {
		return pid
	}
	f := strings.Fields(statusField(status, "NSpid"))
	if len(f) == 0 {
		return pid
	}
	if n, err := strconv.Atoi(f[len(f)-1]); err == nil {
		return n
	}
	return pid
}

// nodeArgs returns node's own arguments of process pid: NODE_OPTIONS
// first, then the command line.
func nodeArgs(pid int) []string {
	var args []string
	if b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/cmdline"); err == nil {
		args = strings.Split(strings.TrimRight(string(b), "\x00"), "\x00")
	}
	if b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/environ"); err == nil {
		for _, kv := range strings.Split(string(b), "\x00") {
			if v, ok := strings.CutPrefix(kv, "NODE_OPTIONS="); ok {
				args = append(strings.Fields(v), args...)
			}
		}
	}
	return args
}

// portFromArgs finds the inspector port in node's arguments; the last
// one given wins, as in node. Arguments after the script are ignored.
// open reports whether the arguments open the inspector at start
// (--inspect, --inspect-brk, --inspect-wait).
func portFromArgs(args []string) (port int, open bool) {
	port = DefaultPort
	for i := 0; i < len(args); i++ {
		a := args[i]
		if i > 0 && !strings.HasPrefix(a, "-") {
			break // the script: the rest are its arguments
		}
		name, val, hasVal := strings.Cut(a, "=")
		switch name {
		case "--inspect-port", "--debug-port":
			if !hasVal && i+1 < len(args) {
				i++
				val = args[i]
			}
		case "--inspect", "--inspect-brk", "--inspect-wait":
			open = true
			if !hasVal {
				continue
			}
		default:
			continue
		}
		if j := strings.LastIndexByte(val, ':'); j >= 0 {
			val = val[j+1:]
		}
		if p, err := strconv.Atoi(val); err == nil && p >= 0 && p < 65536 {
			port = p
		}
	}
	return port, open
}

// A listener is a listening TCP socket of the process's network
// namespace.
type listener struct {
	port  int
	inode string
	local bool // on a loopback or wildcard address: in the way of 127.0.0.1:port
}

// sockets returns the listening TCP sockets of pid's network namespace
// and the socket inodes pid holds. ok is false when /proc cannot tell.
func sockets(pid int) (ls []listener, mine map[string]bool, ok bool) {
	dir := "/proc/" + strconv.Itoa(pid)
	fds, err := os.ReadDir(dir + "/fd")
	if err != nil {
		return nil, nil, false
	}
	mine = map[string]bool{}
	for _, fd := range fds {
		l, err := os.Readlink(dir + "/fd/" + fd.Name())
		if err != nil {
			continue
		}
		if in, ok := strings.CutPrefix(l, "socket:["); ok {
			mine[strings.TrimSuffix(in, "]")] = true
		}
	}
	for _, table := range []string{"/net/tcp", "/net/tcp6"} {
		f, err := os.Open(dir + table)
		if err != nil {
			continue
		}
		ok = true
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			fs := strings.Fields(sc.Text())
			if len(fs) < 10 || fs[3] != "0A" { // 0A: LISTEN
				continue
			}
			addr, hexPort, found := strings.Cut(fs[1], ":")
			if !found {
				continue
			}
			p, err := strconv.ParseUint(hexPort, 16, 16)
			if err != nil {
				continue
			}
			ls = append(ls, listener{port: int(p), inode: fs[9], local: loopbackOrAny(addr)})
		}
		f.Close()
	}
	return ls, mine, ok
}

// loopbackOrAny reports whether a /proc/net/tcp{,6} address (hex, 32-bit
// words in host order, little-endian here) is 0.0.0.0, 127.x.x.x, ::,
// ::1 or ::ffff:127.x.x.x.
func loopbackOrAny(hex string) bool {
	switch len(hex) {
	case 8:
		return hex == "00000000" || strings.HasSuffix(hex, "7F")
	case 32:
		return hex == strings.Repeat("0", 32) ||
			hex == "00000000000000000000000001000000" ||
			(strings.HasPrefix(hex, "0000000000000000FFFF0000") && strings.HasSuffix(hex, "7F"))
	}
	return false
}

// ListeningPorts returns the TCP ports process pid listens on, from /proc
// (its socket inodes matched against its network namespace's tcp tables).
// ok is false when /proc cannot tell.
func ListeningPorts(pid int) (ports []int, ok bool) {
	ls, mine, ok := sockets(pid)
	for _, l := range ls {
		if mine[l.inode] && !slices.Contains(ports, l.port) {
			ports = append(ports, l.port)
		}
	}
	return ports, ok
}

// portTaken reports whether another process than pid listens on port in
// the way of 127.0.0.1:port.
func portTaken(pid, port int) bool {
	ls, mine, ok := sockets(pid)
	if !ok || port == 0 {
		return false
	}
	for _, l := range ls {
		if l.port == port && l.local && !mine[l.inode] {
			return true
		}
	}
	return false
}
