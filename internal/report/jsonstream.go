package report

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
)

// jsonWriter writes one JSON object field by field, and the elements of
// an array field one by one, with the layout WriteJSON gives the whole
// object (two-space indent, no HTML escaping), so that a long array is
// never held whole. The first error sticks; end returns it.
type jsonWriter struct {
	w     *bufio.Writer
	buf   bytes.Buffer
	err   error
	first bool // no field written yet
	elems int  // elements written in the open array
}

func newJSONWriter(w io.Writer) *jsonWriter {
	jw := &jsonWriter{w: bufio.NewWriterSize(w, 64<<10), first: true}
	jw.w.WriteString("{\n")
	return jw
}

// value writes v, its lines after the first starting with prefix.
func (jw *jsonWriter) value(v any, prefix string) {
	if jw.err != nil {
		return
	}
	jw.buf.Reset()
	enc := json.NewEncoder(&jw.buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent(prefix, "  ")
	if jw.err = enc.Encode(v); jw.err != nil {
		return
	}
	jw.w.Write(bytes.TrimSuffix(jw.buf.Bytes(), []byte("\n")))
}

func (jw *jsonWriter) key(name string) {
	if !jw.first {
		jw.w.WriteString(",\n")
	}
	jw.first = false
	jw.w.WriteString("  ")
	jw.value(name, "")
	jw.w.WriteString(": ")
}

// field writes "name": v.
func (jw *jsonWriter) field(name string, v any) {
	jw.key(name)
	jw.value(v, "  ")
}

// open starts the array field name; elem adds to it, close ends it.
func (jw *jsonWriter) open(name string) {
	jw.key(name)
	jw.w.WriteString("[")
	jw.elems = 0
}

func (jw *jsonWriter) elem(v any) {
	if jw.elems > 0 {
		jw.w.WriteString(",")
	}
	jw.w.WriteString("\n    ")
	jw.value(v, "    ")
	jw.elems++
}

// line adds b, one element written compactly on its own line, to the
// open array: a long array of objects stays near the size of its data.
func (jw *jsonWriter) line(b []byte) {
	if jw.err != nil {
		return
	}
	if jw.elems > 0 {
		jw.w.WriteString(",")
	}
	jw.w.WriteString("\n    ")
	jw.w.Write(b)
	jw.elems++
}

func (jw *jsonWriter) close() {
	if jw.elems > 0 {
		jw.w.WriteString("\n  ")
	}
	jw.w.WriteString("]")
}

// end closes the object and flushes.
func (jw *jsonWriter) end() error {
	jw.w.WriteString("\n}\n")
	if err := jw.w.Flush(); jw.err == nil {
		jw.err = err
	}
	return jw.err
}
