package analyze_test

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/heapscope/heapscope/analyze"
	"github.com/heapscope/heapscope/heap"
	"github.com/heapscope/heapscope/internal/heaptest"
)

// leakHeap is a Python-like heap after `round` rounds of a workload that
// adds one Item to a module-level cache each round (the leak), keeps one
// Temp per round only until the next (churn), and fills the re module's
// cache once, in round 1 (noise). Churn objects reuse the same addresses.
func leakHeap(t *testing.T, round int, runtime string) *heap.Graph {
	var b strings.Builder
	fmt.Fprintf(&b, "runtime %s\nroot module app app\nroot module re re\n", runtime)
	var cache, recache []string
	for i := 0; i < round; i++ {
		cache = append(cache, fmt.Sprintf("['k%d']=item%d", i, i))
	}
	if round >= 1 {
		recache = append(recache, "['p']=pat")
	}
	fmt.Fprintf(&b, "app@0x100 module 72 -> __dict__=appdict\n")
	fmt.Fprintf(&b, "appdict@0x200 dict 360 -> .cache=cache .tmp=tmp\n")
	fmt.Fprintf(&b, "cache@0x300 dict 640 -> %s\n", strings.Join(cache, " "))
	for i := 0; i < round; i++ {
		fmt.Fprintf(&b, "item%d@%x app.Item 56 -> .payload=buf%d\n", i, 0x10000+i*0x100, i)
		fmt.Fprintf(&b, "buf%d@%x bytes 1000\n", i, 0x10080+i*0x100)
	}
	// The churn object of this round sits where last round's was.
	fmt.Fprintf(&b, "tmp@0x400 app.Temp 48\n")
	fmt.Fprintf(&b, "re@0x500 module 72 -> __dict__=redict\n")
	fmt.Fprintf(&b, "redict@0x600 dict 360 -> ._cache=recache\n")
	fmt.Fprintf(&b, "recache@0x700 dict 232 -> %s\n", strings.Join(recache, " "))
	if round >= 1 {
		fmt.Fprintf(&b, "pat@0x800 re.Pattern 200\n")
	}
	return heaptest.MustParse(t, b.String())
}

// what names what a finding mostly is: its biggest part's elements, or
// type.
func what(f analyze.LeakFinding) string {
	if len(f.Parts) == 0 {
		return ""
	}
	if p := f.Parts[0]; p.Element != "" {
		return p.Element
	}
	return f.Parts[0].Type
}

func TestLeaksThreeSnapshots(t *testing.T) {
	// Baseline after round 0; the re cache fills in round 1; target after
	// round 2; final after round 4.
	base, target, final := leakHeap(t, 0, "python"), leakHeap(t, 2, "python"), leakHeap(t, 4, "python")
	rep := analyze.Leaks(base, target, final, analyze.LeakOptions{})
	if rep.Mode != analyze.IdentityAddress {
		t.Errorf("Mode = %s", rep.Mode)
	}
	var got []string
	for _, f := range rep.Findings {
		got = append(got, fmt.Sprintf("%s x%d retained %d %s", what(f), f.Count, f.Retained, f.Verdict))
	}
	// item0, item1 and their buffers are new in target and alive in final.
	// The items dominate their buffers: one finding, which retains both.
	// The cache gained two items from target to final too: it grows.
	want := "app.Item x2 retained 2112 grows"
	if strings.Join(got, "|") != want {
		t.Errorf("findings = %q, want %q", strings.Join(got, "|"), want)
	}
	// New and alive: the two items, their buffers and the re pattern.
	if rep.New != 5 || rep.Leaked != 5 || rep.Held != 2 {
		t.Errorf("new %d, leaked %d, held %d; want 5, 5, 2", rep.New, rep.Leaked, rep.Held)
	}
	if rep.Suppressed != 1 || rep.SuppressedObjects != 1 {
		t.Errorf("suppressed %d groups (%d objects), want the re cache's 1 (1)", rep.Suppressed, rep.SuppressedObjects)
	}
	// Keeping the noise shows the re cache entry, marked.
	rep = analyze.Leaks(base, target, final, analyze.LeakOptions{KeepNoise: true})
	noisy := 0
	for _, f := range rep.Findings {
		if f.Noise == "python-re-cache" {
			noisy++
		}
	}
	if noisy != 1 {
		t.Errorf("KeepNoise: %d findings marked python-re-cache, want 1", noisy)
	}
}

