package heapsnapshot

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
)

const (
	// bufSize is the scanner's initial buffer. The buffer only grows to
	// hold a single string longer than it.
	bufSize = 1 << 20
	// maxToken bounds one string or one captured value.
	maxToken = 1 << 30
)

// scanner is a forward-only byte scanner over an io.Reader with a window
// buffer. It knows the input offset of every byte, so errors can say
// where. The JSON it understands is the subset a snapshot needs: flat
// arrays of unsigned integers and arrays of strings read by hand, anything
// else skipped or captured for encoding/json.
type scanner struct {
	r       io.Reader
	buf     []byte
	pos     int   // next unread byte
	end     int   // buf[pos:end] holds unread input
	base    int64 // input offset of buf[0]
	rerr    error // sticky: io.EOF at the end of input, or the read error
	section string
}

// newScanner returns a scanner of r, whose size is given when known
// (else -1), to size the buffer.
func newScanner(r io.Reader, size int64) *scanner {
	n := bufSize
	if size >= 0 && size < bufSize {
		n = max(int(size)+1, 64)
	}
	return &scanner{r: r, buf: make([]byte, n)}
}

func (s *scanner) offset() int64 { return s.base + int64(s.pos) }

// fill reads more input, keeping buf[pos:end] (moved to the front). It
// grows the buffer only when it is full of unread bytes. It reports
// whether new bytes arrived.
func (s *scanner) fill() bool {
	if s.rerr != nil {
		return false
	}
	if s.pos > 0 {
		n := copy(s.buf, s.buf[s.pos:s.end])
		s.base += int64(s.pos)
		s.pos, s.end = 0, n
	}
	if s.end == len(s.buf) {
		if len(s.buf) >= maxToken {
			s.rerr = errTooLong
			return false
		}
		nb := make([]byte, 2*len(s.buf))
		copy(nb, s.buf[:s.end])
		s.buf = nb
	}
	for tries := 0; tries < 100; tries++ {
		n, err := s.r.Read(s.buf[s.end:])
		s.end += n
		if err != nil {
			s.rerr = err
			return n > 0
		}
		if n > 0 {
			return true
		}
	}
	s.rerr = io.ErrNoProgress
	return false
}

var errTooLong = errors.New("token longer than 1 GiB")

// eofErr returns the error for input that ended (or failed) too soon.
func (s *scanner) eofErr() error {
	switch {
	case s.rerr == nil || s.rerr == io.EOF:
		return &FormatError{Offset: s.offset(), Section: s.section, Err: fmt.Errorf("input ends early: %w", io.ErrUnexpectedEOF)}
	case s.rerr == errTooLong:
		return &FormatError{Offset: s.offset(), Section: s.section, Err: errTooLong}
	default:
		return fmt.Errorf("heapsnapshot: read at offset %d: %w", s.offset(), s.rerr)
	}
}

func (s *scanner) errorf(off int64, format string, args ...any) error {
	return &FormatError{Offset: off, Section: s.section, Err: fmt.Errorf(format, args...)}
}

func isSpace(c byte) bool { return c == ' ' || c == '\n' || c == '\r' || c == '\t' }

// peek skips white space and returns the next byte without consuming it.
func (s *scanner) peek() (byte, error) {
	for {
		for s.pos < s.end {
			c := s.buf[s.pos]
			if !isSpace(c) {
				return c, nil
			}
			s.pos++
		}
		if !s.fill() {
			return 0, s.eofErr()
		}
	}
}

// atEOF skips white space and reports whether the input ends there.
func (s *scanner) atEOF() bool {
	_, err := s.peek()
	return err != nil
}

// expect skips white space and consumes c.
func (s *scanner) expect(c byte) error {
	got, err := s.peek()
	if err != nil {
		return err
	}
	if got != c {
		return s.errorf(s.offset(), "found %s, want %q", quoteByte(got), c)
	}
	s.pos++
	return nil
}

func quoteByte(c byte) string {
	if c >= 0x20 && c < 0x7f {
		return fmt.Sprintf("%q", c)
	}
	return fmt.Sprintf("byte %#02x", c)
}

// chunkRecords is how many records records hands over at a time.
const chunkRecords = 4096

// recordBatches is how many batches of records may be in flight between
// the tokenizer and the handler.
const recordBatches = 4

// batch is a batch of records: vals holds len(offs) records of numbers
// back to back, offs the input offset of each record's first number.
type batch struct {
	vals []uint64
	offs []int64
}

