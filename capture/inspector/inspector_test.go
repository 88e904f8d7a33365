package inspector

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha1"
	"encoding/base64"
	"encoding/binary"
	"io"
	"net"
	"net/http"
	"os/exec"
	"strings"
	"testing"

	"github.com/heapscope/heapscope/heapsnapshot"
)

const aliveJS = `
class InspectMe { constructor(i) { this.i = i; } }
globalThis.keep = [];
for (let i = 0; i < 123; i++) globalThis.keep.push(new InspectMe(i));
setInterval(() => {}, 1000);
console.log('ready');
`

// startNode starts a node process running aliveJS with the given flags
// and waits until it is ready. It returns the process and its stderr.
func startNode(t *testing.T, flags ...string) (*exec.Cmd, *bufio.Reader) {
	t.Helper()
	return startNodeJS(t, aliveJS, flags...)
}

// startNodeJS starts node running the program js, which must print
// "ready" when it is, with the given flags.
func startNodeJS(t *testing.T, js string, flags ...string) (*exec.Cmd, *bufio.Reader) {
	t.Helper()
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("node not installed")
	}
	cmd := exec.Command(node, append(flags, "-e", js)...)
	stdout, _ := cmd.StdoutPipe()
	stderr, _ := cmd.StderrPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cmd.Process.Kill()
		cmd.Wait()
	})
	line, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil || strings.TrimSpace(line) != "ready" {
		t.Fatalf("node did not start: %q, %v", line, err)
	}
	return cmd, bufio.NewReader(stderr)
}

func checkSnapshot(t *testing.T, data []byte) {
	t.Helper()
	if n := countType(t, data, "InspectMe"); n != 123 {
		t.Errorf("%d InspectMe objects, want 123", n)
	}
}

// countType reads a snapshot and counts the objects of type typ.
func countType(t *testing.T, data []byte, typ string) int {
	t.Helper()
	g, err := heapsnapshot.Read(bytes.NewReader(data))
	if err != nil {
		t.Fatalf("heapsnapshot.Read: %v", err)
	}
	n := 0
	for id := range g.Objects() {
		if g.TypeName(g.Type(id)) == typ {
			n++
		}
	}
	return n
}

func TestSnapshotPID(t *testing.T) {
	// --inspect-port=0: the inspector opens on a free port at SIGUSR1.
	cmd, _ := startNode(t, "--inspect-port=0")
	ctx := testCtx(t)
	var buf bytes.Buffer
	if err := Snapshot(ctx, cmd.Process.Pid, &buf, Options{}); err != nil {
		t.Fatalf("Snapshot() = %v", err)
	}
	checkSnapshot(t, buf.Bytes())
	// A second snapshot opens the inspector again.
	buf.Reset()
	if err := Snapshot(ctx, cmd.Process.Pid, &buf, Options{}); err != nil {
		t.Fatalf("second Snapshot() = %v", err)
	}
	checkSnapshot(t, buf.Bytes())
}

// startInspected starts node with its inspector open on a port of the
// system's choice (--inspect=127.0.0.1:0) and returns its WebSocket URL.
func startInspected(t *testing.T) (*exec.Cmd, string) {
	t.Helper()
	cmd, stderr := startNode(t, "--inspect=127.0.0.1:0")
	for {
		line, err := stderr.ReadString('\n')
		if err != nil {
			t.Fatalf("no 'Debugger listening' line: %v", err)
		}
		if u, ok := ListeningURL(line); ok {
			return cmd, u
		}
	}
}

func TestSnapshotURL(t *testing.T) {
	_, u := startInspected(t)
	ctx := testCtx(t)
	var buf bytes.Buffer
	if err := SnapshotURL(ctx, u, &buf, Options{}); err != nil {
		t.Fatalf("SnapshotURL(%s) = %v", u, err)
	}
	checkSnapshot(t, buf.Bytes())
}

func TestLoopbackOnly(t *testing.T) {
	for _, u := range []string{"ws://10.0.0.1:9229/x", "ws://example.com:9229/x", "wss://127.0.0.1:9229/x"} {
		if err := SnapshotURL(context.Background(), u, io.Discard, Options{}); err == nil {
			t.Errorf("SnapshotURL(%s) succeeded", u)
		}
	}
}

func TestPortFromArgs(t *testing.T) {
	for _, tc := range []struct {
		args string
		want int
	}{
		{"node app.js", 9229},
		{"node --inspect-port=0 app.js", 0},
		{"node --inspect-port 9333 app.js", 9333},
		{"node --inspect=127.0.0.1:9444 app.js", 9444},
		{"node --inspect=9555 app.js --inspect=1", 9555},
		{"node --inspect app.js", 9229},
	} {
		if got, _ := portFromArgs(strings.Fields(tc.args)); got != tc.want {
			t.Errorf("portFromArgs(%q) = %d, want %d", tc.args, got, tc.want)
		}
	}
}

