package hprof

import (
	"strings"
	"unicode/utf16"
	"unicode/utf8"
)

// decodeMUTF8 converts the JVM's modified UTF-8 (NUL as C0 80, characters
// outside the BMP as two 3-byte surrogates) to UTF-8. Malformed bytes
// become U+FFFD.
func decodeMUTF8(b []byte) string {
	if utf8.Valid(b) {
		return string(b)
	}
	var sb strings.Builder
	sb.Grow(len(b))
	for i := 0; i < len(b); {
		c := b[i]
		switch {
		case c < 0x80:
			sb.WriteByte(c)
			i++
		case c&0xE0 == 0xC0 && i+1 < len(b) && b[i+1]&0xC0 == 0x80:
			sb.WriteRune(rune(c&0x1F)<<6 | rune(b[i+1]&0x3F))
			i += 2
		case c&0xF0 == 0xE0 && i+2 < len(b) && b[i+1]&0xC0 == 0x80 && b[i+2]&0xC0 == 0x80:
			r := rune(c&0x0F)<<12 | rune(b[i+1]&0x3F)<<6 | rune(b[i+2]&0x3F)
			i += 3
			if utf16.IsSurrogate(r) && i+2 < len(b) && b[i] == 0xED && b[i+1]&0xC0 == 0x80 && b[i+2]&0xC0 == 0x80 {
				r2 := rune(b[i]&0x0F)<<12 | rune(b[i+1]&0x3F)<<6 | rune(b[i+2]&0x3F)
				if d := utf16.DecodeRune(r, r2); d != utf8.RuneError {
					r = d
					i += 3
				}
			}
			sb.WriteRune(r) // a lone surrogate becomes U+FFFD
		default:
			sb.WriteRune(utf8.RuneError)
			i++
		}
	}
	return sb.String()
}

// javaName converts a class name in the JVM's internal form to the form
// Java source uses: "java/util/HashMap" -> "java.util.HashMap",
// "[I" -> "int[]", "[[Ljava/lang/String;" -> "java.lang.String[][]".
// Hidden classes keep HotSpot's external spelling: the last '+' becomes
// '/' ("Foo$$Lambda$14+0x0800c0b238" -> "Foo$$Lambda$14/0x0800c0b238"),
// as Klass::external_name does. A malformed array descriptor is only
// converted with '/' -> '.'.
func javaName(internal string) string {
	dims := 0
	for dims < len(internal) && internal[dims] == '[' {
		dims++
	}
	if dims == 0 {
		return externalName(internal)
	}
	elem := internal[dims:]
	var base string
	switch {
	case len(elem) == 1:
		base = primDescriptor(elem[0])
	case len(elem) > 2 && elem[0] == 'L' && elem[len(elem)-1] == ';':
		base = externalName(elem[1 : len(elem)-1])
	}
	if base == "" {
		return strings.ReplaceAll(internal, "/", ".")
	}
	return base + strings.Repeat("[]", dims)
}

// externalName maps '/' to '.' and the last '+' to '/'.
func externalName(s string) string {
	s = strings.ReplaceAll(s, "/", ".")
	if i := strings.LastIndexByte(s, '+'); i >= 0 {
		s = s[:i] + "/" + s[i+1:]
	}
	return s
}

// primDescriptor returns the Java name of a one-letter type descriptor,
// or "" if c is not one.
func primDescriptor(c byte) string {
	switch c {
	case 'Z':
		return "boolean"
	case 'B':
		return "byte"
	case 'C':
		return "char"
	case 'S':
		return "short"
	case 'I':
		return "int"
	case 'J':
		return "long"
	case 'F':
		return "float"
	case 'D':
		return "double"
	}
	return ""
}
