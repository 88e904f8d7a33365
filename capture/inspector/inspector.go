// Package inspector takes V8 heap snapshots of running Node.js processes
// through the inspector protocol (the Chrome DevTools protocol), without
// any change to the program.
//
// [Snapshot] asks a process by pid. It first checks that the process is
// Node and handles SIGUSR1 ([CheckNode]): SIGUSR1 ends any other
// process. If the inspector is not open, it sends SIGUSR1, which makes
// Node open it on 127.0.0.1 (port 9229 unless --inspect-port says
// otherwise), finds the inspector's WebSocket URL through
// http://127.0.0.1:PORT/json/list, checks over the connection that the
// inspector is the process's own (process.pid), streams the snapshot,
// and closes the inspector again (require('inspector').close(), run in
// the process), also when the capture fails, times out or is cancelled.
// An inspector that was open before (node --inspect) is left open. If
// the port is taken by another process, Node cannot open its inspector
// there; Snapshot says so at once rather than waiting.
//
// [SnapshotURL] takes a snapshot through a WebSocket URL that is known,
// such as that of a process started with --inspect ("Debugger listening
// on ws://...", see [ListeningURL]), and leaves the inspector as it was.
// Either writes the snapshot's JSON text to w as it arrives; read it
// with heapsnapshot.Read. With [Options].NoValues the text goes through
// [Redact] first, so no string contents reach w.
//
// Wiring for the CLI:
//
//	// heapscope snapshot --node PID -o FILE
//	f, _ := os.CreateTemp(dir, ".heapscope-*.tmp")
//	err := inspector.Snapshot(ctx, pid, f, inspector.Options{})
//	// then f.Close(), rename into place, heapsnapshot.Open(file)
//
// Only 127.0.0.1 is ever contacted. While the inspector is open (from
// the signal until the snapshot is written and the inspector closed) any
// local user can attach to it and run code as the process's user: keep
// captures short on shared machines.
//
// Taking a snapshot pauses the process for the time it takes V8 to walk
// the heap and may need memory about the size of the heap again. Once a
// snapshot is asked for, the connection stays open until the process has
// sent all of it, even when the capture is cancelled or w fails (the rest
// is read and dropped): Node can crash when the connection closes while
// it writes a snapshot. Only [Options].Cleanup ending closes it sooner.
package inspector

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"sync"
	"time"
)

// DefaultPort is the inspector's port when nothing else is configured.
const DefaultPort = 9229

// defaultWait bounds a capture when ctx has no deadline: a snapshot of a
// large heap takes minutes.
const defaultWait = 10 * time.Minute

// openWait bounds the wait for the inspector to open after SIGUSR1.
const openWait = 30 * time.Second

// closeWait bounds closing the inspector after a capture, unless
// [Options].Cleanup says otherwise: the process runs the close only once
// it has finished the snapshot it is writing, which for a large heap
// takes minutes.
const closeWait = 10 * time.Minute

// Options configures a capture. The zero value writes the snapshot as V8
// makes it.
type Options struct {
	// NoValues writes the snapshot through [Redact]: string contents
	// are replaced before they reach the writer.
	NoValues bool
	// Cleanup, if not nil, is the context of reading the rest of a
	// snapshot after the capture's context ended, and of closing the
	// inspector after the capture (at most 10 minutes in any case):
	// cancel it to give up waiting (the inspector is then left open, and
	// Node may crash if it was writing a snapshot; Snapshot
	// says so). By default the capture's context without its
	// cancellation.
	Cleanup context.Context
}

// A CloseError reports that the inspector Snapshot opened could not be
// closed: it is still open, and any local user can attach to it. The
// snapshot itself may be whole (Snapshot returns the *CloseError as it
// is) or not (joined with the capture's error).
type CloseError struct {
	PID  int
	Port int // 0 if the port is not known
	Err  error
}

func (e *CloseError) Error() string {
	where := "its inspector"
	if e.Port > 0 {
		where = "its inspector on 127.0.0.1:" + strconv.Itoa(e.Port)
	}
	return fmt.Sprintf("inspector: process %d: %s may still be open (%v); restart the process to be sure it is closed", e.PID, where, e.Err)
}

func (e *CloseError) Unwrap() error { return e.Err }

