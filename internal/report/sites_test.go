package report

import (
	"strings"
	"testing"

	"github.com/heapscope/heapscope/analyze"
)

// TestWritePartSites: the parts of a finding that were allocated at one
// site share its line, each part type once with its objects summed, in
// the order the parts first name the sites; what was not recorded comes
// last.
func TestWritePartSites(t *testing.T) {
	site := func(fn string, line uint32, n int, b uint64) analyze.SiteStat {
		return analyze.SiteStat{Stack: []analyze.Frame{{Function: fn, File: "app.py", Line: line}}, Count: n, Bytes: b}
	}
	part := func(typ string, unknown int, sites ...analyze.SiteStat) analyze.LeakPart {
		p := analyze.LeakPart{Type: typ}
		p.Alloc = &analyze.Allocations{Sites: sites, Unknown: unknown, UnknownBytes: uint64(unknown) * 64}
		return p
	}
	parts := []analyze.LeakPart{
		part("Add", 0, site("work", 9, 30, 1900), site("work", 11, 30, 1900)),
		part("Add", 0, site("work", 11, 30, 1900)),
		part("Rational", 0, site("work", 9, 142, 10000)),
		part("dict", 1),
		part("int", 2, site("make", 3, 1, 28)),
	}
	var b strings.Builder
	if err := writePartSites(&b, parts, "    ", "allocated at"); err != nil {
		t.Fatal(err)
	}
	want := "" +
		"    allocated at  work (app.py:9)  (30 Add, 142 Rational; 11.6 KiB)\n" +
		"                  work (app.py:11)  (60 Add, 3.7 KiB)\n" +
		"                  make (app.py:3)  (1 int, 28 B)\n" +
		"                  not recorded  (1 dict, 2 int; 192 B)\n"
	if b.String() != want {
		t.Errorf("got\n%s\nwant\n%s", b.String(), want)
	}
}
