package report

import (
	"bytes"
	"html"
	"regexp"
	"strings"
	"testing"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/extension"
)

// render renders Markdown as GitHub does (CommonMark and its tables) and
// returns the text a browser shows.
func render(t *testing.T, md string) string {
	t.Helper()
	var page bytes.Buffer
	if err := goldmark.New(goldmark.WithExtensions(extension.GFM)).Convert([]byte(md), &page); err != nil {
		t.Fatal(err)
	}
	text := regexp.MustCompile(`<[^>]*>`).ReplaceAllString(page.String(), "")
	return strings.TrimSpace(html.UnescapeString(text))
}

var markupNames = []string{
	"__main__", "module __main__ -> .cache dict -> [*] app.Item", "*args", "**kwargs",
	"a|b", "<script>", "`tick`", "``", "$x$", "~~strike~~", "&amp;", "&#32;", `back\slash`,
	"# heading", "## x", "> quote", "- item", "+ item", "* item", "1. one", "10) ten",
	"2026.12.03", "---", "===", "-", "_", "[link](http://x)", "![img](x)", "<http://x>",
	"Leaky$Session Leaky$Entry", "a\\*b", "x_y_z", "tab\there",
}

// TestMarkdownLiteral renders escaped names as a paragraph and as a table
// cell: the page shows each exactly as it is.
func TestMarkdownLiteral(t *testing.T) {
	for _, s := range markupNames {
		if got := render(t, mdLine(s)); got != strings.TrimSpace(s) {
			t.Errorf("paragraph %q renders as %q (Markdown %q)", s, got, mdLine(s))
		}
		var b bytes.Buffer
		tb := Table{Columns: []Column{{"name", false}, {"n", true}}}
		tb.Add(s, "1")
		if err := tb.Write(&b, Markdown); err != nil {
			t.Fatal(err)
		}
		var page bytes.Buffer
		goldmark.New(goldmark.WithExtensions(extension.GFM)).Convert(b.Bytes(), &page)
		cells := regexp.MustCompile(`(?s)<td[^>]*>(.*?)</td>`).FindAllStringSubmatch(page.String(), -1)
		if len(cells) != 2 || html.UnescapeString(cells[0][1]) != strings.TrimSpace(s) || cells[1][1] != "1" {
			t.Errorf("table cell %q renders as %s (Markdown %q)", s, page.String(), b.String())
		}
	}
}

func TestMarkdownFence(t *testing.T) {
	for _, text := range []string{"plain\n", "a ``` b\n", "````\n", "x`y\n"} {
		f := mdFence(text)
		if got := render(t, f+"\n"+text+f+"\n"); got != strings.TrimSpace(text) {
			t.Errorf("fenced %q renders as %q", text, got)
		}
	}
}