// Snapshot takes a heap snapshot of the Node process pid and writes it
// to w. It opens the process's inspector with SIGUSR1 when it is not
// open already and closes it again before it returns; see the package
// documentation. It finds the port from /proc (the process's new
// listening socket, or --inspect-port in its command line or
// NODE_OPTIONS; 9229 where /proc is missing). It waits at most 30 s for
// the inspector to open; without a deadline in ctx the whole capture
// takes at most 10 minutes. On error, w may hold part of a snapshot. An
// error matches [ErrNotNode] if pid is not a Node process that handles
// SIGUSR1 (nothing was sent to it), and is or holds a [*CloseError] if
// an inspector Snapshot opened may still be open.
func Snapshot(ctx context.Context, pid int, w io.Writer, opt Options) (err error) {
	if err := CheckNode(pid); err != nil {
		return err
	}
	if _, ok := ctx.Deadline(); !ok {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, defaultWait)
		defer cancel()
	}
	c := &attempt{pid: pid}
	defer func() {
		if !c.signaled {
			return
		}
		cctx, cancel := context.WithTimeout(cleanupBase(ctx, opt), closeWait)
		defer cancel()
		if cerr := c.close(cctx); cerr != nil && err == nil {
			err = cerr
		} else if cerr != nil {
			err = errors.Join(err, cerr)
		}
	}()
	if err := c.find(ctx); err != nil {
		return err
	}
	return snapshotURL(ctx, c.url, w, opt, nsPID(pid))
}

// An attempt is one Snapshot of a process: where its inspector is, and
// whether the capture opened it.
type attempt struct {
	pid      int
	conf     int   // the configured port, 0 for a random one
	before   []int // the ports the process listened on before the signal
	procOK   bool  // /proc tells the process's sockets
	signaled bool  // SIGUSR1 was sent: the inspector is the capture's to close
	url      string
	port     int
}

// find sets c.url to the WebSocket URL of the process's inspector,
// opening it with SIGUSR1 if needed.
func (c *attempt) find(ctx context.Context) error {
	var openAtStart bool
	c.conf, openAtStart = portFromArgs(nodeArgs(c.pid))
	c.before, c.procOK = ListeningPorts(c.pid)
	// Already open on the configured port?
	if c.conf > 0 && (!c.procOK || slices.Contains(c.before, c.conf)) {
		if u, err := probe(ctx, c.conf); err == nil {
			c.url, c.port = u, c.conf
			return nil
		}
	}
	// Open from the start on a port chosen by the system
	// (--inspect=127.0.0.1:0): it is one of the process's ports.
	if c.conf == 0 && openAtStart {
		for _, p := range c.before {
			if u, err := probe(ctx, p); err == nil {
				c.url, c.port = u, p
				return nil
			}
		}
		return fmt.Errorf("inspector: process %d was started with its inspector on a random port, and none of its ports %v answers as an inspector", c.pid, c.before)
	}
	if err := c.taken(); err != nil {
		return err
	}
	if !c.procOK && c.conf == 0 {
		return fmt.Errorf("inspector: process %d opens its inspector on a random port, which only /proc can tell", c.pid)
	}
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("inspector: %w", err)
	}
	if err := signalInspector(c.pid); err != nil {
		return err
	}
	c.signaled = true
	wctx, cancel := context.WithTimeout(ctx, openWait)
	defer cancel()
	return c.await(wctx)
}

// taken returns an error if another process listens on the configured
// port, where Node would fail to open its inspector ("address already
// in use", on the process's stderr).
func (c *attempt) taken() error {
	if c.conf > 0 && portTaken(c.pid, c.conf) {
		return fmt.Errorf("inspector: port %d is taken by another process, so process %d cannot open its inspector there; free the port, or start node with --inspect-port=0 (or another free port)", c.conf, c.pid)
	}
	return nil
}

// await waits for the inspector to open after the signal: a new
// listening socket of the process (or the configured port) that answers
// as an inspector.
func (c *attempt) await(ctx context.Context) error {
	tick := time.NewTicker(50 * time.Millisecond)
	defer tick.Stop()
	var lastErr error
	for {
		candidates := []int{c.conf}
		if c.procOK {
			now, _ := ListeningPorts(c.pid)
			candidates = candidates[:0]
			for _, p := range now {
				if !slices.Contains(c.before, p) || p == c.conf {
					candidates = append(candidates, p)
				}
			}
		}
		for _, p := range candidates {
			u, err := probe(ctx, p)
			if err == nil {
				c.url, c.port = u, p
				return nil
			}
			lastErr = err
		}
		if err := c.taken(); err != nil {
			return err
		}
		select {
		case <-ctx.Done():
			if lastErr != nil {
				return fmt.Errorf("inspector: process %d: no inspector found: %v (%w)", c.pid, lastErr, ctx.Err())
			}
			return fmt.Errorf("inspector: process %d opened no inspector port: %w", c.pid, ctx.Err())
		case <-tick.C:
		}
	}
}

