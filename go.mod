module github.com/heapscope/heapscope

// go 1.26: the pprof module below asks for it.
go 1.26.0

// goldmark is used by tests only, never by the binary: it renders the
// Markdown reports as a CommonMark renderer with GitHub's tables does, so
// that the tests see what a pull request comment would show.
require github.com/yuin/goldmark v1.8.7

// pprof's profile package writes --format pprof: profile.proto, gzipped,
// as go tool pprof, speedscope, Pyroscope and Grafana read it. It is the
// format's reference implementation, kept by the Go team's profiler
// authors, standard library only (its module's other requirements are
// for pprof's own command line, never built here); a hand-written
// protobuf encoder would be a second implementation of a format others
// define, to keep in step with them.
require github.com/google/pprof v0.0.0-20261105003125-4bf881d7fb0b