// records reads the rest of a JSON array of unsigned integers (the '['
// already consumed) in records of width numbers, calling h with batches
// of whole records (vals holds len(offs) records back to back) and the
// input offset of each record's first number. The array's length must be
// a multiple of width. h must not keep vals or offs.
//
// The numbers are tokenized on another goroutine, batches of
// chunkRecords records ahead of h, which runs on the caller's. Errors
// come out as if it all ran in order: h sees every full batch before the
// tokenizer's error, and an error of h stops the tokenizer. h may call
// s.errorf but must not otherwise use s.
func (s *scanner) records(width int, h func(vals []uint64, offs []int64) error) error {
	free := make(chan *batch, recordBatches)
	full := make(chan *batch, recordBatches)
	stop := make(chan struct{})
	for range recordBatches {
		free <- &batch{vals: make([]uint64, width*chunkRecords), offs: make([]int64, chunkRecords)}
	}
	var terr error
	go func() {
		terr = s.tokenize(width, free, full, stop)
		close(full)
	}()
	var herr error
	for b := range full {
		if herr == nil {
			if herr = h(b.vals, b.offs); herr != nil {
				close(stop)
			}
		}
		free <- b
	}
	if herr != nil {
		return herr
	}
	return terr
}

// tokenize is the tokenizer of records. It takes empty batches from
// free and sends them filled, whole records only, on full, the last one
// cut to the records it holds; it returns early, with no error, when
// stop is closed.
func (s *scanner) tokenize(width int, free <-chan *batch, full chan<- *batch, stop <-chan struct{}) error {
	const maxDiv10 = math.MaxUint64 / 10
	var cur *batch
	select {
	case cur = <-free:
	case <-stop:
		return nil
	}
	vals, offs := cur.vals[:width*chunkRecords], cur.offs[:chunkRecords]
	nv := 0 // numbers in vals
	nr := 0 // records begun in vals
	k := 0  // numbers in the current record
	const (
		stStart = iota // after '[': a value or ']'
		stValue        // after a value: ',' or ']'
		stComma        // after ',': a value
	)
	state := stStart
	buf, pos, end := s.buf, s.pos, s.end
	for {
		if pos >= end {
			s.pos = pos
			if !s.fill() {
				return s.eofErr()
			}
			buf, pos, end = s.buf, s.pos, s.end
		}
		c := buf[pos]
		if d := c - '0'; d <= 9 {
			off := s.base + int64(pos)
			if state == stValue {
				s.pos = pos
				return s.errorf(off, "missing comma between numbers")
			}
			v := uint64(d)
			pos++
		digits:
			for {
				for pos < end {
					d := buf[pos] - '0'
					if d > 9 {
						break digits
					}
					if v >= maxDiv10 && (v > maxDiv10 || d > math.MaxUint64%10) {
						s.pos = pos
						return s.errorf(off, "number does not fit in 64 bits")
					}
					v = v*10 + uint64(d)
					pos++
				}
				s.pos = pos
				if !s.fill() {
					return s.eofErr()
				}
				buf, pos, end = s.buf, s.pos, s.end
			}
			if k == 0 {
				offs[nr] = off
				nr++
			}
			vals[nv] = v
			nv++
			k++
			state = stValue
			if k == width {
				k = 0
				if nv == len(vals) {
					full <- cur
					select {
					case cur = <-free:
					case <-stop:
						s.pos = pos
						return nil
					}
					vals, offs = cur.vals[:width*chunkRecords], cur.offs[:chunkRecords]
					nv, nr = 0, 0
				}
			}
			// The separator V8 writes after a number, ',' or "\n,",
			// taken here as the loop below would take it.
			if end-pos >= 2 {
				if buf[pos] == ',' {
					state = stComma
					pos++
				} else if buf[pos] == '\n' && buf[pos+1] == ',' {
					state = stComma
					pos += 2
				}
			}
			continue
		}
		switch {
		case c == ',' && state == stValue:
			state = stComma
			pos++
		case isSpace(c):
			pos++
		case c == ']' && state != stComma:
			s.pos = pos + 1
			if k != 0 {
				return s.errorf(s.offset()-1, "array length is not a multiple of %d", width)
			}
			if nv > 0 {
				cur.vals, cur.offs = vals[:nv], offs[:nv/width]
				full <- cur
			}
			return nil
		default:
			s.pos = pos
			if c == '-' {
				return s.errorf(s.offset(), "negative number")
			}
			return s.errorf(s.offset(), "found %s in an array of unsigned integers", quoteByte(c))
		}
	}
}