func TestLeaksWithoutIdentity(t *testing.T) {
	base, target, final := leakHeap(t, 0, "java"), leakHeap(t, 2, "java"), leakHeap(t, 4, "java")
	rep := analyze.Leaks(base, target, final, analyze.LeakOptions{})
	if rep.Mode != analyze.IdentityNone {
		t.Fatalf("Mode = %s", rep.Mode)
	}
	var got []string
	for _, f := range rep.Findings {
		got = append(got, fmt.Sprintf("%s x%d %v %s", what(f), f.Count, f.Gains.Counts, f.Verdict))
	}
	// Python's noise catalogue does not apply to a Java heap: the pattern
	// stays, after the items, for it stopped growing. The buffers are in
	// the items' retained sizes.
	want := "app.Item x4 [0 2 4] grows|re.Pattern x1 [0 1 1] stopped"
	if strings.Join(got, "|") != want {
		t.Errorf("findings = %q, want %q", strings.Join(got, "|"), want)
	}
}

func TestTrendAll(t *testing.T) {
	for _, runtime := range []string{"python", "java"} {
		snaps := []*heap.Graph{leakHeap(t, 1, runtime), leakHeap(t, 2, runtime), leakHeap(t, 3, runtime)}
		rep := analyze.TrendAll(snaps)
		var paths []string
		for _, p := range rep.Paths {
			paths = append(paths, fmt.Sprintf("%s %v", p.Type, p.Counts))
		}
		// Items and their buffers grow through the cache, one per round.
		if got, want := strings.Join(paths, "|"), "app.Item [1 2 3]|bytes [1 2 3]"; got != want {
			t.Errorf("%s: path trends = %q, want %q", runtime, got, want)
		}
		if runtime != "python" {
			continue // the fixture's containers are Python's
		}
		var colls []string
		for _, c := range rep.Collections {
			colls = append(colls, fmt.Sprintf("%s %v", c.Type, c.Entries))
		}
		// The cache dict grows every round; the re cache does not.
		if got, want := strings.Join(colls, "|"), "dict [1 2 3]"; got != want {
			t.Errorf("%s: unbounded collections = %q, want %q", runtime, got, want)
		}
	}
}

// cacheHeap is a heap whose module-level cache leaks one Item per
// round, beside a bounded cache (module app's .lru) that
// holds min(round, 3) Entry objects, each round's newest.
func cacheHeap(t *testing.T, round int) *heap.Graph {
	var b strings.Builder
	fmt.Fprintf(&b, "runtime python\nroot module app app\n")
	var lru, items []string
	for i := max(0, round-3); i < round; i++ {
		lru = append(lru, fmt.Sprintf("['e%d']=e%d", i, i))
		items = append(items, fmt.Sprintf("e%d@%x app.Entry 64", i, 0x90000+i*0x40))
	}
	var cache []string
	for i := 0; i < round; i++ {
		cache = append(cache, fmt.Sprintf("['k%d']=item%d", i, i))
	}
	fmt.Fprintf(&b, "app@0x100 module 72 -> __dict__=appdict\n")
	fmt.Fprintf(&b, "appdict@0x200 dict 360 -> .cache=cache .lru=lru\n")
	fmt.Fprintf(&b, "cache@0x300 dict 640 -> %s\n", strings.Join(cache, " "))
	for i := 0; i < round; i++ {
		fmt.Fprintf(&b, "item%d@%x app.Item 56\n", i, 0x10000+i*0x100)
	}
	fmt.Fprintf(&b, "lru@0x380 dict 120 -> %s\n", strings.Join(lru, " "))
	b.WriteString(strings.Join(items, "\n") + "\n")
	return heaptest.MustParse(t, b.String())
}

