// Command pyroots prints what a Python snapshot leaves unexplained: the
// objects held outside the heap (analyze.NativeHeld: more references than
// the snapshot shows), by type, and the share of the bytes no root of the
// snapshot reaches (objects that "hang nowhere" until the held objects are
// made extra roots). bench/python/ROOTS.md quotes it, before and after
// changes to the agent's edges and roots.
//
//	pyroots [-list N] SNAPSHOT...
//
// -list N prints N held objects of each snapshot, with their reference
// count, incoming edges, value and the types of their referrers.
package main

import (
	"cmp"
	"flag"
	"fmt"
	"os"
	"slices"
	"strings"

	"github.com/heapscope/heapscope/analyze"
	"github.com/heapscope/heapscope/heap"
	"github.com/heapscope/heapscope/pysnap"
)

func main() {
	list := flag.Int("list", 0, "print `N` held objects of each snapshot")
	flag.Parse()
	if flag.NArg() == 0 {
		fmt.Fprintln(os.Stderr, "usage: pyroots [-list N] SNAPSHOT...")
		os.Exit(2)
	}
	for _, path := range flag.Args() {
		if err := report(path, *list); err != nil {
			fmt.Fprintln(os.Stderr, "pyroots:", err)
			os.Exit(1)
		}
	}
}

func report(path string, list int) error {
	g, err := pysnap.Open(path)
	if err != nil {
		return err
	}
	total := g.TotalSize()
	plain := analyze.Dominators(g, analyze.DomOptions{})
	nowhere := analyze.Unreachables(plain)
	held := analyze.NativeHeld(g)
	withHeld := analyze.Unreachables(analyze.Dominators(g, analyze.DomOptions{ExtraRoots: analyze.NativeRoots(held)}))
	fmt.Printf("%s: python %s, %d objects, %d bytes\n", path, g.Meta().Version, g.NumObjects(), total)
	fmt.Printf("  no root reaches: %d objects, %d bytes (%.1f%%); with held objects as roots: %d objects, %d bytes (%.1f%%)\n",
		nowhere.Count, nowhere.Bytes, pct(nowhere.Bytes, total), withHeld.Count, withHeld.Bytes, pct(withHeld.Bytes, total))
	fmt.Printf("  held outside the heap: %d objects\n", len(held))
	byType := map[string]int{}
	for _, o := range held {
		byType[g.TypeName(g.Type(o.Object))]++
	}
	type tc struct {
		t string
		n int
	}
	var tcs []tc
	for t, n := range byType {
		tcs = append(tcs, tc{t, n})
	}
	slices.SortFunc(tcs, func(a, b tc) int {
		if c := cmp.Compare(b.n, a.n); c != 0 {
			return c
		}
		return cmp.Compare(a.t, b.t)
	})
	var parts []string
	for i, x := range tcs {
		if i == 12 {
			parts = append(parts, fmt.Sprintf("(%d more types)", len(tcs)-12))
			break
		}
		parts = append(parts, fmt.Sprintf("%s %d", x.t, x.n))
	}
	if len(parts) > 0 {
		fmt.Printf("    %s\n", strings.Join(parts, ", "))
	}
	for i, o := range held {
		if i == list {
			break
		}
		v, _ := g.Value(o.Object)
		if len(v) > 50 {
			v = v[:50] + "..."
		}
		var refs []string
		for j, r := range g.Referrers(o.Object) {
			if j == 4 {
				refs = append(refs, "...")
				break
			}
			refs = append(refs, g.TypeName(g.Type(r)))
		}
		var outs []string
		for j, e := range g.Edges(o.Object) {
			if j == 3 {
				outs = append(outs, "...")
				break
			}
			outs = append(outs, g.EdgeName(e.Label)+" "+g.TypeName(g.Type(e.To)))
		}
		fmt.Printf("    %s@%#x rc %d edges %d %q <- %s; -> %s\n", g.TypeName(g.Type(o.Object)), g.Addr(o.Object),
			o.Refcount, o.Edges, v, strings.Join(refs, ", "), strings.Join(outs, ", "))
	}
	_ = heap.ObjectID(0)
	return nil
}

func pct(a, b uint64) float64 {
	if b == 0 {
		return 0
	}
	return 100 * float64(a) / float64(b)
}
