package analyze_test

import (
	"fmt"
	"math/rand"
	"strings"
	"testing"

	"github.com/heapscope/heapscope/analyze"
	"github.com/heapscope/heapscope/heap"
	"github.com/heapscope/heapscope/internal/heaptest"
)

// sitesText writes allocations as "FRAME xCOUNT BYTES" lines and the
// unknown ones, for comparison.
func sitesText(_ *heap.Graph, a *analyze.Allocations) string {
	if a == nil {
		return "<nil>"
	}
	var parts []string
	for _, s := range a.Sites {
		parts = append(parts, fmt.Sprintf("%s x%d %d", framesText(s.Stack), s.Count, s.Bytes))
	}
	if a.Unknown > 0 {
		parts = append(parts, fmt.Sprintf("unknown x%d %d", a.Unknown, a.UnknownBytes))
	}
	return strings.Join(parts, "; ")
}

// framesText writes frames as heaptest.StackText does.
func framesText(fs []analyze.Frame) string {
	var parts []string
	for _, f := range fs {
		p := fmt.Sprintf("%s:%d", f.File, f.Line)
		if f.Column != 0 {
			p += fmt.Sprintf(":%d", f.Column)
		}
		if f.Function != "" {
			p = f.Function + "@" + p
		}
		parts = append(parts, p)
	}
	return strings.Join(parts, " ")
}

const sitesHeap = `
root module app app
app module 72 -> __dict__=d
d dict 360 -> .cache=c .other=o
c list 100 -> [0]=a1 [1]=a2 [2]=a3 [3]=a4 [4]=b1
o list 100 -> [0]=x1
a1 app.Item 50
a2 app.Item 50
a3 app.Item 50
a4 app.Item 50
b1 app.Item 70
x1 app.Item 10
site a1 app.py:12 app.py:40
site a2 app.py:12 app.py:41
site a3 app.py:12 app.py:41
site b1 app.py:20 app.py:40
site c app.py:3
`

// TestAllocationSites merges stacks that end in the same frame, keeps
// the heaviest stack of each, ranks by bytes and counts what has no
// site.
func TestAllocationSites(t *testing.T) {
	g := heaptest.MustParse(t, sitesHeap)
	items := []heap.ObjectID{4, 5, 6, 7, 8, 9}
	got := sitesText(g, analyze.AllocationSites(g, items))
	want := "app.py:12 app.py:41 x3 150; app.py:20 app.py:40 x1 70; unknown x2 60"
	if got != want {
		t.Errorf("AllocationSites = %s\nwant %s", got, want)
	}
	// Why groups them by path, each with its sites.
	r := analyze.ShortestPaths(g, analyze.PathOptions{})
	groups, _ := analyze.MergePaths(r, analyze.Dominators(g, analyze.DomOptions{}), items)
	var lines []string
	for _, grp := range groups {
		lines = append(lines, fmt.Sprintf("%d: %s", grp.Count, sitesText(g, grp.Alloc)))
	}
	if got, want := strings.Join(lines, " | "), "5: app.py:12 app.py:41 x3 150; app.py:20 app.py:40 x1 70; unknown x1 50 | 1: unknown x1 10"; got != want {
		t.Errorf("MergePaths sites = %s\nwant %s", got, want)
	}
	// What the cache list retains was allocated at its own line and its
	// items'.
	tree := analyze.Dominators(g, analyze.DomOptions{})
	if got, want := sitesText(g, analyze.RetainedSites(tree, 2)), "app.py:12 app.py:41 x3 150; app.py:3 x1 100; app.py:20 app.py:40 x1 70; unknown x1 50"; got != want {
		t.Errorf("RetainedSites = %s\nwant %s", got, want)
	}
	ts := analyze.TypeSites(g, []string{"list", "app.Item"})
	if got, want := sitesText(g, ts[0])+" | "+sitesText(g, ts[1]), "app.py:3 x1 100; unknown x1 100 | "+want; got != want {
		t.Errorf("TypeSites = %s\nwant %s", got, want)
	}
	// A graph without sites says nothing.
	plain := heaptest.MustParse(t, "a dict 1\nroot module a m\n")
	if analyze.AllocationSites(plain, []heap.ObjectID{0}) != nil {
		t.Errorf("sites in a graph without any")
	}
}

