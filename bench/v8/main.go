// Command v8read reads V8 heap snapshots with heapscope's reader and
// prints what it found and how long it took. bench/v8/run.sh uses it.
package main

import (
	"crypto/sha256"
	"encoding/binary"
	"flag"
	"fmt"
	"hash"
	"os"
	"runtime"
	"runtime/pprof"
	"sort"
	"time"

	"github.com/heapscope/heapscope/analyze"
	"github.com/heapscope/heapscope/heap"
	"github.com/heapscope/heapscope/heapsnapshot"
)

func main() {
	top := flag.Int("top", 0, "print the `n` largest classes by shallow size")
	skip := flag.Bool("novalues", false, "skip value labels and digests")
	dom := flag.Bool("dom", false, "also compute dominators and retained sizes (analyze.Dominators)")
	allEdges := flag.Bool("alledges", false, "read with Options.AllEdges")
	hashOnly := flag.Bool("hash", false, "print only a SHA-256 of everything the reader produced (or its error), to check that a reader change keeps the graph")
	cpuprofile := flag.String("cpuprofile", "", "write a CPU profile to `file`")
	flag.Parse()
	if *cpuprofile != "" {
		f, err := os.Create(*cpuprofile)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		pprof.StartCPUProfile(f)
		defer pprof.StopCPUProfile()
	}
	for _, path := range flag.Args() {
		t0 := time.Now()
		g, err := heapsnapshot.Options{SkipValues: *skip, AllEdges: *allEdges}.Open(path)
		if *hashOnly {
			fmt.Printf("%x %s\n", graphHash(g, err), path)
			continue
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			pprof.StopCPUProfile()
			os.Exit(1)
		}
		d := time.Since(t0)
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		fi, _ := os.Stat(path)
		mb := float64(fi.Size()) / 1e6
		fmt.Printf("%s: %.1f MB, %d objects, %d edges, %d types, %d bytes; read in %.3fs (%.0f MB/s), heap %d MB\n",
			path, mb, g.NumObjects(), g.NumEdges(), g.NumTypes(), g.TotalSize(), d.Seconds(), mb/d.Seconds(), ms.HeapSys>>20)
		if *dom {
			t1 := time.Now()
			t := analyze.Dominators(g, analyze.DomOptions{})
			dd := time.Since(t1)
			u := analyze.Unreachables(t)
			fmt.Printf("  dominators in %.3fs; read + dominators %.3fs; unreachable: %+v\n", dd.Seconds(), time.Since(t0).Seconds(), u)
		}
		for _, w := range g.Warnings() {
			fmt.Println("  warning:", w)
		}
		if *top > 0 {
			type row struct {
				name  string
				n     int
				bytes uint64
			}
			rows := map[string]*row{}
			for id := range g.Objects() {
				name := g.TypeName(g.Type(id))
				r := rows[name]
				if r == nil {
					r = &row{name: name}
					rows[name] = r
				}
				r.n++
				r.bytes += g.Size(id)
			}
			var all []*row
			for _, r := range rows {
				all = append(all, r)
			}
			sort.Slice(all, func(i, j int) bool {
				if all[i].bytes != all[j].bytes {
					return all[i].bytes > all[j].bytes
				}
				return all[i].name < all[j].name
			})
			for _, r := range all[:min(*top, len(all))] {
				fmt.Printf("  %12d B %8d  %s\n", r.bytes, r.n, r.name)
			}
		}
	}
}

// graphHash hashes every object (address, type, size, flags), type name,
// string, edge (target, label), root, value label, digest, warning, the
// metadata and the error, IDs as they are.
func graphHash(g *heap.Graph, err error) []byte {
	h := sha256.New()
	if err != nil {
		fmt.Fprintf(h, "error %v", err)
		return h.Sum(nil)
	}
	num := func(h hash.Hash, v uint64) { h.Write(binary.LittleEndian.AppendUint64(nil, v)) }
	str := func(h hash.Hash, s string) { num(h, uint64(len(s))); h.Write([]byte(s)) }
	num(h, uint64(g.NumObjects()))
	for id := range g.Objects() {
		num(h, g.Addr(id))
		num(h, uint64(g.Type(id)))
		num(h, g.Size(id))
		num(h, uint64(g.Flags(id)))
		for _, e := range g.Edges(id) {
			num(h, uint64(e.To)<<32|uint64(e.Label))
		}
		num(h, 1<<63)
	}
	num(h, uint64(g.NumTypes()))
	for t := 0; t < g.NumTypes(); t++ {
		num(h, uint64(g.TypeNameID(heap.TypeID(t))))
	}
	num(h, uint64(g.NumStrings()))
	for s := 0; s < g.NumStrings(); s++ {
		str(h, g.String(heap.StringID(s)))
	}
	for _, r := range g.Roots() {
		num(h, uint64(r.Object))
		num(h, uint64(r.Kind))
		num(h, uint64(r.Name))
	}
	num(h, 1<<63)
	for id, v := range g.Values() {
		num(h, uint64(id))
		str(h, v)
	}
	num(h, 1<<63)
	for id, d := range g.Digests() {
		num(h, uint64(id))
		num(h, d)
	}
	num(h, 1<<63)
	for _, w := range g.Warnings() {
		num(h, uint64(w.Offset))
		str(h, w.Msg)
	}
	m := g.Meta()
	fmt.Fprintf(h, "%q %q %q", m.Runtime, m.Version, m.Attrs)
	return h.Sum(nil)
}