// close closes the inspector the capture opened and waits until its port
// is closed. If the inspector was not found yet (the capture was
// cancelled, or timed out, while it opened), it is looked for first.
func (c *attempt) close(ctx context.Context) error {
	if c.url == "" {
		if err := c.await(ctx); err != nil {
			return &CloseError{PID: c.pid, Port: c.conf, Err: fmt.Errorf("sent SIGUSR1 but found no inspector to close: %w", err)}
		}
	}
	ws, err := dialWS(ctx, c.url)
	if err != nil {
		return &CloseError{PID: c.pid, Port: c.port, Err: err}
	}
	stop := context.AfterFunc(ctx, func() { ws.c.Close() })
	defer stop()
	defer ws.c.Close()
	s := &session{ws: ws}
	// The process ends every inspector connection as it closes, so the
	// answer may not come: the closed port is the proof.
	if res, err := s.evaluate(closeJS); err == nil && bytes.Contains(res, []byte(`"exceptionDetails"`)) {
		return &CloseError{PID: c.pid, Port: c.port, Err: fmt.Errorf("%s threw: %.200s", closeJS, res)}
	}
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	for {
		if c.closed(ctx) {
			return nil
		}
		select {
		case <-ctx.Done():
			return &CloseError{PID: c.pid, Port: c.port, Err: ctx.Err()}
		case <-tick.C:
		}
	}
}

// closeJS closes the inspector from inside the process. require is
// there through the console's command line API.
const closeJS = `require('inspector').close()`

// closed reports whether the capture's inspector port is closed.
func (c *attempt) closed(ctx context.Context) bool {
	if c.procOK {
		now, ok := ListeningPorts(c.pid)
		return ok && !slices.Contains(now, c.port)
	}
	var d net.Dialer
	conn, err := d.DialContext(ctx, "tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(c.port)))
	if err != nil {
		return ctx.Err() == nil
	}
	conn.Close()
	return false
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
// other host is refused) and writes it to w as the chunks arrive. It
// leaves the inspector open. On error, w may hold part of a snapshot.
func SnapshotURL(ctx context.Context, wsURL string, w io.Writer, opt Options) error {
	return snapshotURL(ctx, wsURL, w, opt, 0)
}

// snapshotURL is SnapshotURL that, if pid is not 0, first checks that
// the inspector belongs to process pid (as the process sees its pid).
func snapshotURL(ctx context.Context, wsURL string, w io.Writer, opt Options, pid int) error {
	ws, err := dialWS(ctx, wsURL)
	if err != nil {
		return err
	}
	defer ws.close()
	// Until the snapshot is asked for, ctx ending closes the connection.
	// Once it is, the connection stays open to the snapshot's end (see
	// session.snapshot): then only the cleanup's context ending, or
	// closeWait, closes it.
	g := &guard{ws: ws}
	stop := context.AfterFunc(ctx, g.abort)
	defer stop()
	hard, cancel := context.WithTimeout(cleanupBase(ctx, opt), closeWait)
	defer cancel()
	stopHard := context.AfterFunc(hard, func() { ws.c.Close() })
	defer stopHard()
	s := &session{ws: ws}
	if pid != 0 {
		var v struct {
			Result struct {
				Value int `json:"value"`
			} `json:"result"`
		}
		res, err := s.evaluate("process.pid")
		if err != nil {
			return wsErr(ctx, err)
		}
		if err := json.Unmarshal(res, &v); err != nil || v.Result.Value != pid {
			return fmt.Errorf("inspector: the inspector at %s is not that of process %d (it says %s)", wsURL, pid, res)
		}
	}
	if !opt.NoValues {
		return wsErr(ctx, s.snapshot(ctx, w, g.begin))
	}
	pr, pw := io.Pipe()
	done := make(chan error, 1)
	go func() {
		err := Redact(w, pr)
		pr.CloseWithError(err) // unblocks the sender if Redact stopped early
		done <- err
	}()
	err = s.snapshot(ctx, pw, g.begin)
	pw.CloseWithError(err)
	if rerr := <-done; err == nil {
		err = rerr
	}
	return wsErr(ctx, err)
}

// cleanupBase is the context that bounds the cleanup after a capture:
// [Options].Cleanup, or ctx without its cancellation.
func cleanupBase(ctx context.Context, opt Options) context.Context {
	if opt.Cleanup != nil {
		return opt.Cleanup
	}
	return context.WithoutCancel(ctx)
}

// A guard closes a connection when the capture's context ends, but only
// until the snapshot has been asked for.
type guard struct {
	ws     *wsConn
	mu     sync.Mutex
	begun  bool // the snapshot was asked for: the connection stays open
	closed bool // the connection was closed before that
}

// abort closes the connection unless the snapshot has begun.
func (g *guard) abort() {
	g.mu.Lock()
	defer g.mu.Unlock()
	if !g.begun {
		g.closed = true
		g.ws.c.Close()
	}
}

// begin marks the snapshot as begun, or fails if abort came first.
func (g *guard) begin() error {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.closed {
		return errors.New("inspector: cancelled before the snapshot began")
	}
	g.begun = true
	return nil
}

func wsErr(ctx context.Context, err error) error {
	if err == nil {
		return nil
	}
	if ctx.Err() != nil {
		return fmt.Errorf("inspector: %w", ctx.Err())
	}
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		return fmt.Errorf("inspector: connection lost: %w", err)
	}
	return err
}
