package main

import (
	"bytes"
	"encoding/json"
	"html"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/extension"
)

// markdownCases are the Markdown outputs with goldens: every command that
// writes Markdown, on the usual fixtures and on one whose names are
// Markdown syntax.
var markdownCases = []struct {
	name string
	args []string
}{
	{"summary-markdown", []string{"summary", "--format", "markdown", "testdata/after.pysnap"}},
	{"diff-markdown", []string{"diff", "--format=markdown", "testdata/before.pysnap", "testdata/after.pysnap"}},
	{"trend-markdown", []string{"trend", "--format", "markdown", "testdata/before.pysnap", "testdata/mid.pysnap", "testdata/after.pysnap"}},
	{"leaks-markdown", []string{"leaks", "--format", "markdown", "testdata/before.pysnap", "testdata/after.pysnap", "testdata/after.pysnap"}},
	{"top-markdown", []string{"top", "--format", "markdown", "--top", "3", "testdata/rich.pysnap"}},
	{"why-markdown", []string{"why", "--format", "markdown", "testdata/rich.pysnap", "str"}},
	{"retainers-markdown", []string{"retainers", "--format", "markdown", "testdata/rich.pysnap", "app.Item"}},
	{"refs-markdown", []string{"refs", "--format", "markdown", "testdata/rich.pysnap", "0x1300"}},
	{"markup-summary-markdown", []string{"summary", "--format", "markdown", mkAfter}},
	{"markup-diff-markdown", []string{"diff", "--format", "markdown", mkBefore, mkAfter}},
	{"markup-trend-markdown", []string{"trend", "--format", "markdown", mkBefore, mkAfter, mkAfter}},
	{"markup-leaks-markdown", []string{"leaks", "--format", "markdown", mkBefore, mkAfter, mkAfter}},
	{"markup-check-markdown", []string{"check", "--strict", "--format", "markdown", mkBefore, mkAfter, mkAfter}},
	{"markup-top-markdown", []string{"top", "--format", "markdown", mkAfter}},
	{"markup-tree-markdown", []string{"tree", "--format", "markdown", "--depth", "5", mkAfter}},
	{"markup-why-markdown", []string{"why", "--format", "markdown", mkAfter, "__main__.Session"}},
	{"markup-retainers-markdown", []string{"retainers", "--format", "markdown", "--depth", "3", mkAfter, "__main__.Session"}},
	{"markup-containers-markdown", []string{"containers", "--format", "markdown", mkAfter}},
	{"markup-duplicates-markdown", []string{"duplicates", "--format", "markdown", mkAfter}},
	{"duplicates-values-markdown", []string{"duplicates", "--format", "markdown", "testdata/values.pysnap"}},
	{"leaks-list-noise-markdown", []string{"leaks", "--list-noise", "--format", "markdown"}},
	{"fleet-trend-markdown", []string{"trend", "--format", "markdown", "testdata/fleet"}},
	{"fleet-leaks-markdown", []string{"leaks", "--format", "markdown", "testdata/fleet"}},
	{"leaks-sites-markdown", []string{"leaks", "--format", "markdown", "testdata/sites-before.pysnap", "testdata/sites-after.pysnap", "testdata/sites-after.pysnap"}},
}

const mkBefore, mkAfter = "testdata/markup-before.pysnap", "testdata/markup-after.pysnap"

func TestMarkdownGoldens(t *testing.T) {
	for _, tc := range markdownCases {
		t.Run(tc.name, func(t *testing.T) { golden(t, tc.name, tc.args...) })
	}
}

// TestMarkdownRenders renders every Markdown golden with a CommonMark
// renderer (goldmark, with GitHub's tables) and checks that the page
// shows every type, path and value of the same report's JSON literally:
// none turned into emphasis, a link, code, HTML or a broken table.
func TestMarkdownRenders(t *testing.T) {
	goldens, _ := filepath.Glob("testdata/*markdown*.golden")
	var covered []string
	md := goldmark.New(goldmark.WithExtensions(extension.GFM))
	for _, tc := range markdownCases {
		covered = append(covered, filepath.Join("testdata", tc.name+".golden"))
		t.Run(tc.name, func(t *testing.T) {
			var out, stderr bytes.Buffer
			run(tc.args, &out, &stderr) // check fails on a leak: the output is what matters
			var page bytes.Buffer
			if err := md.Convert(out.Bytes(), &page); err != nil {
				t.Fatal(err)
			}
			text := pageText(page.String())
			for _, want := range jsonNames(t, tc.args) {
				if !strings.Contains(text, want) {
					t.Errorf("the rendered page does not show %q:\n%s\nfrom Markdown:\n%s", want, page.String(), out.String())
				}
			}
			// Only what heapscope means as markup may be markup: tables,
			// headings, check's bold verdict and list, tree's code block.
			for _, tag := range []string{"<em>", "<del>", "<a ", "<img", "<blockquote>", "<ol", "<h1>", "<h2>", "<script"} {
				if strings.Contains(page.String(), tag) {
					t.Errorf("the rendered page has %s:\n%s", tag, page.String())
				}
			}
			if !strings.HasPrefix(tc.name, "markup-tree") && strings.Contains(page.String(), "<code>") {
				t.Errorf("the rendered page has code:\n%s", page.String())
			}
			rows := 0 // table rows written, headers included
			for _, line := range strings.Split(out.String(), "\n") {
				if strings.HasPrefix(line, "|") && !strings.HasPrefix(line, "| --") {
					rows++
				}
			}
			if got := strings.Count(page.String(), "<tr>"); got != rows {
				t.Errorf("%d table rows rendered of %d written", got, rows)
			}
		})
	}
	for _, g := range goldens {
		if !slices.Contains(covered, g) {
			t.Errorf("%s is not rendered by this test: add it to markdownCases", g)
		}
	}
}

// pageText is the text a browser shows for an HTML page: the tags
// dropped, the entities decoded.
func pageText(page string) string {
	return html.UnescapeString(regexp.MustCompile(`<[^>]*>`).ReplaceAllString(page, ""))
}

// jsonNames runs args with --json instead of the Markdown format and
// returns the names the report must show: every "type", "path",
// "value" and "finding" (a row of leaks over many processes) string (but
// for the steps of sample paths, which show as a whole "text").
func jsonNames(t *testing.T, args []string) []string {
	t.Helper()
	var ja []string
	for i := 0; i < len(args); i++ {
		switch {
		case args[i] == "--format":
			i++
		case strings.HasPrefix(args[i], "--format="):
		default:
			ja = append(ja, args[i])
		}
	}
	ja = append(ja, "--json")
	var out, stderr bytes.Buffer
	run(ja, &out, &stderr)
	var v any
	if err := json.Unmarshal(out.Bytes(), &v); err != nil {
		t.Fatalf("heapscope %s: %v\n%s", strings.Join(ja, " "), err, stderr.String())
	}
	var names []string
	var walk func(key string, v any)
	walk = func(key string, v any) {
		switch x := v.(type) {
		case map[string]any:
			for k, e := range x {
				// Text and Markdown give the unreachable objects as a
				// count, JSON by type too.
				if k != "steps" && k != "snapshots" && k != "snapshot" && k != "before" && k != "after" && k != "unreachable_types" {
					walk(k, e)
				}
			}
		case []any:
			for _, e := range x {
				walk(key, e)
			}
		case string:
			if (key == "type" || key == "path" || key == "value" || key == "finding") && x != "" {
				names = append(names, x)
			}
		}
	}
	walk("", v)
	if len(names) == 0 {
		t.Fatalf("heapscope %s names nothing", strings.Join(ja, " "))
	}
	return names
}
