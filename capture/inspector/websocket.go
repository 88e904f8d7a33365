package inspector

import (
	"bufio"
	"context"
	"crypto/rand"
	"crypto/sha1"
	"encoding/base64"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"
)

// A minimal RFC 6455 WebSocket client: the opening handshake, masked
// client frames, fragmented messages, control frames. Enough to speak the
// Chrome DevTools protocol to a local Node process; no extensions, no
// TLS.

const (
	opContinuation = 0x0
	opText         = 0x1
	opBinary       = 0x2
	opClose        = 0x8
	opPing         = 0x9
	opPong         = 0xa
)

// maxMessage bounds one incoming message. Snapshot chunks are small
// (V8 sends about 100 KB each); this only stops a hostile peer.
const maxMessage = 256 << 20

const wsGUID = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11"

type wsConn struct {
	c  net.Conn
	br *bufio.Reader
	wm sync.Mutex // guards writes
}

// dialWS opens a WebSocket to u, which must be a ws:// URL on the
// loopback interface.
func dialWS(ctx context.Context, u string) (*wsConn, error) {
	pu, err := url.Parse(u)
	if err != nil {
		return nil, fmt.Errorf("inspector: bad websocket URL %q: %v", u, err)
	}
	if pu.Scheme != "ws" {
		return nil, fmt.Errorf("inspector: websocket URL %q: scheme is not ws", u)
	}
	host, err := loopback(pu.Host)
	if err != nil {
		return nil, err
	}
	var d net.Dialer
	c, err := d.DialContext(ctx, "tcp", host)
	if err != nil {
		return nil, fmt.Errorf("inspector: %v", err)
	}
	ws, err := handshake(ctx, c, host, pu.RequestURI())
	if err != nil {
		c.Close()
		return nil, err
	}
	return ws, nil
}

// loopback checks that hostport names the loopback interface and returns
// it with the host as 127.0.0.1.
func loopback(hostport string) (string, error) {
	h, p, err := net.SplitHostPort(hostport)
	if err != nil {
		return "", fmt.Errorf("inspector: bad address %q: %v", hostport, err)
	}
	if h != "127.0.0.1" && h != "localhost" {
		return "", fmt.Errorf("inspector: refusing to connect to %q: only 127.0.0.1 is allowed", hostport)
	}
	return net.JoinHostPort("127.0.0.1", p), nil
}

