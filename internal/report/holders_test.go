package report_test

import (
	"bytes"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/heapscope/heapscope/analyze"
	"github.com/heapscope/heapscope/heap"
	"github.com/heapscope/heapscope/internal/heaptest"
	"github.com/heapscope/heapscope/internal/report"
)

// registryHeap is a Python-like heap after n rounds of a factory that
// makes two classes a round (families app.u_* and app.m_*), keeps them
// in the module app's cache dict, and registers each in the module
// reg's set of classes too, as sympy's metaclass does.
func registryHeap(t *testing.T, n int) *heap.Graph {
	var b strings.Builder
	b.WriteString("runtime python\nroot module app app\nroot module reg reg\n")
	b.WriteString("app@0x100 module 72 -> __dict__=appdict\nappdict@0x200 dict 360 -> ._cache=cache\n")
	b.WriteString("reg@0x400 module 72 -> __dict__=regdict\nregdict@0x500 dict 360 -> .all_classes=all\n")
	var cache, all []string
	for i := 0; i < n; i++ {
		for _, fam := range []string{"u", "m"} {
			c := fmt.Sprintf("%s%d", fam, i)
			cache = append(cache, fmt.Sprintf("['%s_%d']=%s", fam, i, c))
			all = append(all, c)
			addr := 0x10000 + i*0x200
			if fam == "m" {
				addr += 0x100
			}
			fmt.Fprintf(&b, "%s@%x type 900 -> __mro__=mro%s\nname %s class app.%s_%d\n", c, addr, c, c, fam, i)
			fmt.Fprintf(&b, "mro%s@%x tuple 56\n", c, addr+0x80)
		}
	}
	fmt.Fprintf(&b, "cache@0x300 dict 640 -> %s\n", strings.Join(cache, " "))
	fmt.Fprintf(&b, "all@0x600 set 512 -> %s\n", strings.Join(all, " "))
	return heaptest.MustParse(t, b.String())
}

// TestLeakHoldersReport renders a finding of the classes of two
// families that a cache and a registry both hold, in every format, and
// why for one class: one finding, a part per family, both holders, and
// that removing one alone frees nothing.
func TestLeakHoldersReport(t *testing.T) {
	gs := []*heap.Graph{registryHeap(t, 2), registryHeap(t, 5), registryHeap(t, 8)}
	rep := analyze.Leaks(gs[0], gs[1], gs[2], analyze.LeakOptions{})
	srcs := []report.Source{source(gs[0], "a.pysnap"), source(gs[1], "b.pysnap"), source(gs[2], "c.pysnap")}
	var out bytes.Buffer
	for _, f := range []report.Format{report.Text, report.Markdown, report.JSON} {
		if err := report.Leaks(&out, f, srcs, gs[2], rep, rep.Findings); err != nil {
			t.Fatal(err)
		}
		out.WriteString("----\n")
	}
	text := out.String()
	for _, want := range []string{
		"#1  6 classes (app.m_*, app.u_*) in dict at module app._cache",
		"holders  2, and removing one alone frees nothing",
		"set at module reg.all_classes: holds 6, alone frees nothing",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("leaks does not say %q", want)
		}
	}
	g := gs[2]
	tree := analyze.Dominators(g, analyze.DomOptions{})
	paths := analyze.ShortestPaths(g, analyze.PathOptions{})
	objs := analyze.Select(g, analyze.Selector{Class: "app.u_5"})
	groups, unreached := analyze.MergePaths(paths, tree, objs)
	holders := analyze.GroupHolders(tree, paths, objs, groups, nil)
	for _, f := range []report.Format{report.Text, report.Markdown, report.JSON} {
		if err := report.Why(&out, f, srcs[2], g, "class:app.u_5", len(objs), groups, groups, holders, unreached); err != nil {
			t.Fatal(err)
		}
		out.WriteString("----\n")
	}
	heaptest.Golden(t, filepath.Join("testdata", "leak-holders.golden"), out.Bytes())
}

