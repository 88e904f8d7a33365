package analyze_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/heapscope/heapscope/analyze"
	"github.com/heapscope/heapscope/heap"
	"github.com/heapscope/heapscope/internal/heaptest"
)

// registryHeap is a Python heap after n rounds of a workload that keeps
// one app.Item per round in the module app's cache dict, and the first
// `registered` of them in the module reg's set too; each item holds its
// payload and, when linked, points at the next (a link inside the
// leaked structure).
func registryHeap(t *testing.T, n, registered int, linked bool) *heap.Graph {
	var b strings.Builder
	b.WriteString("runtime python\nroot module app app\nroot module reg reg\n")
	var cache, set []string
	for i := 0; i < n; i++ {
		cache = append(cache, fmt.Sprintf("['k%d']=item%d", i, i))
		if i < registered {
			set = append(set, fmt.Sprintf("item%d", i))
		}
	}
	b.WriteString("app@0x100 module 72 -> __dict__=appdict\nappdict@0x200 dict 360 -> .cache=cache\n")
	fmt.Fprintf(&b, "cache@0x300 dict 640 -> %s\n", strings.Join(cache, " "))
	b.WriteString("reg@0x400 module 72 -> __dict__=regdict\nregdict@0x500 dict 360 -> .all=all\n")
	fmt.Fprintf(&b, "all@0x600 set 200 -> %s\n", strings.Join(set, " "))
	for i := 0; i < n; i++ {
		next := ""
		if linked && i+1 < n {
			next = fmt.Sprintf(" .next=item%d", i+1)
		}
		fmt.Fprintf(&b, "item%d@%x app.Item 56 -> .payload=buf%d%s\n", i, 0x10000+i*0x100, i, next)
		fmt.Fprintf(&b, "buf%d@%x bytes 1000\n", i, 0x10080+i*0x100)
	}
	return heaptest.MustParse(t, b.String())
}

// TestLeakHolders: the items the cache leaks are one finding, held by
// the cache and, for some of them, by the registry: what removing each
// alone frees is the items the other does not reach, through the links
// between the items too.
func TestLeakHolders(t *testing.T) {
	for _, tc := range []struct {
		registered int
		linked     bool
		// what removing the cache alone frees, and the registry (-1: it
		// is no holder)
		cacheFrees, setFrees int
	}{
		// Both hold all six: nothing alone.
		{registered: 6, cacheFrees: 0, setFrees: 0},
		// The registry holds items 0-2: the cache alone frees 3-5.
		{registered: 3, cacheFrees: 3, setFrees: 0},
		// ...unless item 2's .next reaches 3, and so on: the chain
		// keeps them all.
		{registered: 3, linked: true, cacheFrees: 0, setFrees: 0},
		// The registry holds none: the cache is the one holder.
		{registered: 0, cacheFrees: 6, setFrees: -1},
	} {
		t.Run(fmt.Sprint(tc.registered, tc.linked), func(t *testing.T) {
			heapAt := func(n int) *heap.Graph { return registryHeap(t, n, min(tc.registered, n), tc.linked) }
			rep := analyze.Leaks(heapAt(0), heapAt(6), heapAt(6), analyze.LeakOptions{})
			if len(rep.Findings) != 1 {
				t.Fatalf("findings %+v, want one", rep.Findings)
			}
			f := rep.Findings[0]
			frees := map[string]int{}
			for _, h := range f.Holders {
				steps := h.Path.Steps
				frees[steps[h.At].Type] = h.Frees
				want := 6 // the cache holds all; the registry those it holds, and what they link to
				if steps[h.At].Type == "set" && !tc.linked {
					want = tc.registered
				}
				if h.Holds != want {
					t.Errorf("holder %s holds %d, want %d", steps[h.At].Type, h.Holds, want)
				}
			}
			if got, ok := frees["dict"]; !ok || got != tc.cacheFrees {
				t.Errorf("the cache alone frees %d (a holder: %v), want %d; holders %+v", got, ok, tc.cacheFrees, f.Holders)
			}
			if got, ok := frees["set"]; tc.setFrees < 0 && ok || tc.setFrees >= 0 && (!ok || got != tc.setFrees) {
				t.Errorf("the registry alone frees %d (a holder: %v), want %d; holders %+v", got, ok, tc.setFrees, f.Holders)
			}
			if tc.setFrees < 0 && f.Holders[0].FreesBytes != f.Retained {
				t.Errorf("the one holder frees %d bytes, want all the finding retains, %d", f.Holders[0].FreesBytes, f.Retained)
			}
		})
	}
}

