package main

import (
	"bytes"
	"encoding/json"
	"io"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// leakRows is what leaks --json says of each finding, as the tests of
// findings read it.
type leakRows struct {
	Rows []struct {
		Text     string `json:"text"`
		Type     string `json:"type"`
		Verdict  string `json:"verdict"`
		Count    int    `json:"count"`
		Retained uint64 `json:"retained_bytes"`
		Place    struct {
			Text string `json:"text"`
		} `json:"place"`
		Bound *struct {
			Kind    string `json:"kind"`
			Max     int    `json:"max"`
			Filled  int    `json:"filled"`
			Evicted int    `json:"evicted"`
		} `json:"bound"`
		Gains struct {
			New    [2]int  `json:"new"`
			Held   *[2]int `json:"held"`
			Inside *struct {
				Type string `json:"type"`
				New  int    `json:"new"`
				Held [2]int `json:"held"`
			} `json:"inside"`
		} `json:"gains"`
		Parts   []leakPart `json:"parts"`
		HeldBy  string     `json:"held_by"`
		Holders []struct {
			Text  string `json:"text"`
			Holds int    `json:"holds"`
			Frees int    `json:"frees"`
			Group int    `json:"group"`
			Bound *struct {
				Kind   string `json:"kind"`
				Max    int    `json:"max"`
				Filled int    `json:"filled"`
			} `json:"bound"`
			Bounded string `json:"bounded"`
		} `json:"holders"`
	} `json:"rows"`
}

// TestSympyHolders runs a real sympy program that leaks one class per
// field name into its own cache, which sympy's registry of classes
// (all_classes) holds too: leaks names both holders and says that
// removing one alone frees nothing, and the program's snapshot after
// clearing its cache shows that it freed nothing indeed. The classes of
// three families are one finding, a part per family, first; sympy's
// lru_caches, filling, are bounded and come after it.
func TestSympyHolders(t *testing.T) {
	py := debianPython(t, "sympy")
	dir := t.TempDir()
	var made struct {
		PerFamily []int `json:"per_family"`
	}
	if err := json.Unmarshal(runPythonWith(t, py, "symholders.py", dir), &made); err != nil {
		t.Fatal(err)
	}
	snap := func(n string) string { return filepath.Join(dir, n+".pysnap") }
	var rep leakRows
	runJSON(t, &rep, "leaks", "--json", "--top", "0", snap("a"), snap("b"), snap("c"))
	if len(rep.Rows) == 0 {
		t.Fatal("no finding")
	}
	first := rep.Rows[0]
	if first.Place.Text != "dict at module __main__._SymbolCache" || first.Verdict != "grows" {
		t.Errorf("first finding %q (%s), want the program's cache, growing", first.Text, first.Verdict)
	}
	leaked := made.PerFamily[1] - made.PerFamily[0]
	families := map[string]int{}
	for _, p := range first.Parts {
		if p.Classes != "" {
			families[p.Classes] += p.Count
		}
	}
	for _, fam := range []string{"__main__.u_*", "__main__.m_*", "__main__.damp_*"} {
		if families[fam] != leaked {
			t.Errorf("part of classes %s: %d, want %d; parts %+v", fam, families[fam], leaked, first.Parts)
		}
	}
	var cache, registry bool
	for _, h := range first.Holders {
		cache = cache || h.Text == "dict at module __main__._SymbolCache"
		registry = registry || h.Text == "set at module sympy.core.core.all_classes"
		if h.Frees != 0 {
			t.Errorf("holder %q alone frees %d, want nothing", h.Text, h.Frees)
		}
	}
	if !cache || !registry || !strings.Contains(first.HeldBy, "alone frees nothing") {
		t.Errorf("held by %q (%+v), want the cache and sympy's registry, and that removing one alone frees nothing", first.HeldBy, first.Holders)
	}
	lru := 0
	for i, r := range rep.Rows {
		if !strings.HasSuffix(r.Place.Text, "(lru_cache)") {
			continue
		}
		lru++
		if r.Verdict != "bounded" || r.Bound == nil || r.Bound.Kind != "lru_cache" || r.Bound.Max != 1000 || i == 0 {
			t.Errorf("finding #%d %q (%s, bound %+v), want a bounded lru_cache of maxsize 1000 after the leak", i+1, r.Text, r.Verdict, r.Bound)
		}
	}
	if lru == 0 {
		t.Errorf("no finding in sympy's lru_caches")
	}

	// The program cleared its cache: every class is alive still, and
	// why names the registry that keeps them.
	var why struct {
		Selected int `json:"selected"`
		Rows     []struct {
			Path   string `json:"path"`
			HeldBy string `json:"held_by"`
		} `json:"rows"`
	}
	runJSON(t, &why, "why", "--json", snap("d"), "class:__main__.u_*")
	if why.Selected != made.PerFamily[2] {
		t.Errorf("after clearing the cache, %d classes __main__.u_*, want all %d", why.Selected, made.PerFamily[2])
	}
	for _, r := range why.Rows {
		if strings.Contains(r.Path, "_SymbolCache") || !strings.Contains(r.Path+" "+r.HeldBy, "all_classes") {
			t.Errorf("after clearing the cache, held by %s (%s), want sympy's registry", r.Path, r.HeldBy)
		}
	}
	// Before, why names both holders of one class.
	runJSON(t, &why, "why", "--json", snap("c"), "class:__main__.u_20")
	if len(why.Rows) != 1 || !strings.Contains(why.Rows[0].HeldBy, "_SymbolCache") || !strings.Contains(why.Rows[0].HeldBy, "all_classes") {
		t.Errorf("why class:__main__.u_20: %+v, want both holders", why.Rows)
	}
}

// TestNodeTrimmedCache runs a real node program with a leak and a cache
// that its code trims, filling up to its bound between the snapshots:
// the leak comes first, growing; the cache after it, bounded, with the
// entries it evicted and the ones it holds.
func TestNodeTrimmedCache(t *testing.T) {
	if _, err := exec.LookPath("node"); err != nil {
		t.Skip("node is not installed")
	}
	dir := t.TempDir()
	if out, err := exec.Command("node", "--expose-gc", filepath.Join("testdata", "trimmed.js"), dir).CombinedOutput(); err != nil {
		t.Fatalf("node: %v\n%s", err, out)
	}
	snap := func(n string) string { return filepath.Join(dir, n+".heapsnapshot") }
	var rep leakRows
	runJSON(t, &rep, "leaks", "--json", "--top", "0", snap("baseline"), snap("target"), snap("final"))
	if len(rep.Rows) < 2 {
		t.Fatalf("findings %+v, want the leak and the cache", rep.Rows)
	}
	leak, cache := rep.Rows[0], rep.Rows[1]
	if leak.Type != "RequestContext" || leak.Count != 300 || leak.Verdict != "grows" {
		t.Errorf("first finding %q (%s), want the 300 RequestContexts, growing", leak.Text, leak.Verdict)
	}
	// The cache held 400 entries at target (100 + 300) and 500 at final:
	// the oldest 200 are gone, 200 of target's new ones are left.
	rendered := 0
	for _, p := range cache.Parts {
		if p.Type == "Rendered" {
			rendered += p.Count
		}
	}
	if cache.Type != "Rendered" || rendered != 200 || cache.Verdict != "bounded" || cache.Bound == nil ||
		cache.Bound.Kind != "evicts" || cache.Bound.Filled != 500 {
		t.Errorf("second finding %q (%s, bound %+v), want 200 Rendered in a cache that evicts, 500 held", cache.Text, cache.Verdict, cache.Bound)
	}
}

// TestSympyBoundedHolders runs a real sympy program that keeps every
// third derivative it computes in its own list, which sympy's caches of
// derivatives hold too: leaks names the list first, and says of each of
// sympy's lru_caches among the holders that it is bounded (maxsize
// 1000), so that the user sees which holder grows for good.
func TestSympyBoundedHolders(t *testing.T) {
	py := debianPython(t, "sympy")
	dir := t.TempDir()
	runPythonWith(t, py, "symresults.py", dir)
	snaps := []string{filepath.Join(dir, "a.pysnap"), filepath.Join(dir, "b.pysnap"), filepath.Join(dir, "c.pysnap")}
	var rep leakRows
	runJSON(t, &rep, append([]string{"leaks", "--json"}, snaps...)...)
	if len(rep.Rows) == 0 {
		t.Fatal("no finding")
	}
	first := rep.Rows[0]
	if first.Place.Text != "list at module __main__.results" || first.Verdict != "grows" {
		t.Fatalf("first finding %q (%s), want the program's list, growing", first.Text, first.Verdict)
	}
	list, lru := false, 0
	for _, h := range first.Holders {
		switch {
		case h.Text == "list at module __main__.results":
			list = true
			if h.Bound != nil || h.Bounded != "" {
				t.Errorf("the program's list is bounded: %+v %q", h.Bound, h.Bounded)
			}
		case strings.HasSuffix(h.Text, "(lru_cache)"):
			lru++
			if h.Bound == nil || h.Bound.Kind != "lru_cache" || h.Bound.Max != 1000 || h.Bound.Filled <= 0 ||
				!strings.HasPrefix(h.Bounded, "bounded") || !strings.Contains(h.Bounded, "lru_cache maxsize 1,000") {
				t.Errorf("holder %q: bound %+v, %q; want sympy's lru_cache, maxsize 1000", h.Text, h.Bound, h.Bounded)
			}
		}
	}
	if !list || lru == 0 {
		t.Errorf("holders %+v: want the list and sympy's lru_caches", first.Holders)
	}
	var out bytes.Buffer
	if err := run(append([]string{"leaks"}, snaps...), &out, io.Discard); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "(lru_cache): holds ") || !strings.Contains(out.String(), "alone frees nothing; bounded") {
		t.Errorf("the text does not say the caches are bounded:\n%s", out.String())
	}
}
