package report

import (
	"encoding/json"
	"strconv"
	"unicode/utf8"

	"github.com/heapscope/heapscope/analyze"
	"github.com/heapscope/heapscope/heap"
)

// objectColumns names the places of an object's row in top's "objects"
// and "context" arrays (see objectLine).
var objectColumns = []string{"id", "addr", "type", "shallow_bytes", "retained_bytes", "dominator", "edge", "from", "more"}

// objectLine appends object id as one compact JSON array, a row of top's
// "objects" and "context" (their "object_columns" name the places):
//
//	[7,"0x3000","app.Item",56,4209,3,"['a']"]
//	[0,"0x1000","module",72,15049,null,null,null,{"root":"module app"}]
//
// id is the object's number in this output (the others refer to it by
// it), addr what heapscope prints for it (an address, or a V8 object's
// @id). dominator is the id of its immediate dominator, null when only
// the roots dominate it. edge names the edge by which its shortest path
// from a root reaches it, from the object before it on that path, which
// is its dominator unless from gives another id. The rarer facts go in
// more, an object written only when one applies: its "name" and "value",
// the "root" that holds it (edge is then null), "weak": true when edge
// does not retain, and "allocated", what it retains by allocation site.
// An object no path reaches has a null edge and no root. Rows are a
// third to a half the size of the same facts as named fields, and stay
// below the size of the snapshot they describe.
func (w *rowWriter) objectLine(b []byte, id heap.ObjectID, alloc *allocJSON) []byte {
	g, t, r := w.t.Graph(), w.t, w.r
	b = append(b, '[')
	b = strconv.AppendUint(b, uint64(id), 10)
	if w.v8 { // analyze.IDText, without making a string
		b = append(b, `,"@`...)
		b = strconv.AppendUint(b, g.Addr(id), 10)
	} else {
		b = append(b, `,"0x`...)
		b = strconv.AppendUint(b, g.Addr(id), 16)
	}
	b = append(b, `",`...)
	b = appendJSONString(b, g.TypeName(g.Type(id)))
	b = append(b, ',')
	b = strconv.AppendUint(b, g.Size(id), 10)
	b = append(b, ',')
	b = strconv.AppendUint(b, t.Retained(id), 10)
	b = append(b, ',')
	dom := t.Idom(id)
	if dom == analyze.SuperRoot || dom == analyze.Unreachable {
		b = append(b, "null"...)
	} else {
		b = strconv.AppendUint(b, uint64(dom), 10)
	}
	more := w.more[:0]
	empty := true
	field := func(name string) {
		empty = false
		if len(more) == 0 {
			more = append(more, '{')
		} else {
			more = append(more, ',')
		}
		more = appendJSONString(more, name)
		more = append(more, ':')
	}
	if name, ok := g.Name(id); ok && name != "" {
		field("name")
		more = appendJSONString(more, name)
	}
	if v, ok := g.Value(id); ok && v != "" {
		field("value")
		more = appendJSONString(more, v)
	}
	edge, from := w.edge[:0], heap.None
	if r != nil && r.Reached(id) {
		if kind, name, ok := r.Root(id); ok {
			field("root")
			more = appendJSONString(more, rootText(kind, name))
		} else {
			p, l := r.Parent(id)
			if l.IsIndex() { // g.EdgeName, without making a string
				edge = append(edge, `"[`...)
				edge = strconv.AppendUint(edge, uint64(l.Index()), 10)
				edge = append(edge, `]"`...)
			} else {
				edge = appendJSONString(edge, g.String(l.Name()))
			}
			if p != dom {
				from = p
			}
			if l.Kind() == heap.Weak {
				field("weak")
				more = append(more, "true"...)
			}
		}
	}
	if alloc != nil {
		field("allocated")
		js, _ := json.Marshal(alloc) // plain data: cannot fail
		more = append(more, js...)
	}
	w.more, w.edge = more, edge
	if len(edge) == 0 {
		edge = append(edge, "null"...)
	}
	if !empty || from != heap.None {
		b = append(b, ',')
		b = append(b, edge...)
		b = append(b, ',')
		if from == heap.None {
			b = append(b, "null"...)
		} else {
			b = strconv.AppendUint(b, uint64(from), 10)
		}
	} else if string(edge) != "null" {
		b = append(b, ',')
		b = append(b, edge...)
	}
	if !empty {
		b = append(b, ',')
		b = append(b, more...)
		b = append(b, '}')
	}
	return append(b, ']')
}

// rowWriter writes top's rows (see objectLine), reusing its buffers.
type rowWriter struct {
	t          *analyze.DomTree
	r          *analyze.Retainers
	v8         bool // ids are printed as V8's: @ and decimal
	more, edge []byte
}

func newRowWriter(t *analyze.DomTree, r *analyze.Retainers) *rowWriter {
	return &rowWriter{t: t, r: r, v8: t.Graph().Meta().Runtime == "v8"}
}

// appendJSONString appends s as a JSON string, as encoding/json writes
// it without HTML escaping.
func appendJSONString(b []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c == '"' || c == '\\' || c >= utf8.RuneSelf {
			return appendEncoded(b, s) // the rare string that needs escapes
		}
	}
	b = append(b, '"')
	b = append(b, s...)
	return append(b, '"')
}

func appendEncoded(b []byte, s string) []byte {
	var buf jsonBuffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.Encode(s)                         // a string: cannot fail
	return append(b, buf[:len(buf)-1]...) // without Encode's newline
}

// jsonBuffer is an io.Writer that appends to itself.
type jsonBuffer []byte

func (j *jsonBuffer) Write(p []byte) (int, error) {
	*j = append(*j, p...)
	return len(p), nil
}
