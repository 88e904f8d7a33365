package analyze

import (
	"testing"

	"github.com/heapscope/heapscope/heap"
	"github.com/heapscope/heapscope/internal/heaptest"
)

// cacheMiss: a cache holds one descriptor per key ("a", "b"); each of
// four jobs built its own again, equal by value to the cached one.
const cacheMiss = `runtime test
root module app app
app module 72 -> .cache=cache .jobs=jobs
cache dict 360 -> ['a']=d1 ['b']=d2
jobs list 120 -> [0]=j1 [1]=j2 [2]=j3 [3]=j4
j1 Job 56 -> .id=i1 .desc=d3
j2 Job 56 -> .id=i2 .desc=d4
j3 Job 56 -> .id=i3 .desc=d5
j4 Job 56 -> .id=i4 .desc=d6
i1 int 28
i2 int 28
i3 int 28
i4 int 28
d1 Desc 56 -> .name=na .fields=fa1
d2 Desc 56 -> .name=nb .fields=fb1
d3 Desc 56 -> .name=na .fields=fa2
d4 Desc 56 -> .name=na .fields=fa3
d5 Desc 56 -> .name=na .fields=fa4
d6 Desc 56 -> .name=nb .fields=fb2
na str 50
nb str 50
fa1 tuple 56 -> [0]=i1
fa2 tuple 56 -> [0]=i1
fa3 tuple 56 -> [0]=i1
fa4 tuple 56 -> [0]=i1
fb1 tuple 56 -> [0]=i2
fb2 tuple 56 -> [0]=i2
value i1 1
value i2 2
value i3 3
value i4 4
value na a
value nb b
`

// TestValueDuplicatesCacheMiss: the descriptors are one group, 6 copies
// of 2 values, the cache holding one of each (a cache whose lookups
// miss) and the jobs the rest; the tuples inside them count with them.
func TestValueDuplicatesCacheMiss(t *testing.T) {
	g := heaptest.MustParse(t, cacheMiss)
	tree := Dominators(g, DomOptions{})
	r := ShortestPaths(g, PathOptions{})
	got := ValueDuplicates(IndexValues(g), tree, r)
	if len(got) != 1 {
		t.Fatalf("groups %+v, want the descriptors only", got)
	}
	d := got[0]
	if d.Type != "Desc" || d.Count != 6 || d.Distinct != 2 || !d.Misses || len(d.Holders) != 2 {
		t.Fatalf("group %+v, want 6 Desc of 2 values, marked as a cache that misses, in 2 holders", d)
	}
	for _, h := range d.Holders {
		cache := h.Signature[1].Edge == ".cache"
		if want := map[bool]int{true: 2, false: 4}[cache]; h.Count != want || h.OneOfEach != cache {
			t.Errorf("holder %v: %d copies, one of each %v; want %d, %v", h.Signature, h.Count, h.OneOfEach, want, cache)
		}
	}
	// Desc retains 56 + 56 (its tuple): 4 of the 6 are waste.
	if d.Wasted != 4*112 {
		t.Errorf("wasted %d, want %d", d.Wasted, 4*112)
	}
}

// TestValueMatchManyHolders: each of three classes holds its own equal
// tuple, and the set compared is a fourth's: three holders hold one of
// each value, and none of them is a cache that misses.
func TestValueMatchManyHolders(t *testing.T) {
	const src = `runtime test
root module app app
app module 72 -> .a=ca .b=cb .c=cc .d=cd
ca Cls 400 -> .bases=ta
cb Cls 400 -> .bases=tb
cc Cls 400 -> .bases=tc
cd Cls 400 -> .bases=td
base Base 400
ta tuple 56 -> [0]=base
tb tuple 56 -> [0]=base
tc tuple 56 -> [0]=base
td tuple 56 -> [0]=base
`
	g := heaptest.MustParse(t, src)
	ids := declared(src)
	m := IndexValues(g).Match(ShortestPaths(g, PathOptions{}), Dominators(g, DomOptions{}), []heap.ObjectID{ids["td"], ids["ta"]})
	if m.Equal != 2 || m.Misses {
		t.Errorf("Match = %+v; want equal to 2, held by two classes, no cache that misses", m)
	}
}

// TestValueMatch: the descriptors of the jobs, as a leak finding would
// list them, are 2 distinct values, equal by value to the 2 in the
// cache, which Match finds and places.
func TestValueMatch(t *testing.T) {
	g := heaptest.MustParse(t, cacheMiss)
	ids := declared(cacheMiss)
	x := IndexValues(g)
	m := x.Match(ShortestPaths(g, PathOptions{}), Dominators(g, DomOptions{}),
		[]heap.ObjectID{ids["d3"], ids["d4"], ids["d5"], ids["d6"]})
	if m.Objects != 4 || m.Distinct != 2 || m.Equal != 2 || len(m.Holders) != 1 || m.Holders[0].Count != 2 ||
		m.Holders[0].Distinct != 2 || m.Holders[0].Signature[1].Edge != ".cache" || !m.Misses || !m.Holders[0].OneOfEach {
		t.Errorf("Match = %+v; want 4 objects of 2 values, equal to the 2 in the cache, one of each: a cache that misses", m)
	}
	// One copy is no pattern: equal to one in the cache and two in jobs.
	if m := x.Match(ShortestPaths(g, PathOptions{}), Dominators(g, DomOptions{}), []heap.ObjectID{ids["d3"]}); m.Misses || m.Equal != 3 {
		t.Errorf("Match(one copy) = %+v; want equal to 3, no cache that misses", m)
	}
	// Three copies of "a", whose one other copy the cache holds: a cache
	// that misses, of one value.
	if m := x.Match(ShortestPaths(g, PathOptions{}), Dominators(g, DomOptions{}), []heap.ObjectID{ids["d3"], ids["d4"], ids["d5"]}); !m.Misses || m.Equal != 1 {
		t.Errorf("Match(three of a) = %+v; want equal to 1, the cache's: a cache that misses", m)
	}
	if m := x.Match(nil, nil, []heap.ObjectID{ids["j1"]}); m.Objects != 1 || m.Distinct != 1 || m.Equal != 0 {
		t.Errorf("Match(a job) = %+v; want 1 object, equal to no other", m)
	}
}