func TestLeaksScaling(t *testing.T) {
	// Snapshots after 2, 4 and 6 rounds: the cache leaks 2 items per
	// interval; the bounded lru holds its 3 newest entries, new ones each
	// time, but its count does not grow.
	a, b, c := cacheHeap(t, 2), cacheHeap(t, 4), cacheHeap(t, 6)
	plain := analyze.Leaks(a, b, c, analyze.LeakOptions{})
	scaled := analyze.Leaks(a, b, c, analyze.LeakOptions{Scaling: true})
	types := func(rep analyze.LeakReport) string {
		var s []string
		for _, f := range rep.Findings {
			s = append(s, fmt.Sprintf("%s%v", what(f), f.Gains.Counts))
		}
		return strings.Join(s, "|")
	}
	// Entry e3 was made between a and b and is still in the lru at c:
	// the plain rule reports it; scaling sets it aside.
	if got := types(plain); !strings.Contains(got, "app.Entry") || !strings.Contains(got, "app.Item") {
		t.Errorf("plain findings = %q, want app.Item and app.Entry", got)
	}
	if got, want := types(scaled), "app.Item[2 4 6]"; got != want {
		t.Errorf("scaling findings = %q, want %q", got, want)
	}
	if scaled.NotScaling != 1 {
		t.Errorf("NotScaling = %d, want 1", scaled.NotScaling)
	}
	// The lru dropped e0 and e1 from target to final: it is bounded,
	// and ranks after the cache that grows.
	if n := len(plain.Findings); n != 2 || plain.Findings[1].Verdict != analyze.Bounded || plain.Findings[1].Bound.Evicted != 2 {
		t.Errorf("plain findings %+v, want the lru second, bounded, 2 entries evicted", plain.Findings)
	}
}

// javaMapHeap is a Java heap after n requests, each of which put an
// app.Session in the static HashMap app.Cache.SESSIONS; every third node
// is chained to the one before it in its bucket, as colliding keys are.
func javaMapHeap(t *testing.T, n int) *heap.Graph {
	var b strings.Builder
	b.WriteString("runtime java\nroot class cls sticky class\n")
	b.WriteString("cls java.lang.Class 100 -> SESSIONS=map\nname cls class app.Cache\n")
	b.WriteString("map java.util.HashMap 48 -> table=tab\n")
	var slots []string
	for i := 0; i < n; i++ {
		next := ""
		if i%3 == 0 && i+1 < n {
			next = fmt.Sprintf(" next=n%d", i+1)
		}
		if i%3 != 1 {
			slots = append(slots, fmt.Sprintf("[%d]=n%d", i, i))
		}
		fmt.Fprintf(&b, "n%d java.util.HashMap$Node 32 -> key=k%d value=v%d%s\n", i, i, i, next)
		fmt.Fprintf(&b, "k%d java.lang.String 24\nv%d app.Session 40\n", i, i)
	}
	fmt.Fprintf(&b, "tab java.util.HashMap$Node[] 272 -> %s\n", strings.Join(slots, " "))
	return heaptest.MustParse(t, b.String())
}

// TestLeaksJavaMapEntries: without object identities (HPROF), a static
// map that grows is one finding that counts every node, the chained ones
// too, names the sessions the nodes hold, and points at the map.
func TestLeaksJavaMapEntries(t *testing.T) {
	rep := analyze.Leaks(javaMapHeap(t, 10), javaMapHeap(t, 20), javaMapHeap(t, 30), analyze.LeakOptions{})
	if rep.Mode != analyze.IdentityNone || len(rep.Findings) != 1 {
		t.Fatalf("mode %s, findings %+v; want one finding without identities", rep.Mode, rep.Findings)
	}
	f := rep.Findings[0]
	p := f.Parts[0]
	if len(f.Parts) != 1 || p.Type != "java.util.HashMap$Node" || p.Element != "app.Session" || f.Count != 30 || f.Gains.New != [2]int{10, 10} {
		t.Errorf("finding %+v; want 30 java.util.HashMap$Node holding app.Session, grown by 10 and 10", f)
	}
	steps := f.Place.Path.Steps
	if n := len(steps); n < 2 || steps[n-1].Type != "java.util.HashMap" || steps[n-2].Name != "class app.Cache" {
		t.Errorf("place %+v, want the HashMap held by class app.Cache", steps)
	}
	if want := uint64(30 * (32 + 24 + 40)); f.Retained != want {
		t.Errorf("retained %d, want %d (every node with its key and value, once)", f.Retained, want)
	}
}

