package analyze_test

import (
	"fmt"

	"github.com/heapscope/heapscope/analyze"
	"github.com/heapscope/heapscope/internal/heaptest"
)

func ExampleDominators() {
	// A module-level cache holds two items; each item holds a buffer.
	g, _ := heaptest.Parse(`
root module app app
app module 72 -> .cache=cache
cache dict 232 -> ['a']=i1 ['b']=i2
i1 Item 56 -> .buf=b1
i2 Item 56 -> .buf=b2
b1 bytearray 4096
b2 bytearray 4096
`)
	t := analyze.Dominators(g, analyze.DomOptions{})
	for _, s := range analyze.RetainedByType(t) {
		fmt.Printf("%-9s count %d retained %d\n", s.Name, s.Count, s.Retained)
	}
	r := analyze.ShortestPaths(g, analyze.PathOptions{})
	groups, _ := analyze.MergePaths(r, t, analyze.Select(g, analyze.Selector{Type: "Item"}))
	for _, grp := range groups {
		fmt.Println(grp.Count, "Items retain", grp.Retained, "bytes, held by", grp.Sample.Steps[1].Edge)
	}
	// Output:
	// module    count 1 retained 8608
	// dict      count 1 retained 8536
	// Item      count 2 retained 8304
	// bytearray count 2 retained 8192
	// 2 Items retain 8304 bytes, held by .cache
}
