package inspector

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
)

// A session speaks the DevTools protocol over one WebSocket: numbered
// calls and their answers, with the events that arrive in between.
type session struct {
	ws   *wsConn
	next int
}

// message is an incoming protocol message: an answer (ID, Result or
// Error) or an event (Method, Params). Of the events, only snapshot
// chunks are read.
type message struct {
	ID     int    `json:"id"`
	Method string `json:"method"`
	Params struct {
		Chunk string `json:"chunk"`
	} `json:"params"`
	Result json.RawMessage `json:"result"`
	Error  *struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

// send sends method with params (nil for none) and returns its id.
func (s *session) send(method string, params ...any) (int, error) {
	s.next++
	m := map[string]any{"id": s.next, "method": method}
	if len(params) > 0 && params[0] != nil {
		m["params"] = params[0]
	}
	b, err := json.Marshal(m)
	if err != nil {
		return 0, err
	}
	return s.next, s.ws.writeText(b)
}

// call sends method with params (nil for none) and returns its result.
// Events that arrive before the answer go to onEvent, if not nil.
func (s *session) call(method string, params any, onEvent func(*message) error) (json.RawMessage, error) {
	id, err := s.send(method, params)
	if err != nil {
		return nil, err
	}
	for {
		b, err := s.ws.readMessage()
		if err != nil {
			return nil, err
		}
		var m message
		if err := json.Unmarshal(b, &m); err != nil {
			return nil, fmt.Errorf("inspector: bad message: %v", err)
		}
		switch {
		case m.Method != "":
			if onEvent != nil {
				if err := onEvent(&m); err != nil {
					return nil, err
				}
			}
		case m.ID != id:
			// An answer to an earlier call that was not waited for.
		case m.Error != nil:
			return nil, fmt.Errorf("inspector: %s: %s (code %d)", method, m.Error.Message, m.Error.Code)
		default:
			return m.Result, nil
		}
	}
}

// evaluate runs expression in the process, with the console's command
// line API (require), and returns the result.
func (s *session) evaluate(expression string) (json.RawMessage, error) {
	return s.call("Runtime.evaluate", map[string]any{
		"expression": expression, "includeCommandLineAPI": true, "returnByValue": true,
	}, nil)
}

// snapshot takes a heap snapshot and writes its chunks to w. begin is
// called before the snapshot is asked for; an error from it stops there.
//
// Once asked for, the snapshot is read to its end whatever happens:
// Node (20, at least) dies of SIGSEGV when the connection closes while
// it writes a snapshot. So when ctx ends or w fails, the chunks that
// follow are read and dropped, and the error is returned once Node has
// answered that the snapshot is done. Only the connection's closing (by
// the caller's cleanup deadline) ends it sooner.
func (s *session) snapshot(ctx context.Context, w io.Writer, begin func() error) error {
	if _, err := s.call("HeapProfiler.enable", nil, nil); err != nil {
		return err
	}
	if err := begin(); err != nil {
		return err
	}
	var wrote int64
	var stopped error // why the chunks are dropped
	_, err := s.call("HeapProfiler.takeHeapSnapshot", map[string]any{"reportProgress": false}, func(m *message) error {
		if m.Method != "HeapProfiler.addHeapSnapshotChunk" || stopped != nil {
			return nil
		}
		if stopped = ctx.Err(); stopped != nil {
			return nil
		}
		n, err := io.WriteString(w, m.Params.Chunk)
		wrote += int64(n)
		stopped = err
		return nil
	})
	if err != nil {
		return err
	}
	s.send("HeapProfiler.disable") // best effort, not waited for
	if stopped != nil {
		return stopped
	}
	if wrote == 0 {
		return errors.New("inspector: the snapshot was empty")
	}
	return nil
}