// TestBlinkNoise checks that detached DOM nodes Blink holds for itself
// (here through its style engine) are set aside, and those the page's
// JavaScript holds are not.
func TestBlinkNoise(t *testing.T) {
	snap := func(n int) *heap.Graph {
		var b strings.Builder
		b.WriteString("runtime v8\nroot vm r (root)\n")
		b.WriteString("r@0x1 (root) 0 -> [1]=w [2]=doc\n")
		var kept, styled []string
		for i := 0; i < n; i++ {
			kept = append(kept, fmt.Sprintf("[%d]=k%d", i, i))
			styled = append(styled, fmt.Sprintf("[%d]=s%d", i, i))
		}
		fmt.Fprintf(&b, "w@0x3 Window 40 -> kept=arr\n")
		fmt.Fprintf(&b, "arr@%x Array 32 -> %s\n", 0x100+n, strings.Join(kept, " "))
		fmt.Fprintf(&b, "doc@0x5 HTMLDocument 40 -> style=se\n")
		fmt.Fprintf(&b, "se@0x7 StyleEngine 40 -> cache=c\n")
		fmt.Fprintf(&b, "c@%x InternalNode 32 -> %s\n", 0x200+n, strings.Join(styled, " "))
		for i := 0; i < n; i++ {
			fmt.Fprintf(&b, "k%d@%x Detached+<li> 100\n", i, 0x1000+16*i)
			fmt.Fprintf(&b, "s%d@%x Detached+<div> 100\n", i, 0x8000+16*i)
		}
		return heaptest.MustParse(t, b.String())
	}
	rep := analyze.Leaks(snap(1), snap(4), snap(8), analyze.LeakOptions{})
	var got []string
	for _, f := range rep.Findings {
		got = append(got, fmt.Sprintf("%s x%d", what(f), f.Count))
	}
	if strings.Join(got, "|") != "Detached <li> x3" || rep.Suppressed != 1 {
		t.Errorf("findings %v, %d suppressed; want Detached <li> x3 and the style engine's set aside", got, rep.Suppressed)
	}
}

// TestV8ReusedIDs: V8 gives an object allocated where a dead one was the
// dead one's id (as TypeScript's checker did, rebuilt in each snapshot:
// a TypeObject took a NodeObject's id). An object of another type under
// the target's id is not the target's object: neither alive in final nor
// old in diff.
func TestV8ReusedIDs(t *testing.T) {
	snap := func(objs string) *heap.Graph {
		return heaptest.MustParse(t, "runtime v8\nroot vm r (root)\nr@0x1 (root) 0 -> [1]=prog\nprog@0x3 Program 40 -> "+objs)
	}
	baseline := snap("\n")
	// Between baseline and target: three nodes at ids 0x11, 0x13, 0x15.
	target := snap("[0]=a [1]=b [2]=c\na@0x11 NodeObject 168\nb@0x13 NodeObject 168\nc@0x15 NodeObject 168\n")
	// The nodes died; the next program's types took two of their ids,
	// and the third node is still there.
	final := snap("[0]=a [1]=b [2]=c\na@0x11 TypeObject 72\nb@0x13 TypeObject 72\nc@0x15 NodeObject 168\n")
	rep := analyze.Leaks(baseline, target, final, analyze.LeakOptions{})
	if rep.Leaked != 1 || len(rep.Findings) != 1 || what(rep.Findings[0]) != "NodeObject" {
		t.Errorf("%d leaked in %d findings (%+v), want the one NodeObject still alive", rep.Leaked, len(rep.Findings), rep.Findings)
	}
	for _, d := range analyze.Diff(target, final, analyze.DiffOptions{Identity: true}) {
		if d.Type == "TypeObject" && d.New != 2 {
			t.Errorf("diff: %d TypeObjects new, want 2", d.New)
		}
	}
}

