// Package inspector takes V8 heap snapshots of running Node.js processes
// through the inspector protocol (the Chrome DevTools protocol), without
// any change to the program.
//
// [Snapshot] asks a process by pid: it sends SIGUSR1, which makes Node
// open its inspector on 127.0.0.1 (port 9229 unless --inspect-port says
// otherwise), finds the inspector's WebSocket URL through
// http://127.0.0.1:PORT/json/list, and streams the snapshot. [SnapshotURL]
// does the same for a process whose WebSocket URL is known, such as one
// started with --inspect ("Debugger listening on ws://...", see
// [ListeningURL]). Either writes the snapshot's JSON text to w as it
// arrives; read it with heapsnapshot.Read.
//
// Wiring for the CLI:
//
//	// heapscope snapshot --node PID -o FILE
//	f, _ := os.Create(file)
//	err := inspector.Snapshot(ctx, pid, f)
//	// then f.Close(), heapsnapshot.Open(file)
//
//	// heapscope run -- node app.js
//	// Start node with --inspect-port=0 inserted after "node": the
//	// inspector stays closed until the snapshot is due, and then opens
//	// on a free port, so two runs never fight over 9229.
//	cmd := exec.Command("node", "--inspect-port=0", "app.js")
//	cmd.Start()
//	...
//	err := inspector.Snapshot(ctx, cmd.Process.Pid, f)
//
// Only 127.0.0.1 is ever contacted. The inspector stays open after the
// snapshot (Node offers no way to close it from outside); it listens on
// the loopback interface only, but any local user can attach to it.
//
// Taking a snapshot pauses the process for the time it takes V8 to walk
// the heap and may need memory about the size of the heap again.
package inspector

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"
)

// DefaultPort is the inspector's port when nothing else is configured.
const DefaultPort = 9229

// defaultWait bounds the wait for the inspector to open when ctx has no
// deadline.
const defaultWait = 15 * time.Second

// Snapshot takes a heap snapshot of the Node process pid and writes it
// to w. It opens the process's inspector with SIGUSR1 when it is not
// open already, and finds its port from /proc (the process's new
// listening socket, or --inspect-port in its command line or
// NODE_OPTIONS; 9229 where /proc is missing). Without a deadline in ctx
// it waits at most 15 s for the inspector. On error, w may hold part of
// a snapshot.
func Snapshot(ctx context.Context, pid int, w io.Writer) error {
	if _, ok := ctx.Deadline(); !ok {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, defaultWait)
		defer cancel()
	}
	wsURL, err := findInspector(ctx, pid)
	if err != nil {
		return err
	}
	return SnapshotURL(ctx, wsURL, w)
}

// findInspector returns the WebSocket URL of pid's inspector, opening it
// with SIGUSR1 if needed.
func findInspector(ctx context.Context, pid int) (string, error) {
	conf := configuredPort(pid)
	before, procOK := listeningPorts(pid)
	// Already open on the configured port?
	if conf > 0 && (!procOK || slices.Contains(before, conf)) {
		if u, err := probe(ctx, conf); err == nil {
			return u, nil
		}
	}
	if err := signalInspector(pid); err != nil {
		return "", err
	}
	tick := time.NewTicker(50 * time.Millisecond)
	defer tick.Stop()
	start := time.Now()
	var lastErr error
	for {
		var candidates []int
		if procOK {
			now, _ := listeningPorts(pid)
			for _, p := range now {
				if !slices.Contains(before, p) {
					candidates = append(candidates, p)
				}
			}
			if conf > 0 && slices.Contains(now, conf) {
				candidates = append(candidates, conf)
			}
			// The inspector may have been open before on a port we
			// could not guess (--inspect=127.0.0.1:0): after a second,
			// try every port the process listens on.
			if time.Since(start) > time.Second {
				for _, p := range now {
					if !slices.Contains(candidates, p) {
						candidates = append(candidates, p)
					}
				}
			}
		} else {
			candidates = []int{max(conf, DefaultPort)}
		}
		for _, p := range candidates {
			u, err := probe(ctx, p)
			if err == nil {
				return u, nil
			}
			lastErr = err
		}
		select {
		case <-ctx.Done():
			if lastErr != nil {
				return "", fmt.Errorf("inspector: process %d: no inspector found: %v (%w)", pid, lastErr, ctx.Err())
			}
			return "", fmt.Errorf("inspector: process %d opened no inspector port: %w", pid, ctx.Err())
		case <-tick.C:
		}
	}
}

// target is an entry of /json/list.
type target struct {
	Type                 string `json:"type"`
	Title                string `json:"title"`
	WebSocketDebuggerURL string `json:"webSocketDebuggerUrl"`
}

// probe asks http://127.0.0.1:port/json/list for the inspector's
// WebSocket URL, rewritten to 127.0.0.1:port.
func probe(ctx context.Context, port int) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	addr := net.JoinHostPort("127.0.0.1", strconv.Itoa(port))
	req, err := http.NewRequestWithContext(ctx, "GET", "http://"+addr+"/json/list", nil)
	if err != nil {
		return "", err
	}
	client := &http.Client{Transport: &http.Transport{Proxy: nil, DisableKeepAlives: true}}
	resp, err := client.Do(req)
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return "", fmt.Errorf("%s/json/list: %s", addr, resp.Status)
	}
	var ts []target
	if err := json.NewDecoder(io.LimitReader(resp.Body, 1<<20)).Decode(&ts); err != nil {
		return "", fmt.Errorf("%s/json/list: %v", addr, err)
	}
	for _, t := range ts {
		if t.WebSocketDebuggerURL == "" {
			continue
		}
		u, err := url.Parse(t.WebSocketDebuggerURL)
		if err != nil || u.Scheme != "ws" {
			continue
		}
		u.Host = addr
		return u.String(), nil
	}
	return "", fmt.Errorf("%s/json/list: no debuggable target (another debugger attached?)", addr)
}

