// Package static holds the files of heapscope's pages: the page templates,
// the style sheet, the plain JavaScript that draws the pages (no build
// step), and the chart library, Apache ECharts (see echarts/README.md for
// its version, licence and why it was chosen). Package web serves them;
// package report inlines them into self-contained HTML reports.
package static

import (
	"embed"
	"io/fs"
	"strings"
)

//go:embed templates/*.html *.js *.css echarts
var files embed.FS

// FS returns the files: templates/*.html (html/template sources), the
// scripts and style sheet, and echarts/ with its licences.
func FS() fs.FS { return files }

// Public reports whether name (a path in [FS]) may be served as it is:
// every file but the templates.
func Public(name string) bool {
	return fs.ValidPath(name) && !strings.HasPrefix(name, "templates/") && name != "static.go"
}

// Read returns the content of name, which must exist.
func Read(name string) string {
	b, err := files.ReadFile(name)
	if err != nil {
		panic("static: " + err.Error())
	}
	return string(b)
}