// TestLeaksRehashedTable: a V8 Map that replaced its hash table between
// baseline and target, holding no more entries than before, is no leak
// (a WeakMap whose keys churn does so: eslint's caches); the new table
// is set aside as RehashNoise, shown with KeepNoise. A Map whose new
// table holds more entries than the old one, of objects that are all
// old, still is a finding: the table is all that is new, but the place
// grew.
func TestLeaksRehashedTable(t *testing.T) {
	tables := map[string]string{
		"t0": "t0@0x11 (array) 64 -> [3]=k1 [4]=v1\n",
		"t1": "t1@0x13 (array) 64 -> [3]=k1 [4]=v1\n",
		"u0": "u0@0x15 (array) 64 -> [3]=k2 [4]=v2\n",
		"u1": "u1@0x17 (array) 128 -> [3]=k2 [4]=v2 [6]=k1 [7]=v1\n",
	}
	snap := func(same, grown string) *heap.Graph {
		return heaptest.MustParse(t, "runtime v8\nroot vm r (root)\nr@0x1 (root) 0 -> [1]=prog\n"+
			"prog@0x3 Program 40 -> same=m grown=g\n"+
			"m@0x5 Map 32 -> table="+same+"\n"+
			"g@0x7 Map 32 -> table="+grown+"\n"+
			"k1@0x9 Key 16\nv1@0xb Val 16\nk2@0xd Key 16\nv2@0xf Val 16\n"+
			tables[same]+tables[grown])
	}
	baseline, target, final := snap("t0", "u0"), snap("t1", "u1"), snap("t1", "u1")
	rep := analyze.Leaks(baseline, target, final, analyze.LeakOptions{})
	at := func(f analyze.LeakFinding) uint64 {
		if n := len(f.Place.Path.Steps); n > 0 {
			return final.Addr(f.Place.Path.Steps[n-1].Object)
		}
		return 0
	}
	if len(rep.Findings) != 1 || at(rep.Findings[0]) != 0x7 {
		var got []uint64
		for _, f := range rep.Findings {
			got = append(got, at(f))
		}
		t.Fatalf("findings at %#x, want one, at the Map that grew (0x7)", got)
	}
	if rep.Suppressed != 1 || rep.SuppressedObjects != 1 {
		t.Errorf("suppressed %d parts (%d objects), want the rehashed table, 1 (1)", rep.Suppressed, rep.SuppressedObjects)
	}
	rep = analyze.Leaks(baseline, target, final, analyze.LeakOptions{KeepNoise: true})
	var noise []string
	for _, f := range rep.Findings {
		noise = append(noise, f.Noise)
	}
	if !slices.Equal(noise, []string{"", analyze.RehashNoise}) {
		t.Errorf("KeepNoise: findings' noise %q, want the grown Map's none, then %q", noise, analyze.RehashNoise)
	}
}

// TestLeaksSetOncePerObject: objects that a field of objects the
// baseline already had gains once each (an attribute set on first use:
// sympy's assumptions of the numbers it caches) are bounded by those
// objects, however many are set in each interval; a chain that grows
// from one old object's field is not, nor is a field of new objects.
// A log set once on old objects and appended to ever after grows,
// though there are as many logs in final as in target: what they hold
// grows; a holder set once whose value is replaced each time does not.
func TestLeaksSetOncePerObject(t *testing.T) {
	lazy := func(set int) *heap.Graph {
		var b strings.Builder
		b.WriteString("runtime python\nroot module app app\napp@0x100 module 72 -> .objs=objs .head=head\n")
		b.WriteString("objs@0x200 list 96 -> [0]=o0 [1]=o1 [2]=o2 [3]=o3 [4]=o4\n")
		for i := range 5 {
			fmt.Fprintf(&b, "o%d@%x app.Num 48 ->", i, 0x300+i*0x10)
			if i < set {
				fmt.Fprintf(&b, " .facts=f%d", i)
			}
			// A log and a holder set on o0 and o1 from target on, the
			// log with one entry then, appended to after, the holder's
			// value replaced.
			if i < 2 && set > 0 {
				fmt.Fprintf(&b, " .log=l%d .cur=c%d", i, i)
			}
			b.WriteString("\n")
			if i < set {
				fmt.Fprintf(&b, "f%d@%x app.Facts 200\n", i, 0x1000+i*0x100)
			}
			if i < 2 && set > 0 {
				fmt.Fprintf(&b, "l%d@%x app.Log 64 ->", i, 0x3000+i*0x100)
				for j := 1; j < set; j++ {
					fmt.Fprintf(&b, " [%d]=e%d_%d", j, i, j)
				}
				b.WriteString("\n")
				for j := 1; j < set; j++ {
					fmt.Fprintf(&b, "e%d_%d@%x app.Entry 32\n", i, j, 0x4000+i*0x1000+j*0x100)
				}
				fmt.Fprintf(&b, "c%d@%x app.Cur 48 -> .val=v%d\nv%d@%x app.Val 32\n", i, 0x6000+i*0x100, i, i, 0x7000+set*0x100+i*0x10)
			}
		}
		// A chain from one old node: n1 -> n2 -> ..., longer each time.
		b.WriteString("head@0x400 app.Node 48")
		for i := 1; i <= set; i++ {
			fmt.Fprintf(&b, " -> .next=n%d\nn%d@%x app.Node 48", i, i, 0x2000+i*0x100)
		}
		b.WriteString("\n")
		return heaptest.MustParse(t, b.String())
	}
	rep := analyze.Leaks(lazy(0), lazy(2), lazy(4), analyze.LeakOptions{})
	got := map[string]string{}
	for _, f := range rep.Findings {
		v := string(f.Verdict)
		if f.Bound != nil {
			v += fmt.Sprintf(" %s %d of %d", f.Bound.Kind, f.Bound.Filled, f.Bound.Max)
		}
		if in := f.Gains.Inside; in != nil {
			v += fmt.Sprintf(" holding %d %s more, %d then %d", in.New, in.Type, in.Held[0], in.Held[1])
		}
		got[what(f)] = v
	}
	// The logs gained no logs after target, and their entries are not
	// their type: the entries, counted by path, grew (two in target,
	// six in final). The holders' values were replaced: as many in
	// final as in target.
	want := map[string]string{
		"app.Facts": "bounded per-object 4 of 5",
		"app.Node":  "grows",
		"app.Log":   "grows holding 4 app.Entry more, 2 then 6",
		"app.Cur":   "stopped",
	}
	if !maps.Equal(got, want) {
		t.Errorf("findings %v, want %v", got, want)
	}
	// With --scaling, what the logs hold is what scales: none in the
	// baseline, two in target, six in final.
	rep = analyze.Leaks(lazy(0), lazy(2), lazy(4), analyze.LeakOptions{Scaling: true})
	var scaled []string
	for _, f := range rep.Findings {
		scaled = append(scaled, what(f))
	}
	if !slices.Contains(scaled, "app.Log") || slices.Contains(scaled, "app.Cur") {
		t.Errorf("scaling findings %q, want app.Log's, not app.Cur's", scaled)
	}
}

