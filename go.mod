module github.com/heapscope/heapscope

go 1.24

// goldmark is used by tests only, never by the binary: it renders the
// Markdown reports as a CommonMark renderer with GitHub's tables does, so
// that the tests see what a pull request comment would show.
require github.com/yuin/goldmark v1.8.7