// TestHolderBoundText: a holder the snapshot records a limit of says
// so, and when none frees anything alone, the head says that the
// bounded ones let go in time.
func TestHolderBoundText(t *testing.T) {
	lru := &analyze.Bound{Kind: "lru_cache", Max: 1000, Filled: 1000}
	dq := &analyze.Bound{Kind: "maxlen", Max: 500, Filled: 20}
	for _, tc := range []struct {
		h    analyze.Holder
		want string
	}{
		{analyze.Holder{Group: -1}, ""},
		{analyze.Holder{Group: -1, Bound: lru}, "bounded, full and evicting: lru_cache maxsize 1,000, 1,000 filled"},
		{analyze.Holder{Group: -1, Bound: dq}, "bounded: deque maxlen 500, 20 filled"},
	} {
		if got := report.HolderBoundText(tc.h); got != tc.want {
			t.Errorf("HolderBoundText(%+v) = %q, want %q", tc.h.Bound, got, tc.want)
		}
	}
	hs := []analyze.Holder{{Group: 0}, {Group: -1, Bound: lru}, {Group: 1}}
	if got, want := report.HeldByText(hs, "finding"), "removing any one alone frees nothing now (1 of them is bounded, and lets go of what it holds as it evicts)"; !strings.HasSuffix(got, want) {
		t.Errorf("HeldByText = %q, want it to end %q", got, want)
	}
	hs[0].Bound = dq
	if got, want := report.HeldByText(hs, "finding"), "nothing now (2 of them are bounded, and let go of what they hold as they evict)"; !strings.HasSuffix(got, want) {
		t.Errorf("HeldByText = %q, want it to end %q", got, want)
	}
	hs[2].Frees = 3
	if got := report.HeldByText(hs, "finding"); strings.Contains(got, "frees nothing") {
		t.Errorf("HeldByText = %q: a holder frees 3", got)
	}
}

// TestLeaksSitesNote: when only the final snapshot records allocation
// sites, leaks says that what leaked was made before they were
// recorded, and from which snapshot on they are, in text and JSON.
func TestLeaksSitesNote(t *testing.T) {
	gs := []*heap.Graph{registryHeap(t, 2), registryHeap(t, 5), registryHeap(t, 8)}
	srcs := []report.Source{source(gs[0], "a.pysnap"), source(gs[1], "b.pysnap"), source(gs[2], "c.pysnap")}
	const note = "allocation sites: only c.pysnap records them, and what leaked was made before b.pysnap, before the recording began; leaks on three snapshots taken from c.pysnap on says where it is allocated"
	for _, from := range []int{-1, 0, 1, 2} {
		rep := analyze.Leaks(gs[0], gs[1], gs[2], analyze.LeakOptions{})
		if rep.SitesFrom != -1 {
			t.Fatalf("sites from %d in snapshots without sites", rep.SitesFrom)
		}
		rep.SitesFrom = from
		for _, f := range []report.Format{report.Text, report.JSON} {
			var out bytes.Buffer
			if err := report.Leaks(&out, f, srcs, gs[2], rep, rep.Findings); err != nil {
				t.Fatal(err)
			}
			if got := strings.Contains(out.String(), note); got != (from == 2) {
				t.Errorf("sites from %d, %v: says %v that what leaked was made before the recording:\n%s", from, f, got, out.String())
			}
		}
	}
}

// TestCheckNamesHoldingFinding: check's lines have no numbers and list
// no finding set aside as noise, so a finding held by the objects of
// another says which by what it is, not "finding #2" (a V8 string
// constant that two functions' compiled code made since the baseline
// hold: check said "held by the objects of finding #96" of express's).
func TestCheckNamesHoldingFinding(t *testing.T) {
	snap := func(codes string) *heap.Graph {
		return heaptest.MustParse(t, "runtime v8\nroot vm r (root)\nr@0x1 (root) 0 -> [1]=prog\nprog@0x3 Program 40 -> "+codes)
	}
	made := "[0]=c1 [1]=c2\nc1@0x11 Code 64 -> consts=s\nc2@0x13 Code 64 -> consts=s\ns@0x15 (string) 24\n"
	gs := []*heap.Graph{snap("\n"), snap(made), snap(made)}
	rep := analyze.Leaks(gs[0], gs[1], gs[2], analyze.LeakOptions{KeepNoise: true,
		Noise: []analyze.NoiseRule{{Name: "code", Type: "Code", Reason: "code"}}})
	var vs []report.Verdict
	for _, x := range rep.Findings {
		vs = append(vs, report.Verdict{Finding: x, Fail: x.Noise == ""})
	}
	srcs := []report.Source{source(gs[0], "a"), source(gs[1], "b"), source(gs[2], "c")}
	for _, f := range []report.Format{report.Text, report.JUnit} {
		var out bytes.Buffer
		if err := report.Check(&out, f, srcs, gs[2], rep, vs); err != nil {
			t.Fatal(err)
		}
		if want := "held by the objects of 2 Code in Program at (root)[1], set aside: code"; !strings.Contains(out.String(), want) || strings.Contains(out.String(), "finding #") {
			t.Errorf("check (%v) does not say %q:\n%s", f, want, out.String())
		}
	}
}