// fakeServer accepts one WebSocket connection and runs serve on it.
func fakeServer(t *testing.T, serve func(c net.Conn, br *bufio.Reader)) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() {
		c, err := ln.Accept()
		if err != nil {
			return
		}
		defer c.Close()
		br := bufio.NewReader(c)
		req, err := http.ReadRequest(br)
		if err != nil {
			return
		}
		h := sha1.Sum([]byte(req.Header.Get("Sec-WebSocket-Key") + wsGUID))
		io.WriteString(c, "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Accept: "+
			base64.StdEncoding.EncodeToString(h[:])+"\r\n\r\n")
		serve(c, br)
	}()
	return "ws://" + ln.Addr().String() + "/devtools"
}

// serverFrame encodes an unmasked server frame.
func serverFrame(fin bool, op byte, payload []byte) []byte {
	b := []byte{op}
	if fin {
		b[0] |= 0x80
	}
	switch n := len(payload); {
	case n < 126:
		b = append(b, byte(n))
	case n <= 0xffff:
		b = append(b, 126)
		b = binary.BigEndian.AppendUint16(b, uint16(n))
	default:
		b = append(b, 127)
		b = binary.BigEndian.AppendUint64(b, uint64(n))
	}
	return append(b, payload...)
}

// readClientFrame reads one client frame, checks it is masked and
// returns its opcode and payload.
func readClientFrame(t *testing.T, br *bufio.Reader) (byte, []byte) {
	var h [2]byte
	if _, err := io.ReadFull(br, h[:]); err != nil {
		return 0, nil
	}
	if h[1]&0x80 == 0 {
		t.Errorf("client frame not masked")
	}
	n := uint64(h[1] & 0x7f)
	switch n {
	case 126:
		var b [2]byte
		io.ReadFull(br, b[:])
		n = uint64(binary.BigEndian.Uint16(b[:]))
	case 127:
		var b [8]byte
		io.ReadFull(br, b[:])
		n = binary.BigEndian.Uint64(b[:])
	}
	var mask [4]byte
	io.ReadFull(br, mask[:])
	p := make([]byte, n)
	io.ReadFull(br, p)
	for i := range p {
		p[i] ^= mask[i&3]
	}
	return h[0] & 0x0f, p
}

// TestProtocol drives SnapshotURL against a fake inspector that sends a
// chunk in fragments, a chunk larger than 64 KiB (64-bit length), a ping
// in the middle of a fragmented message, and then the result.
func TestProtocol(t *testing.T) {
	big := strings.Repeat("x", 70000)
	u := fakeServer(t, func(c net.Conn, br *bufio.Reader) {
		if op, p := readClientFrame(t, br); op != opText || !strings.Contains(string(p), `"HeapProfiler.enable"`) {
			t.Errorf("first request: op %d %q", op, p)
		}
		c.Write(serverFrame(true, opText, []byte(`{"id":1,"result":{}}`)))
		if op, p := readClientFrame(t, br); op != opText || !strings.Contains(string(p), `"HeapProfiler.takeHeapSnapshot"`) {
			t.Errorf("second request: op %d %q", op, p)
		}
		msg := []byte(`{"method":"HeapProfiler.addHeapSnapshotChunk","params":{"chunk":"{\"snap"}}`)
		c.Write(serverFrame(false, opText, msg[:10]))
		c.Write(serverFrame(true, opPing, []byte("hi")))
		c.Write(serverFrame(false, opContinuation, msg[10:30]))
		c.Write(serverFrame(true, opContinuation, msg[30:]))
		if op, p := readClientFrame(t, br); op != opPong || string(p) != "hi" {
			t.Errorf("pong: op %d %q", op, p)
		}
		c.Write(serverFrame(true, opText, []byte(`{"method":"HeapProfiler.addHeapSnapshotChunk","params":{"chunk":"`+big+`"}}`)))
		c.Write(serverFrame(true, opText, []byte(`{"id":2,"result":{}}`)))
		for {
			if op, _ := readClientFrame(t, br); op == 0 || op == opClose {
				return
			}
		}
	})
	var buf bytes.Buffer
	if err := SnapshotURL(context.Background(), u, &buf, Options{}); err != nil {
		t.Fatalf("SnapshotURL() = %v", err)
	}
	if want := `{"snap` + big; buf.String() != want {
		t.Errorf("got %d bytes %.20q, want %d", buf.Len(), buf.String(), len(want))
	}
}

// TestProtocolError checks that a protocol error and a lost connection
// are reported.
func TestProtocolError(t *testing.T) {
	u := fakeServer(t, func(c net.Conn, br *bufio.Reader) {
		readClientFrame(t, br)
		c.Write(serverFrame(true, opText, []byte(`{"id":1,"result":{}}`)))
		readClientFrame(t, br)
		c.Write(serverFrame(true, opText, []byte(`{"id":2,"error":{"code":-32000,"message":"nope"}}`)))
	})
	err := SnapshotURL(context.Background(), u, io.Discard, Options{})
	if err == nil || !strings.Contains(err.Error(), "nope") {
		t.Errorf("SnapshotURL() = %v, want the protocol error", err)
	}
	u = fakeServer(t, func(c net.Conn, br *bufio.Reader) {
		readClientFrame(t, br)
		c.Write(serverFrame(false, opText, []byte(`{"id"`)))
	})
	if err := SnapshotURL(context.Background(), u, io.Discard, Options{}); err == nil {
		t.Errorf("SnapshotURL() on a dropped connection succeeded")
	}
}
