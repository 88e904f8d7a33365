// Command count reads an HPROF dump with hprof.Open and prints the number
// of objects, edges and roots, the top types by shallow bytes, and how
// long each phase took (wall and CPU). With -dom it also computes the
// dominator tree and retained sizes (analyze.Dominators) and prints the
// objects that retain most. It stands in for `heapscope summary` in
// bench/hprof/run.sh until the CLI reads HPROF.
//
//	count [-dom] [-gogc N] [-cpuprofile F] [-memprofile F] DUMP
package main

import (
	"flag"
	"fmt"
	"os"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"runtime/pprof"
	"sort"
	"syscall"
	"time"

	"github.com/heapscope/heapscope/analyze"
	"github.com/heapscope/heapscope/heap"
	"github.com/heapscope/heapscope/hprof"
)

// cpu returns the process's user+system CPU time so far.
func cpu() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

type phase struct {
	wall time.Time
	cpu  time.Duration
}

func now() phase { return phase{time.Now(), cpu()} }

func (p phase) since() string {
	return fmt.Sprintf("%.2fs wall, %.2fs cpu", time.Since(p.wall).Seconds(), (cpu() - p.cpu).Seconds())
}

func main() {
	dom := flag.Bool("dom", false, "also compute dominators and retained sizes")
	gogc := flag.Int("gogc", 0, "debug.SetGCPercent(N) before reading (0: leave the default)")
	cpuprof := flag.String("cpuprofile", "", "write a CPU profile to `file`")
	memprof := flag.String("memprofile", "", "write an allocation profile to `file` at the end")
	flag.Parse()
	if flag.NArg() != 1 {
		fmt.Fprintln(os.Stderr, "usage: count [-dom] [-gogc N] [-cpuprofile F] [-memprofile F] DUMP")
		os.Exit(2)
	}
	if *gogc != 0 {
		debug.SetGCPercent(*gogc)
	}
	if *memprof != "" {
		runtime.MemProfileRate = 64 << 10
	}
	if *cpuprof != "" {
		f, err := os.Create(*cpuprof)
		if err != nil {
			fmt.Fprintln(os.Stderr, "count:", err)
			os.Exit(1)
		}
		pprof.StartCPUProfile(f)
		defer pprof.StopCPUProfile()
	}
	all := now()
	start := now()
	g, err := hprof.Open(flag.Arg(0))
	if err != nil {
		fmt.Fprintln(os.Stderr, "count:", err)
		if g == nil {
			os.Exit(1)
		}
	}
	read := start.since()
	start = now()
	type row struct {
		count int
		bytes uint64
	}
	byType := make([]row, g.NumTypes())
	types, sizes := g.Types(), g.Sizes()
	for i, t := range types {
		byType[t].count++
		byType[t].bytes += sizes[i]
	}
	order := make([]int, len(byType))
	for i := range order {
		order[i] = i
	}
	sort.Slice(order, func(i, j int) bool {
		a, b := byType[order[i]], byType[order[j]]
		if a.bytes != b.bytes {
			return a.bytes > b.bytes
		}
		return order[i] < order[j]
	})
	for i, t := range order {
		if i == 10 {
			break
		}
		fmt.Printf("%12d %14d  %s\n", byType[t].count, byType[t].bytes, g.TypeName(heap.TypeID(t)))
	}
	hist := start.since()
	fmt.Printf("objects %d, edges %d, roots %d, types %d, warnings %d\n",
		g.NumObjects(), g.NumEdges(), len(g.Roots()), g.NumTypes(), len(g.Warnings()))
	fmt.Printf("read: %s\nhistogram: %s\n", read, hist)
	if *dom {
		start = now()
		t := analyze.Dominators(g, analyze.DomOptions{})
		d := start.since()
		top := append([]heap.ObjectID(nil), t.Children(analyze.SuperRoot)...)
		sort.Slice(top, func(i, j int) bool { return t.Retained(top[i]) > t.Retained(top[j]) })
		for i, id := range top {
			if i == 5 {
				break
			}
			fmt.Printf("retained %14d  %s @%#x\n", t.Retained(id), g.TypeName(g.Type(id)), g.Addr(id))
		}
		fmt.Printf("reachable %d\ndominators: %s\n", t.NumReachable(), d)
		runtime.KeepAlive(t)
	}
	s := []metrics.Sample{{Name: "/memory/classes/total:bytes"}}
	metrics.Read(s)
	fmt.Printf("total: %s, GOMAXPROCS %d, Go runtime memory now %d MB\n",
		all.since(), runtime.GOMAXPROCS(0), s[0].Value.Uint64()>>20)
	for i, w := range g.Warnings() {
		if i == 10 {
			break
		}
		fmt.Println("warning:", w)
	}
	if *memprof != "" {
		f, err := os.Create(*memprof)
		if err == nil {
			pprof.Lookup("allocs").WriteTo(f, 0)
			f.Close()
		}
	}
	runtime.KeepAlive(g)
}