// TestAllocationSitesOracle compares AllocationSites with a naive count
// on random graphs: by the innermost frame of the program's own code,
// or the innermost frame where every frame is a library's (site-packages
// or the standard library).
func TestAllocationSitesOracle(t *testing.T) {
	files := []string{"f.py", "/usr/lib/python3/dist-packages/lib.py", "/usr/lib/python3.11/json.py"}
	rng := rand.New(rand.NewSource(7))
	for trial := 0; trial < 200; trial++ {
		var b strings.Builder
		n := 1 + rng.Intn(40)
		for i := 0; i < n; i++ {
			fmt.Fprintf(&b, "o%d T %d\n", i, 1+rng.Intn(100))
			if rng.Intn(4) > 0 {
				fmt.Fprintf(&b, "site o%d %s:%d %s:%d\n", i, files[rng.Intn(3)], 1+rng.Intn(5), files[rng.Intn(3)], 100+rng.Intn(3))
			}
		}
		g := heaptest.MustParse(t, b.String())
		var objs []heap.ObjectID
		for i := 0; i < n; i++ {
			if rng.Intn(3) > 0 {
				objs = append(objs, heap.ObjectID(i))
			}
		}
		type acc struct {
			count int
			bytes uint64
		}
		naive := map[string]*acc{}
		unknown := 0
		for _, id := range objs {
			s := g.Site(id)
			if s == heap.NoSite {
				unknown++
				continue
			}
			stack := g.Stack(s, 0)
			key := stack[0]
			for _, f := range stack {
				if fn := g.String(f.File); !strings.Contains(fn, "-packages/") && !strings.Contains(fn, "/lib/python3") {
					key = f
					break
				}
			}
			l := fmt.Sprintf("%s:%d", g.String(key.File), key.Line)
			if naive[l] == nil {
				naive[l] = &acc{}
			}
			naive[l].count++
			naive[l].bytes += g.Size(id)
		}
		a := analyze.AllocationSites(g, objs)
		if a == nil {
			if g.HasSites() {
				t.Fatalf("trial %d: no allocations from a graph with sites", trial)
			}
			continue
		}
		if a.Unknown != unknown {
			t.Fatalf("trial %d: unknown %d, want %d", trial, a.Unknown, unknown)
		}
		keyOf := func(s analyze.SiteStat) string {
			f := s.Stack[0]
			if s.Program >= 0 {
				f = s.Stack[s.Program]
			}
			return fmt.Sprintf("%s:%d", f.File, f.Line)
		}
		for _, s := range a.Sites {
			want := naive[keyOf(s)]
			if want == nil || want.count != s.Count || want.bytes != s.Bytes {
				t.Fatalf("trial %d: %s x%d %d, want %+v", trial, keyOf(s), s.Count, s.Bytes, want)
			}
		}
		if len(a.Sites) != min(len(naive), analyze.MaxSites) {
			t.Fatalf("trial %d: %d sites, want %d", trial, len(a.Sites), min(len(naive), analyze.MaxSites))
		}
		// The kept sites are the heaviest.
		for l, x := range naive {
			kept := false
			for _, s := range a.Sites {
				kept = kept || keyOf(s) == l
			}
			if !kept && len(a.Sites) > 0 && x.bytes > a.Sites[len(a.Sites)-1].Bytes {
				t.Fatalf("trial %d: %s (%d bytes) left out for lighter ones", trial, l, x.bytes)
			}
		}
	}
}

// TestLeakSitesFromTarget: where final does not record where a leaked
// object was allocated (V8's tracker forgets some objects the collector
// moves), target, which had it too, tells.
func TestLeakSitesFromTarget(t *testing.T) {
	const head = "runtime python\nroot module app app\napp@0x100 module 72 -> __dict__=d\n"
	base := heaptest.MustParse(t, head+"d@0x200 dict 100 -> .cache=c\nc@0x300 list 50\nsite c app.py:3\n")
	target := heaptest.MustParse(t, head+"d@0x200 dict 100 -> .cache=c\nc@0x300 list 50 -> [0]=i1 [1]=i2\n"+
		"i1@0x1000 app.Item 40\ni2@0x1100 app.Item 40\nsite i1 app.py:12\nsite i2 app.py:12\n")
	final := heaptest.MustParse(t, head+"d@0x200 dict 100 -> .cache=c\nc@0x300 list 50 -> [0]=i1 [1]=i2 [2]=i3\n"+
		"i1@0x1000 app.Item 40\ni2@0x1100 app.Item 40\ni3@0x1200 app.Item 40\nsite i1 app.py:12\nsite i3 app.py:12\n")
	rep := analyze.Leaks(base, target, final, analyze.LeakOptions{})
	if len(rep.Findings) != 1 {
		t.Fatalf("%d findings", len(rep.Findings))
	}
	if got := sitesText(final, rep.Findings[0].Parts[0].Alloc); got != "app.py:12 x2 80" {
		t.Errorf("sites %s, want both leaked items at app.py:12", got)
	}
}

// TestFrameLibrary: which frames are a library's or the runtime's, by
// their file's path, and which the program's own.
func TestFrameLibrary(t *testing.T) {
	for file, want := range map[string]bool{
		"/usr/lib/python3/dist-packages/sympy/core/basic.py":       true,
		"/root/.pyenv/versions/3.12.1/lib/python3.12/copy.py":      true,
		"/srv/venv/lib/python3.11/site-packages/numpy/__init__.py": true,
		"<frozen runpy>":                                        true,
		"node:internal/timers":                                  true,
		"/srv/app/node_modules/express/lib/router.js":           true,
		"/usr/lib/python3/dist-packages/heapscope/leakcheck.py": true,
		"/srv/app/app.py":                                       false,
		"<string>":                                              false,
		"/srv/app/server.js":                                    false,
		"/srv/app/lib/python3_tools.py":                         false,
	} {
		if got := (analyze.Frame{File: file}).Library(); got != want {
			t.Errorf("Frame{File: %q}.Library() = %v, want %v", file, got, want)
		}
	}
}