// TestLeaksUnderTransientHolder: a Node program awaiting a timer in an
// async loop holds its whole state (a module's context, its Map) only
// through that await's Timeout and Promise, made anew before each
// snapshot. The Map's entries made after target are below that new
// Timeout in final's dominator tree, through old objects (the context,
// the Map): they count as the Map's gains, and the Map grows. They were
// counted in the Timeout's place, and the Map said "grew by 2, then 0:
// stopped growing", which check passes (eslint's lint results kept per
// call by a program whose main loop awaits).
func TestLeaksUnderTransientHolder(t *testing.T) {
	snap := func(timer, promise string, entries int) *heap.Graph {
		var b strings.Builder
		fmt.Fprintf(&b, "runtime v8\nroot vm r (root)\nr@0x1 (root) 0 -> [1]=list\nlist@0x3 TimersList 40 -> _idleNext=tm\n")
		fmt.Fprintf(&b, "tm@%s Timeout 176 -> _onTimeout=p\n", timer)
		fmt.Fprintf(&b, "p@%s Promise 48 -> internal:[0]=ctx\n", promise)
		fmt.Fprintf(&b, "ctx@0x5 system+/+Context 40 -> results=m\nm@0x7 Map 32 -> internal:table=tab\n")
		var refs []string
		for i := range entries {
			refs = append(refs, fmt.Sprintf("[%d]=e%d", i+3, i))
		}
		fmt.Fprintf(&b, "tab@0x9 (array) 256 -> %s\n", strings.Join(refs, " "))
		for i := range entries {
			fmt.Fprintf(&b, "e%d@%x LintResult 64\n", i, 0x101+2*i)
		}
		return heaptest.MustParse(t, b.String())
	}
	baseline, target, final := snap("0x21", "0x31", 1), snap("0x23", "0x33", 3), snap("0x25", "0x35", 5)
	rep := analyze.Leaks(baseline, target, final, analyze.LeakOptions{})
	if len(rep.Findings) != 1 {
		t.Fatalf("%d findings (%+v), want the Map's", len(rep.Findings), rep.Findings)
	}
	f := rep.Findings[0]
	if what(f) != "LintResult" || f.Gains.New != [2]int{2, 2} || f.Verdict != analyze.Grows {
		t.Errorf("finding of %s, gains %v, %s; want LintResult, [2 2], grows", what(f), f.Gains.New, f.Verdict)
	}
}
