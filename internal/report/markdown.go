package report

import "strings"

// Markdown output is CommonMark with GitHub's tables (GFM), for pull
// request comments. Every name and path in it is text, never markup:
// "__main__" must not turn bold nor "[*]" into a link.

// mdEscape escapes s for an inline context (a table cell, or the rest
// of a line) so that a CommonMark renderer shows it literally: backslash
// escapes for the punctuation that can start emphasis, code spans,
// links, HTML and entities, GFM strikethrough and table cells, and
// GitHub's math ($). Line breaks become spaces.
func mdEscape(s string) string {
	var b strings.Builder
	b.Grow(len(s) + len(s)/8)
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch c {
		case '\\', '`', '*', '_', '[', ']', '<', '&', '|', '~', '$':
			b.WriteByte('\\')
		case '\n', '\r':
			c = ' '
		}
		b.WriteByte(c)
	}
	return b.String()
}

// mdLine escapes s for a line of its own (a paragraph, a heading or a
// list item's text): as [mdEscape], and what would start a block at the
// beginning of the line (a heading, quote, list, rule or setext
// underline) is escaped too.
func mdLine(s string) string {
	s = mdEscape(s)
	if s == "" {
		return s
	}
	switch s[0] {
	case '#', '>', '-', '+', '=':
		return "\\" + s
	}
	digits := 0
	for digits < len(s) && digits < 10 && s[digits] >= '0' && s[digits] <= '9' {
		digits++
	}
	if digits > 0 && digits < len(s) && (s[digits] == '.' || s[digits] == ')') &&
		(digits+1 == len(s) || s[digits+1] == ' ' || s[digits+1] == '\t') {
		return s[:digits] + "\\" + s[digits:] // "1. " would start a list
	}
	return s
}

// mdFence returns a code fence for text: a run of backticks longer than
// any run in text (at least three), so that no line of text closes it.
func mdFence(text string) string {
	longest, run := 0, 0
	for i := 0; i < len(text); i++ {
		if text[i] == '`' {
			run++
			longest = max(longest, run)
		} else {
			run = 0
		}
	}
	return strings.Repeat("`", max(3, longest+1))
}
