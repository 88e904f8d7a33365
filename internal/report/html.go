package report

import (
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"html/template"
	"io"
	"path/filepath"
	"strings"
	"sync"

	"github.com/heapscope/heapscope/internal/web/static"
)

// HTML is a self-contained HTML page, for top, leaks, check and trend:
// the report's JSON (the --json output, byte for byte) inlined in the
// page with the style sheet, the scripts that draw its tables and charts
// and the chart library, so that the one file can be a CI artifact or a
// pull request attachment. The page loads nothing: its
// Content-Security-Policy allows its own inline scripts (by hash) and
// nothing else.
const HTML Format = 101

// EchartsVersion is the version of the chart library in the pages.
const EchartsVersion = "6.1.0"

var (
	htmlOnce sync.Once
	htmlPage *template.Template
)

// htmlReport writes the page of one report: kind names it ("leaks"),
// srcs are its snapshots, and render writes its JSON.
func htmlReport(w io.Writer, kind string, srcs []Source, render func(io.Writer) error) error {
	var data bytes.Buffer
	if err := render(&data); err != nil {
		return err
	}
	htmlOnce.Do(func() {
		htmlPage = template.Must(template.ParseFS(static.FS(), "templates/report.html"))
	})
	// The JSON sits in a script element: "<" is escaped so that no
	// string in it can close the element. JSON.parse reads \u003c back.
	js := strings.ReplaceAll(strings.TrimSpace(data.String()), "<", `\u003c`)
	scripts := []string{static.Read("echarts/echarts.min.js"), static.Read("common.js"), static.Read("report.js")}
	policy := "default-src 'none'; style-src 'unsafe-inline'; img-src data:; base-uri 'none'; form-action 'none'; script-src"
	for _, s := range scripts {
		sum := sha256.Sum256([]byte(s))
		policy += " 'sha256-" + base64.StdEncoding.EncodeToString(sum[:]) + "'"
	}
	var names []string
	for _, s := range srcs {
		names = append(names, filepath.Base(s.Path))
	}
	return htmlPage.Execute(w, struct {
		Title, Kind, Policy, EchartsVersion string
		Style                               template.CSS
		Data, Echarts, Common, Report       template.JS
	}{
		Title: "heapscope " + kind + ": " + strings.Join(names, ", "), Kind: kind, Policy: policy,
		EchartsVersion: EchartsVersion,
		Style:          template.CSS(static.Read("style.css")),
		Data:           template.JS(js),
		Echarts:        template.JS(scripts[0]), Common: template.JS(scripts[1]), Report: template.JS(scripts[2]),
	})
}
