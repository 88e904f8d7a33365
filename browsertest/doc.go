// Package browsertest drives heapscope's web page and HTML reports in a
// real browser (headless Chromium, through chromedp) on snapshots that
// real python3, node and java programs write: the views render, a click
// on the treemap and on a retainer path goes where it should, and
// nothing is loaded from anywhere but the local server (or, for the
// reports, the file itself).
//
// It is a module of its own so that chromedp and its dependencies stay
// out of heapscope's go.mod; test.sh runs it. Its tests skip when no
// Chromium is installed (Debian's chromium: apt-get install chromium).
// go test -run Screenshots -screenshots ../docs rewrites the README's
// pictures (docs/web-*.png).
package browsertest
