package heapsnapshot

import (
	"bytes"
	"errors"
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
)

// decodeString decodes the raw contents of a JSON string. When max >= 0
// it stops after max characters (code points). V8 writes every
// non-ASCII character as \uXXXX of its low 16 bits, so surrogate pairs
// are joined when they come in order and lone surrogates become U+FFFD.
func decodeString(raw []byte, max int) (string, error) {
	if plainWithin(raw, max) {
		return string(raw), nil
	}
	b, err := appendDecoded(make([]byte, 0, min(len(raw), 256)), raw, max)
	if err != nil {
		return "", err
	}
	return string(b), nil
}

// plainWithin reports whether raw has no escapes and at most max bytes
// (any length when max < 0): its text is raw itself.
func plainWithin(raw []byte, max int) bool {
	return (max < 0 || len(raw) <= max) && bytes.IndexByte(raw, '\\') < 0
}

// appendDecoded appends the decoded text of raw, as decodeString returns
// it, to dst.
func appendDecoded(dst, raw []byte, max int) ([]byte, error) {
	if plainWithin(raw, max) {
		return append(dst, raw...), nil
	}
	n := 0
	for i := 0; i < len(raw); {
		if max >= 0 && n >= max {
			break
		}
		c := raw[i]
		if c != '\\' {
			if c < utf8.RuneSelf {
				dst = append(dst, c)
				i++
			} else {
				r, size := utf8.DecodeRune(raw[i:])
				dst = utf8.AppendRune(dst, r)
				i += size
			}
			n++
			continue
		}
		if i+1 >= len(raw) {
			return dst, errors.New("string ends inside an escape")
		}
		e := raw[i+1]
		i += 2
		switch e {
		case '"', '\\', '/':
			dst = append(dst, e)
		case 'b':
			dst = append(dst, '\b')
		case 'f':
			dst = append(dst, '\f')
		case 'n':
			dst = append(dst, '\n')
		case 'r':
			dst = append(dst, '\r')
		case 't':
			dst = append(dst, '\t')
		case 'u':
			r1, ok := hex4(raw, i)
			if !ok {
				return dst, errors.New("bad \\u escape in string")
			}
			i += 4
			r := rune(r1)
			if utf16.IsSurrogate(r) {
				r = utf8.RuneError
				if r1 < 0xdc00 && i+6 <= len(raw) && raw[i] == '\\' && raw[i+1] == 'u' {
					if r2, ok := hex4(raw, i+2); ok && r2 >= 0xdc00 && r2 < 0xe000 {
						r = utf16.DecodeRune(rune(r1), rune(r2))
						i += 6
					}
				}
			}
			dst = utf8.AppendRune(dst, r)
		default:
			return dst, errors.New("bad escape \\" + string(rune(e)) + " in string")
		}
		n++
	}
	return dst, nil
}

func hex4(raw []byte, i int) (uint16, bool) {
	if i+4 > len(raw) {
		return 0, false
	}
	var v uint16
	for _, c := range raw[i : i+4] {
		switch {
		case c >= '0' && c <= '9':
			c -= '0'
		case c >= 'a' && c <= 'f':
			c -= 'a' - 10
		case c >= 'A' && c <= 'F':
			c -= 'A' - 10
		default:
			return 0, false
		}
		v = v<<4 | uint16(c)
	}
	return v, true
}

// rawLen returns the number of characters the raw string text decodes to
// (an escape counts as one), stopping at limit.
func rawLen(raw []byte, limit int) int {
	n := 0
	for i := 0; i < len(raw) && n < limit; n++ {
		c := raw[i]
		switch {
		case c == '\\' && i+1 < len(raw) && raw[i+1] == 'u':
			i += 6
		case c == '\\':
			i += 2
		case c < utf8.RuneSelf:
			i++
		default:
			_, size := utf8.DecodeRune(raw[i:])
			i += size
		}
	}
	return n
}

// fnv1a returns the 64-bit FNV-1a hash of b.
func fnv1a(b []byte) uint64 {
	h := uint64(14695981039346656037)
	for _, c := range b {
		h ^= uint64(c)
		h *= 1099511628211
	}
	return h
}

// prefixBytes returns s cut to at most n code points, counted as
// prefix counts them.
func prefixBytes(s []byte, n int) []byte {
	if len(s) <= n {
		return s
	}
	for i, k := 0, 0; k < len(s); i++ {
		if i == n {
			return s[:k]
		}
		_, size := utf8.DecodeRune(s[k:])
		k += size
	}
	return s
}

// prefix returns s cut to at most n code points.
func prefix(s string, n int) string {
	if len(s) <= n {
		return s
	}
	i := 0
	for k := range s {
		if i == n {
			return s[:k]
		}
		i++
	}
	return s
}

// weakMapTable parses an ephemeron edge name that V8 gives both edges of
// a WeakMap entry, "<n> / part of key (<key> @<id>) -> value (<value>
// @<id>) pair in WeakMap (table @<id>)", and returns the table's node id.
// The check matches DevTools' ephemeronNameRegex.
func weakMapTable(name string) (uint64, bool) {
	const mid, tail = " / part of key (", " pair in WeakMap (table @"
	i := 0
	for i < len(name) && name[i] >= '0' && name[i] <= '9' {
		i++
	}
	if i == 0 || !strings.HasPrefix(name[i:], mid) || !strings.HasSuffix(name, ")") {
		return 0, false
	}
	j := strings.LastIndex(name, tail)
	if j < 0 {
		return 0, false
	}
	body := name[i+len(mid) : j]
	if !strings.Contains(body, ") -> value (") || !strings.HasSuffix(body, ")") {
		return 0, false
	}
	id, err := strconv.ParseUint(name[j+len(tail):len(name)-1], 10, 64)
	return id, err == nil
}

// shortClass shortens a native node name the way DevTools does:
// "<div id=x>" becomes "<div>", "Detached <div id=x>" becomes
// "Detached <div>".
func shortClass(name string) string {
	switch {
	case strings.HasPrefix(name, "<"):
		if i := strings.IndexByte(name, ' '); i >= 0 {
			return name[:i] + ">"
		}
	case strings.HasPrefix(name, "Detached <"):
		if i := strings.IndexByte(name[10:], ' '); i >= 0 {
			return name[:10+i] + ">"
		}
	}
	return name
}

// closureClass names a closure after its function, as DevTools and
// memlab show it: "onRequest (closure)", "(anonymous) (closure)".
func closureClass(name string) string {
	if name == "" {
		name = "(anonymous)"
	}
	return name + " (closure)"
}

// syntheticClass names a synthetic node by its own name: "(GC roots)",
// "(Handle scope)", "C++ roots"; the nameless root is "(root)".
func syntheticClass(name string) string {
	if name == "" {
		return "(root)"
	}
	return name
}

// detachedClass names a native node that is detached from the DOM, as
// DevTools does: "Detached <div>".
func detachedClass(name string) string {
	if strings.HasPrefix(name, "Detached ") {
		return shortClass(name)
	}
	return "Detached " + shortClass(name)
}