var listeningRE = regexp.MustCompile(`Debugger listening on (ws://\S+)`)

// ListeningURL extracts the WebSocket URL from the line Node prints on
// stderr when its inspector opens ("Debugger listening on ws://...").
func ListeningURL(line string) (string, bool) {
	m := listeningRE.FindStringSubmatch(line)
	if m == nil {
		return "", false
	}
	return m[1], true
}

// SnapshotURL takes a heap snapshot through the inspector WebSocket at
// wsURL (ws://127.0.0.1:PORT/UUID; localhost is read as 127.0.0.1, any
// other host is refused) and writes it to w as the chunks arrive. On
// error, w may hold part of a snapshot.
func SnapshotURL(ctx context.Context, wsURL string, w io.Writer) error {
	ws, err := dialWS(ctx, wsURL)
	if err != nil {
		return err
	}
	stop := context.AfterFunc(ctx, func() { ws.c.Close() })
	defer stop()
	defer ws.close()

	call := func(id int, method string, params any) error {
		m := map[string]any{"id": id, "method": method}
		if params != nil {
			m["params"] = params
		}
		b, err := json.Marshal(m)
		if err != nil {
			return err
		}
		return ws.writeText(b)
	}
	if err := call(1, "HeapProfiler.enable", nil); err != nil {
		return wsErr(ctx, err)
	}
	if err := call(2, "HeapProfiler.takeHeapSnapshot", map[string]any{"reportProgress": false}); err != nil {
		return wsErr(ctx, err)
	}
	var wrote int64
	for {
		b, err := ws.readMessage()
		if err != nil {
			return wsErr(ctx, err)
		}
		var m struct {
			ID     int    `json:"id"`
			Method string `json:"method"`
			Params struct {
				Chunk string `json:"chunk"`
			} `json:"params"`
			Error *struct {
				Code    int    `json:"code"`
				Message string `json:"message"`
			} `json:"error"`
		}
		if err := json.Unmarshal(b, &m); err != nil {
			return fmt.Errorf("inspector: bad message: %v", err)
		}
		switch {
		case m.Method == "HeapProfiler.addHeapSnapshotChunk":
			n, err := io.WriteString(w, m.Params.Chunk)
			wrote += int64(n)
			if err != nil {
				return err
			}
		case m.Error != nil && (m.ID == 1 || m.ID == 2):
			return fmt.Errorf("inspector: %s: %s (code %d)", map[int]string{1: "HeapProfiler.enable", 2: "HeapProfiler.takeHeapSnapshot"}[m.ID], m.Error.Message, m.Error.Code)
		case m.ID == 2:
			call(3, "HeapProfiler.disable", nil) // best effort
			if wrote == 0 {
				return errors.New("inspector: the snapshot was empty")
			}
			return nil
		}
	}
}

func wsErr(ctx context.Context, err error) error {
	if ctx.Err() != nil {
		return fmt.Errorf("inspector: %w", ctx.Err())
	}
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		return fmt.Errorf("inspector: connection lost: %w", err)
	}
	return err
}

// configuredPort returns the inspector port pid's command line or
// NODE_OPTIONS asks for, DefaultPort if none, 0 if a random one.
func configuredPort(pid int) int {
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
	return portFromArgs(args)
}

// portFromArgs finds the inspector port in node's arguments; the last
// one given wins, as in node. Arguments after the script are ignored.
func portFromArgs(args []string) int {
	port := DefaultPort
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
	return port
}

// listeningPorts returns the TCP ports pid listens on, from /proc (its
// socket inodes matched against its network namespace's tcp tables).
// ok is false when /proc cannot tell.
func listeningPorts(pid int) (ports []int, ok bool) {
	dir := "/proc/" + strconv.Itoa(pid)
	fds, err := os.ReadDir(dir + "/fd")
	if err != nil {
		return nil, false
	}
	inodes := map[string]bool{}
	for _, fd := range fds {
		l, err := os.Readlink(dir + "/fd/" + fd.Name())
		if err != nil {
			continue
		}
		if in, ok := strings.CutPrefix(l, "socket:["); ok {
			inodes[strings.TrimSuffix(in, "]")] = true
		}
	}
	found := false
	for _, table := range []string{"/net/tcp", "/net/tcp6"} {
		f, err := os.Open(dir + table)
		if err != nil {
			continue
		}
		found = true
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			fs := strings.Fields(sc.Text())
			if len(fs) < 10 || fs[3] != "0A" || !inodes[fs[9]] { // 0A: LISTEN
				continue
			}
			_, hexPort, ok := strings.Cut(fs[1], ":")
			if !ok {
				continue
			}
			if p, err := strconv.ParseUint(hexPort, 16, 16); err == nil && !slices.Contains(ports, int(p)) {
				ports = append(ports, int(p))
			}
		}
		f.Close()
	}
	return ports, found
}
