package hprof

import "fmt"

// FormatError reports input that is not a well-formed HPROF dump. Offset
// is the byte offset in the (decompressed) dump of the record or field
// that is wrong, and Record names it in the spelling of the HotSpot
// sources ("INSTANCE_DUMP", "HEAP_DUMP_SEGMENT"), or is empty for the
// file header. A dump cut short yields a FormatError whose Err wraps
// [io.ErrUnexpectedEOF].
type FormatError struct {
	Offset int64
	Record string
	Err    error
}

// Error formats the error as
// "hprof: INSTANCE_DUMP at offset 0x1f3a: field data overruns record".
func (e *FormatError) Error() string {
	if e.Record == "" {
		return fmt.Sprintf("hprof: at offset %#x: %v", e.Offset, e.Err)
	}
	return fmt.Sprintf("hprof: %s at offset %#x: %v", e.Record, e.Offset, e.Err)
}

// Unwrap returns the underlying error.
func (e *FormatError) Unwrap() error { return e.Err }
