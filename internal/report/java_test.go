package report_test

import (
	"bytes"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/heapscope/heapscope/analyze"
	"github.com/heapscope/heapscope/heap"
	"github.com/heapscope/heapscope/internal/heaptest"
	"github.com/heapscope/heapscope/internal/report"
)

// javaHeap is a small Java-like heap after n requests: the class loader
// holds the classes app.SessionCache (whose static CACHE map keeps every
// request's context, every third node chained in its bucket) and app.Log
// (a static list of n strings); a sticky JDK class holds a few strings.
func javaHeap(t *testing.T, n int) *heap.Graph {
	var b strings.Builder
	b.WriteString(`runtime java
root global loader jni global
root class sys sticky class
sys java.lang.Class 160 -> props=p
name sys class java.lang.System
p java.util.Properties 64
loader jdk.internal.loader.ClassLoaders$AppClassLoader 96 -> classes=cl
cl java.util.ArrayList 24 -> elementData=ca
ca java.lang.Object[] 32 -> [0]=cache [1]=log
cache java.lang.Class 120 -> CACHE=map internal:<classloader>=loader
name cache class app.SessionCache
log java.lang.Class 104 -> LINES=lines internal:<classloader>=loader
name log class app.Log
map java.util.HashMap 48 -> table=tab
lines java.util.ArrayList 24 -> elementData=la
`)
	var slots, items []string
	for i := 0; i < n; i++ {
		if i%3 != 1 {
			slots = append(slots, fmt.Sprintf("[%d]=n%d", i, i))
		}
		next := ""
		if i%3 == 0 && i+1 < n {
			next = fmt.Sprintf(" next=n%d", i+1)
		}
		fmt.Fprintf(&b, "n%d@%x java.util.HashMap$Node 32 -> key=k%d value=v%d%s\n", i, 0x10000+i*0x100, i, i, next)
		fmt.Fprintf(&b, "k%d@%x java.lang.String 24\nvalue k%d req-%d\n", i, 0x10020+i*0x100, i, i)
		fmt.Fprintf(&b, "v%d@%x app.RequestContext 24 -> body=d%d\n", i, 0x10040+i*0x100, i)
		fmt.Fprintf(&b, "d%d@%x byte[] 2064\n", i, 0x10060+i*0x100)
		items = append(items, fmt.Sprintf("[%d]=s%d", i, i))
		fmt.Fprintf(&b, "s%d@%x java.lang.String 40\nvalue s%d served %d\n", i, 0x90000+i*0x40, i, i)
	}
	fmt.Fprintf(&b, "tab java.util.HashMap$Node[] 272 -> %s\n", strings.Join(slots, " "))
	fmt.Fprintf(&b, "la java.lang.Object[] 216 -> %s\n", strings.Join(items, " "))
	return heaptest.MustParse(t, b.String())
}

func source(g *heap.Graph, path string) report.Source {
	return report.Source{Path: path, Overview: analyze.Describe(g)}
}

// TestJavaTop renders top, tree and why on the Java-like heap in every
// format: class objects are named after their class, paths through static
// fields show the class then the field, and the leak suspect names the
// contexts, the map and the static field that holds it.
func TestJavaTop(t *testing.T) {
	g := javaHeap(t, 12)
	tree := analyze.Dominators(g, analyze.DomOptions{})
	paths := analyze.ShortestPaths(g, analyze.PathOptions{})
	var d report.TopData
	d.SuspectShare = analyze.DefaultSuspectShare
	for _, s := range analyze.Suspects(tree, analyze.SuspectOptions{}) {
		r := report.SuspectRow{Suspect: s}
		if s.Members == nil {
			r.Path, _ = paths.Path(s.Holder)
		} else {
			r.Groups, _ = analyze.MergePaths(paths, tree, s.Members)
		}
		d.Suspects = append(d.Suspects, r)
	}
	var top []report.TopObject
	ids := analyze.TopRetained(tree, 5)
	for _, id := range ids {
		p, _ := paths.Path(id)
		top = append(top, report.TopObject{Object: id, Chain: analyze.DominatorChain(tree, id), Path: p})
	}
	d.Objects, d.ObjectsShown = slices.Values(top), len(top)
	d.Paths, d.Context = paths, analyze.Context(tree, paths, ids)
	d.ObjectsTotal = tree.NumReachable()
	d.Types = analyze.RetainedByType(tree)[:4]
	d.TypesTotal = g.NumTypes()
	src := source(g, "app.hprof")
	var out bytes.Buffer
	for _, f := range []report.Format{report.Text, report.Markdown, report.JSON} {
		if err := report.Top(&out, f, src, tree, d); err != nil {
			t.Fatal(err)
		}
		out.WriteString("----\n")
	}
	lines := analyze.TreeView(tree, analyze.SuperRoot, analyze.TreeOptions{MaxDepth: 6, MinRetained: 1000})
	if err := report.Tree(&out, report.Text, src, tree, lines); err != nil {
		t.Fatal(err)
	}
	out.WriteString("----\n")
	objs := analyze.Select(g, analyze.Selector{Type: "app.RequestContext"})
	groups, unreached := analyze.MergePaths(paths, tree, objs)
	holders := analyze.GroupHolders(tree, paths, objs, groups, nil)
	if err := report.Why(&out, report.Text, src, g, "app.RequestContext", len(objs), groups, groups, holders, unreached); err != nil {
		t.Fatal(err)
	}
	heaptest.Golden(t, filepath.Join("testdata", "java-top.golden"), out.Bytes())
}

// TestJavaLeaks renders the leaks of the Java-like heap after 4, 8 and
// 12 requests in every format: the finding names the contexts the map's
// nodes hold, all twelve of them (the chained nodes too), the map and the
// static field that holds it.
func TestJavaLeaks(t *testing.T) {
	gs := []*heap.Graph{javaHeap(t, 4), javaHeap(t, 8), javaHeap(t, 12)}
	rep := analyze.Leaks(gs[0], gs[1], gs[2], analyze.LeakOptions{})
	srcs := []report.Source{source(gs[0], "baseline.hprof"), source(gs[1], "target.hprof"), source(gs[2], "final.hprof")}
	var out bytes.Buffer
	for _, f := range []report.Format{report.Text, report.Markdown, report.JSON} {
		if err := report.Leaks(&out, f, srcs, gs[2], rep, rep.Findings); err != nil {
			t.Fatal(err)
		}
		out.WriteString("----\n")
	}
	heaptest.Golden(t, filepath.Join("testdata", "java-leaks.golden"), out.Bytes())
}