// rawString reads a JSON string starting at the opening quote and
// returns its raw contents, escapes intact, and the offset of the quote.
// The slice is valid until the next call on s.
func (s *scanner) rawString() ([]byte, int64, error) {
	if s.pos >= s.end && !s.fill() {
		return nil, s.offset(), s.eofErr()
	}
	off := s.offset()
	if s.buf[s.pos] != '"' {
		return nil, off, s.errorf(off, "found %s, want a string", quoteByte(s.buf[s.pos]))
	}
	s.pos++
	i := s.pos // next byte to examine
	q := -1    // index of a quote at or after i, when known
	for {
		if i < s.end {
			if q < i {
				q = -1
				if j := bytes.IndexByte(s.buf[i:s.end], '"'); j >= 0 {
					q = i + j
				}
			}
			lim := s.end
			if q >= 0 {
				lim = q
			}
			if j := bytes.IndexByte(s.buf[i:lim], '\\'); j >= 0 {
				i += j + 2 // skip the escaped byte; \uXXXX digits are not quotes
				continue
			}
			if q >= 0 {
				raw := s.buf[s.pos:q]
				s.pos = q + 1
				return raw, off, nil
			}
			i = s.end
		}
		ri, rq := i-s.pos, q-s.pos
		if !s.fill() {
			s.pos = s.end
			return nil, off, s.eofErr()
		}
		i = s.pos + ri
		if q >= 0 {
			q = s.pos + rq
		}
	}
}

// key reads an object key and the colon after it.
func (s *scanner) key() (string, error) {
	if _, err := s.peek(); err != nil {
		return "", err
	}
	raw, off, err := s.rawString()
	if err != nil {
		return "", err
	}
	k, err := decodeString(raw, -1)
	if err != nil {
		return "", s.errorf(off, "%v", err)
	}
	return k, s.expect(':')
}

// structural marks the bytes that open a string or open or close an
// array or object.
var structural = [256]bool{'"': true, '[': true, ']': true, '{': true, '}': true}

// skipValue skips one JSON value. When capture is not nil, the value's
// tokens are appended to it (separated by spaces), up to limit bytes.
func (s *scanner) skipValue(capture *[]byte, limit int) error {
	depth := 0
	for {
		if capture == nil && depth > 0 {
			// Inside an array or object, skipping: scalars, commas,
			// colons and spaces are consumed whatever they are, so run
			// to the next string or bracket.
			for {
				i, buf := s.pos, s.buf[:s.end]
				for i < len(buf) && !structural[buf[i]] {
					i++
				}
				s.pos = i
				if i < s.end {
					break
				}
				if !s.fill() {
					return s.eofErr()
				}
			}
		}
		c, err := s.peek()
		if err != nil {
			return err
		}
		off := s.offset()
		if capture != nil && len(*capture) > limit {
			return s.errorf(off, "value longer than %d bytes", limit)
		}
		switch c {
		case '"':
			raw, _, err := s.rawString()
			if err != nil {
				return err
			}
			if capture != nil {
				*capture = append(*capture, '"')
				*capture = append(*capture, raw...)
				*capture = append(*capture, '"')
			}
		case '[', '{':
			depth++
			s.pos++
			if capture != nil {
				*capture = append(*capture, c)
			}
		case ']', '}':
			if depth == 0 {
				return s.errorf(off, "found %s, want a value", quoteByte(c))
			}
			depth--
			s.pos++
			if capture != nil {
				*capture = append(*capture, c)
			}
		case ',', ':':
			if depth == 0 {
				return s.errorf(off, "found %s, want a value", quoteByte(c))
			}
			s.pos++
			if capture != nil {
				*capture = append(*capture, c)
			}
		default:
			// A scalar: consume up to a delimiter.
			n := 0
			for {
				for s.pos < s.end {
					c := s.buf[s.pos]
					if isSpace(c) || c == ',' || c == ']' || c == '}' || c == ':' || c == '"' || c == '[' || c == '{' {
						goto scalarDone
					}
					if capture != nil {
						*capture = append(*capture, c)
					}
					s.pos++
					n++
				}
				if !s.fill() {
					if depth == 0 && n > 0 {
						goto scalarDone
					}
					return s.eofErr()
				}
			}
		scalarDone:
			if n == 0 {
				return s.errorf(off, "found %s, want a value", quoteByte(c))
			}
		}
		if capture != nil {
			*capture = append(*capture, ' ')
		}
		if depth == 0 {
			return nil
		}
	}
}
