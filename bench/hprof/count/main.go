// Command count reads an HPROF dump with hprof.Open and prints the number
// of objects, edges and roots, the top types by count, and how long the
// read took and how much memory the Go heap peaked at. It stands in for
// `heapscope summary` in bench/hprof/run.sh until the CLI reads HPROF.
package main

import (
	"fmt"
	"os"
	"runtime"
	"runtime/metrics"
	"sort"
	"time"

	"github.com/heapscope/heapscope/hprof"
)

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: count DUMP")
		os.Exit(2)
	}
	start := time.Now()
	g, err := hprof.Open(os.Args[1])
	if err != nil {
		fmt.Fprintln(os.Stderr, "count:", err)
		if g == nil {
			os.Exit(1)
		}
	}
	read := time.Since(start)
	type row struct {
		name  string
		count int
		bytes uint64
	}
	byType := map[string]*row{}
	for id := range g.Objects() {
		name := g.TypeName(g.Type(id))
		r := byType[name]
		if r == nil {
			r = &row{name: name}
			byType[name] = r
		}
		r.count++
		r.bytes += g.Size(id)
	}
	rows := make([]*row, 0, len(byType))
	for _, r := range byType {
		rows = append(rows, r)
	}
	sort.Slice(rows, func(i, j int) bool {
		if rows[i].bytes != rows[j].bytes {
			return rows[i].bytes > rows[j].bytes
		}
		return rows[i].name < rows[j].name
	})
	for i, r := range rows {
		if i == 10 {
			break
		}
		fmt.Printf("%12d %14d  %s\n", r.count, r.bytes, r.name)
	}
	s := []metrics.Sample{{Name: "/memory/classes/total:bytes"}}
	metrics.Read(s)
	fmt.Printf("objects %d, edges %d, roots %d, types %d, warnings %d\n",
		g.NumObjects(), g.NumEdges(), len(g.Roots()), g.NumTypes(), len(g.Warnings()))
	fmt.Printf("read %.2fs, GOMAXPROCS %d, Go runtime memory now %d MB\n",
		read.Seconds(), runtime.GOMAXPROCS(0), s[0].Value.Uint64()>>20)
	for _, w := range g.Warnings() {
		fmt.Println("warning:", w)
	}
}
