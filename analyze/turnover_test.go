package analyze_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/heapscope/heapscope/analyze"
	"github.com/heapscope/heapscope/heap"
	"github.com/heapscope/heapscope/internal/heaptest"
)

// TestLeaksTurnover is what sympy's lru_caches do to the three-snapshot
// rule, as in a real sympy run: a cache that holds its entries by
// unnamed references (a C container: functools.lru_cache) frees some
// and makes new ones at the freed addresses, so that identity (address,
// type, holder and reference name) takes each new Num for the old one
// at its address, and a Facts set on it for one of target's. In final,
// the Num at 0x300 is a third Num, whose Facts took the address of
// target's and has a dict of its own (new), the Num at 0x310 has none
// (a new one, its facts not asked yet) and the one at 0x320 got one:
// identity sees the place gain a Facts after target (on the Num at
// 0x320) and a dict below the Num at 0x300, which had gained before, so
// that no per-object bound covers it, and called it growing. The cache
// holds two Facts in target and in final: turnover, not growth. The
// same heaps with the Facts at 0x310 kept (three in final) still grow.
func TestLeaksTurnover(t *testing.T) {
	heapOf := func(facts map[int]string) *heap.Graph {
		var b strings.Builder
		b.WriteString("runtime python\nroot module app app\napp@0x100 module 72 -> .cache=cache\n")
		b.WriteString("cache@0x200 app.Cache 96 -> n0 n1 n2 n3\n")
		for i := range 4 {
			fmt.Fprintf(&b, "n%d@%x app.Num 48", i, 0x300+i*0x10)
			if d, ok := facts[i]; ok {
				// The Facts at the address its slot's first one had,
				// its dict wherever it was made.
				fmt.Fprintf(&b, " -> .facts=f%d\nf%d@%x app.Facts 200 -> __dict__=d%d\nd%d@%s dict 64", i, i, 0x1000+i*0x100, i, i, d)
			}
			b.WriteString("\n")
		}
		return heaptest.MustParse(t, b.String())
	}
	base := heapOf(nil)
	target := heapOf(map[int]string{0: "2000", 1: "2100"})
	for _, c := range []struct {
		name  string
		final map[int]string
		want  analyze.Verdict
	}{
		{"turnover", map[int]string{0: "3000", 2: "3200"}, analyze.Stopped},
		{"growth", map[int]string{0: "3000", 1: "2100", 2: "3200"}, analyze.Grows},
	} {
		rep := analyze.Leaks(base, target, heapOf(c.final), analyze.LeakOptions{})
		var got []string
		for _, f := range rep.Findings {
			got = append(got, fmt.Sprintf("%s %s %v held %v", what(f), f.Verdict, f.Gains.New, f.Gains.Held))
		}
		if len(rep.Findings) != 1 || what(rep.Findings[0]) != "app.Facts" {
			t.Fatalf("%s: findings %q, want one of app.Facts", c.name, got)
		}
		f := rep.Findings[0]
		// Identity sees gains after target in both: the counts decide.
		if f.Gains.New[1] <= 0 || f.Verdict != c.want {
			t.Errorf("%s: %q, want %s after gains by identity", c.name, got, c.want)
		}
		if h := f.Gains.Held; (c.want == analyze.Stopped) != (h != nil) || h != nil && *h != [2]int{2, 2} {
			t.Errorf("%s: %q, want two Facts held in target and in final when it stopped, and no count when it grows", c.name, got)
		}
	}
}
