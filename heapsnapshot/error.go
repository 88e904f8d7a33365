package heapsnapshot

import (
	"errors"
	"strconv"
)

// FormatError reports a malformed snapshot: where (a byte offset in the
// input and, when known, the top-level section being read) and what.
// Truncated input wraps [io.ErrUnexpectedEOF]; [errors.Is] sees it through
// Unwrap.
type FormatError struct {
	Offset  int64  // byte offset in the input
	Section string // "snapshot", "nodes", "edges", "strings", ... or ""
	Err     error
}

func (e *FormatError) Error() string {
	s := "heapsnapshot: "
	if e.Section != "" {
		s += e.Section + " at "
	}
	return s + "offset " + strconv.FormatInt(e.Offset, 10) + ": " + e.Err.Error()
}

// Unwrap returns the underlying error.
func (e *FormatError) Unwrap() error { return e.Err }

func formatErr(off int64, section, msg string) error {
	return &FormatError{Offset: off, Section: section, Err: errors.New(msg)}
}