// TestGroupHolders: why's groups get every holder too; an object only
// the selected objects reach (a back pointer, here the item's
// attribute dict that points at the registry's twin) is none.
func TestGroupHolders(t *testing.T) {
	g := heaptest.MustParse(t, `runtime python
root module app app
root module reg reg
app@0x100 module 72 -> .cache=cache
cache@0x200 dict 100 -> ['a']=item
reg@0x300 module 72 -> .all=all
all@0x400 set 100 -> item
item@0x500 app.Item 56 -> .back=back
back@0x600 dict 50 -> ['owner']=item
`)
	r := analyze.ShortestPaths(g, analyze.PathOptions{})
	tree := analyze.Dominators(g, analyze.DomOptions{})
	objs := analyze.Select(g, analyze.Selector{Type: "app.Item"})
	groups, _ := analyze.MergePaths(r, tree, objs)
	hs := analyze.GroupHolders(tree, r, objs, groups, nil)
	if len(groups) != 1 || len(hs[0]) != 2 {
		t.Fatalf("groups %d, holders %+v; want the dict and the set", len(groups), hs)
	}
	for _, h := range hs[0] {
		if typ := h.Path.Steps[h.At].Type; (typ != "dict" && typ != "set") || h.Frees != 0 || h.Holds != 1 {
			t.Errorf("holder %s: holds %d, frees %d; want the cache or the registry, holding 1, freeing nothing alone", typ, h.Holds, h.Frees)
		}
	}
}

// sharedNumHeap is round `round` (0-2) of a workload that keeps eight
// app.Item per round in the module app's cache dict, and the first
// `registered` of them in the module reg's set too. Items 2k and 2k+1
// share number k, which gets an app.Facts when first used (as a library
// computes a number's assumptions lazily): numbers 0 and 1 were made
// before the first round, and reg's list holds them until the last;
// the others are new.
func sharedNumHeap(t *testing.T, round, registered int) *heap.Graph {
	n := 8 * round
	var b strings.Builder
	b.WriteString("runtime python\nroot module app app\nroot module reg reg\n")
	var cache, set, old []string
	for i := 0; i < n; i++ {
		cache = append(cache, fmt.Sprintf("['k%d']=item%d", i, i))
		if i < registered {
			set = append(set, fmt.Sprintf("item%d", i))
		}
	}
	if round < 2 {
		old = []string{"[0]=num0", "[1]=num1"}
	}
	b.WriteString("app@0x100 module 72 -> __dict__=appdict\nappdict@0x200 dict 360 -> .cache=cache\n")
	fmt.Fprintf(&b, "cache@0x300 dict 640 -> %s\n", strings.Join(cache, " "))
	b.WriteString("reg@0x400 module 72 -> __dict__=regdict\nregdict@0x500 dict 360 -> .all=all .old=old\n")
	fmt.Fprintf(&b, "all@0x600 set 200 -> %s\n", strings.Join(set, " "))
	fmt.Fprintf(&b, "old@0x700 list 72 -> %s\n", strings.Join(old, " "))
	for k := 0; k < max(2, n/2); k++ {
		if k < n/2 {
			fmt.Fprintf(&b, "num%d@%x app.Num 32 -> .facts=facts%d\nfacts%d@%x app.Facts 1000\n", k, 0x1000+k*0x10, k, k, 0x8000+k*0x400)
		} else {
			fmt.Fprintf(&b, "num%d@%x app.Num 32\n", k, 0x1000+k*0x10)
		}
	}
	for i := 0; i < n; i++ {
		fmt.Fprintf(&b, "item%d@%x app.Item 56 -> .n=num%d\n", i, 0x10000+i*0x100, i/2)
	}
	return heaptest.MustParse(t, b.String())
}

// TestHoldersThroughOlderObjects: the assumptions (app.Facts) that the
// workload made for the two numbers made before it are held by those
// numbers, which only the leaked items still refer to once reg's list
// lets go of them: the items' finding holds them through the numbers,
// and removing it frees them. (Before, a number that only leaked
// objects lead to held nothing and was no way to a holder: the Facts
// had none, and a member no holder reaches counted as freed by every
// holder of its finding, as "alone frees 3" beside each of ten holders
// of a sympy program's expressions said.)
func TestHoldersThroughOlderObjects(t *testing.T) {
	for _, registered := range []int{0, 16} {
		t.Run(fmt.Sprint(registered), func(t *testing.T) {
			rep := analyze.Leaks(sharedNumHeap(t, 0, 0), sharedNumHeap(t, 1, min(8, registered)),
				sharedNumHeap(t, 2, registered), analyze.LeakOptions{})
			items, facts := -1, -1
			for i, f := range rep.Findings {
				for _, p := range f.Parts {
					switch p.Type {
					case "app.Item":
						items = i
					case "app.Facts":
						facts = i
					}
				}
			}
			if items < 0 || facts < 0 || items == facts {
				t.Fatalf("findings %+v: want the items' and the older numbers' Facts apart", rep.Findings)
			}
			for _, h := range rep.Findings[items].Holders {
				// 8 items and the 2 new numbers they share.
				wantFrees := 0
				if registered == 0 {
					wantFrees = 10
				}
				if h.Holds != 10 || h.Frees != wantFrees {
					t.Errorf("items' holder %s: holds %d, frees %d; want 10 and %d", h.Path.Steps[h.At].Type, h.Holds, h.Frees, wantFrees)
				}
			}
			hs := rep.Findings[facts].Holders
			if len(hs) != 1 || hs[0].Group != items || hs[0].Holds != 2 || hs[0].Frees != 2 || hs[0].FreesBytes != 2000 {
				t.Errorf("the Facts' holders %+v: want the items' finding (#%d), holding and freeing both (2000 bytes)", hs, items)
			}
		})
	}
}