func handshake(ctx context.Context, c net.Conn, host, path string) (*wsConn, error) {
	if dl, ok := ctx.Deadline(); ok {
		c.SetDeadline(dl)
		defer c.SetDeadline(time.Time{})
	}
	var nonce [16]byte
	if _, err := rand.Read(nonce[:]); err != nil {
		return nil, err
	}
	key := base64.StdEncoding.EncodeToString(nonce[:])
	req := "GET " + path + " HTTP/1.1\r\n" +
		"Host: " + host + "\r\n" +
		"Upgrade: websocket\r\n" +
		"Connection: Upgrade\r\n" +
		"Sec-WebSocket-Key: " + key + "\r\n" +
		"Sec-WebSocket-Version: 13\r\n\r\n"
	if _, err := io.WriteString(c, req); err != nil {
		return nil, fmt.Errorf("inspector: websocket handshake: %v", err)
	}
	br := bufio.NewReaderSize(c, 64<<10)
	resp, err := http.ReadResponse(br, &http.Request{Method: "GET"})
	if err != nil {
		return nil, fmt.Errorf("inspector: websocket handshake: %v", err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusSwitchingProtocols {
		return nil, fmt.Errorf("inspector: websocket handshake: %s", resp.Status)
	}
	if !strings.EqualFold(resp.Header.Get("Upgrade"), "websocket") {
		return nil, errors.New("inspector: websocket handshake: no Upgrade: websocket")
	}
	h := sha1.Sum([]byte(key + wsGUID))
	if resp.Header.Get("Sec-WebSocket-Accept") != base64.StdEncoding.EncodeToString(h[:]) {
		return nil, errors.New("inspector: websocket handshake: bad Sec-WebSocket-Accept")
	}
	return &wsConn{c: c, br: br}, nil
}

// writeFrame writes one masked, final frame.
func (ws *wsConn) writeFrame(op byte, payload []byte) error {
	ws.wm.Lock()
	defer ws.wm.Unlock()
	hdr := make([]byte, 0, 14)
	hdr = append(hdr, 0x80|op)
	n := len(payload)
	switch {
	case n < 126:
		hdr = append(hdr, 0x80|byte(n))
	case n <= 0xffff:
		hdr = append(hdr, 0x80|126)
		hdr = binary.BigEndian.AppendUint16(hdr, uint16(n))
	default:
		hdr = append(hdr, 0x80|127)
		hdr = binary.BigEndian.AppendUint64(hdr, uint64(n))
	}
	var mask [4]byte
	if _, err := rand.Read(mask[:]); err != nil {
		return err
	}
	hdr = append(hdr, mask[:]...)
	buf := make([]byte, len(hdr)+n)
	copy(buf, hdr)
	for i, b := range payload {
		buf[len(hdr)+i] = b ^ mask[i&3]
	}
	_, err := ws.c.Write(buf)
	return err
}

// writeText sends a text message.
func (ws *wsConn) writeText(msg []byte) error { return ws.writeFrame(opText, msg) }

// errClosed is returned when the peer closes the connection.
var errClosed = errors.New("inspector: websocket closed by the peer")

// readMessage returns the next data message, reassembling fragments and
// answering pings on the way.
func (ws *wsConn) readMessage() ([]byte, error) {
	var msg []byte
	started := false
	for {
		var h [2]byte
		if _, err := io.ReadFull(ws.br, h[:]); err != nil {
			return nil, err
		}
		fin := h[0]&0x80 != 0
		if h[0]&0x70 != 0 {
			return nil, errors.New("inspector: websocket frame with reserved bits set")
		}
		op := h[0] & 0x0f
		masked := h[1]&0x80 != 0
		n := uint64(h[1] & 0x7f)
		switch n {
		case 126:
			var b [2]byte
			if _, err := io.ReadFull(ws.br, b[:]); err != nil {
				return nil, err
			}
			n = uint64(binary.BigEndian.Uint16(b[:]))
		case 127:
			var b [8]byte
			if _, err := io.ReadFull(ws.br, b[:]); err != nil {
				return nil, err
			}
			n = binary.BigEndian.Uint64(b[:])
		}
		var mask [4]byte
		if masked {
			if _, err := io.ReadFull(ws.br, mask[:]); err != nil {
				return nil, err
			}
		}
		if op >= 0x8 {
			if !fin || n > 125 {
				return nil, errors.New("inspector: bad websocket control frame")
			}
		} else if n > maxMessage || uint64(len(msg))+n > maxMessage {
			return nil, fmt.Errorf("inspector: websocket message larger than %d bytes", maxMessage)
		}
		start := len(msg)
		if op >= 0x8 {
			start = 0
		}
		var payload []byte
		if op >= 0x8 {
			payload = make([]byte, n)
		} else {
			msg = append(msg, make([]byte, n)...)
			payload = msg[start:]
		}
		if _, err := io.ReadFull(ws.br, payload); err != nil {
			return nil, err
		}
		if masked {
			for i := range payload {
				payload[i] ^= mask[i&3]
			}
		}
		switch op {
		case opPing:
			if err := ws.writeFrame(opPong, payload); err != nil {
				return nil, err
			}
		case opPong:
		case opClose:
			ws.writeFrame(opClose, payload) // echo, best effort
			return nil, errClosed
		case opText, opBinary:
			if started {
				return nil, errors.New("inspector: websocket data frame inside a fragmented message")
			}
			started = true
			if fin {
				return msg, nil
			}
		case opContinuation:
			if !started {
				return nil, errors.New("inspector: websocket continuation frame without a message")
			}
			if fin {
				return msg, nil
			}
		default:
			return nil, fmt.Errorf("inspector: websocket frame with unknown opcode %#x", op)
		}
	}
}

// close sends a close frame and closes the connection.
func (ws *wsConn) close() error {
	ws.writeFrame(opClose, []byte{0x03, 0xe8}) // 1000 normal closure
	return ws.c.Close()
}
