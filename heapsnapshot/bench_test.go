package heapsnapshot

import (
	"bytes"
	"sync"
	"testing"
)

var (
	benchOnce sync.Once
	benchData []byte
)

// BenchmarkRead reads a synthesized snapshot of 1M nodes and about 1.5M
// edges (about 40 MB of JSON) from memory.
func BenchmarkRead(b *testing.B) {
	benchOnce.Do(func() { benchData = synthSnap(1_000_000).bytes() })
	b.SetBytes(int64(len(benchData)))
	b.ReportAllocs()
	for b.Loop() {
		g, err := Read(bytes.NewReader(benchData))
		if err != nil {
			b.Fatal(err)
		}
		if g.NumObjects() != 1_000_000 {
			b.Fatalf("%d objects", g.NumObjects())
		}
	}
}

// BenchmarkReadSkipValues is BenchmarkRead without value labels.
func BenchmarkReadSkipValues(b *testing.B) {
	benchOnce.Do(func() { benchData = synthSnap(1_000_000).bytes() })
	b.SetBytes(int64(len(benchData)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := (Options{SkipValues: true}).Read(bytes.NewReader(benchData)); err != nil {
			b.Fatal(err)
		}
	}
}
