package hprof

import (
	"errors"
	"io"
	"reflect"
	"strings"
	"testing"

	"github.com/heapscope/heapscope/heap"
)

// sameWithoutEdges checks that skip, a dump read with SkipEdges, holds
// what full, the same dump read whole, holds but its edges: every
// object's address, type, size, name, value, digest, length, flags and
// superclass (the one edge of a class kept), the roots, the warnings
// word for word and the metadata. It returns
// how many objects full names "thread ...", which skip must name alike.
func sameWithoutEdges(t *testing.T, what string, full, skip *heap.Graph) (threads int) {
	t.Helper()
	if full.EdgesSkipped() || !skip.EdgesSkipped() {
		t.Fatalf("%s: EdgesSkipped %v whole, %v with SkipEdges", what, full.EdgesSkipped(), skip.EdgesSkipped())
	}
	if full.NumObjects() != skip.NumObjects() {
		t.Fatalf("%s: %d objects with SkipEdges, %d whole", what, skip.NumObjects(), full.NumObjects())
	}
	if skip.NumEdges() >= full.NumEdges() && full.NumEdges() > 0 {
		t.Errorf("%s: %d edges with SkipEdges, %d whole", what, skip.NumEdges(), full.NumEdges())
	}
	for id := range full.Objects() {
		fn, _ := full.Name(id)
		sn, _ := skip.Name(id)
		fv, _ := full.Value(id)
		sv, _ := skip.Value(id)
		fd, fdok := full.Digest(id)
		sd, sdok := skip.Digest(id)
		fl, flok := full.Length(id)
		sl, slok := skip.Length(id)
		if full.Addr(id) != skip.Addr(id) || full.Size(id) != skip.Size(id) ||
			full.TypeName(full.Type(id)) != skip.TypeName(skip.Type(id)) || fn != sn || fv != sv ||
			fd != sd || fdok != sdok || fl != sl || flok != slok || full.Flags(id) != skip.Flags(id) {
			t.Fatalf("%s: object %d is %#x %s %d %q %q with SkipEdges, %#x %s %d %q %q whole", what, id,
				skip.Addr(id), skip.TypeName(skip.Type(id)), skip.Size(id), sn, sv,
				full.Addr(id), full.TypeName(full.Type(id)), full.Size(id), fn, fv)
		}
		if strings.HasPrefix(fn, "thread ") {
			threads++
		}
		if fs, ss := superOf(full, id), superOf(skip, id); fs != ss {
			t.Fatalf("%s: object %d (%s) has the superclass %d with SkipEdges, %d whole", what, id, fn, ss, fs)
		}
	}
	if len(full.Roots()) != len(skip.Roots()) {
		t.Fatalf("%s: %d roots with SkipEdges, %d whole", what, len(skip.Roots()), len(full.Roots()))
	}
	for i, r := range full.Roots() {
		s := skip.Roots()[i]
		if r.Object != s.Object || r.Kind != s.Kind || full.String(r.Name) != skip.String(s.Name) {
			t.Fatalf("%s: root %d is %v %q with SkipEdges, %v %q whole", what, i, s, skip.String(s.Name), r, full.String(r.Name))
		}
	}
	if !reflect.DeepEqual(full.Warnings(), skip.Warnings()) {
		t.Errorf("%s: warnings with SkipEdges\n%v\nwhole\n%v", what, skip.Warnings(), full.Warnings())
	}
	if !reflect.DeepEqual(full.Meta(), skip.Meta()) {
		t.Errorf("%s: metadata with SkipEdges %+v, whole %+v", what, skip.Meta(), full.Meta())
	}
	return threads
}

// superOf returns the object that id's "<super>" edge leads to, or -1.
func superOf(g *heap.Graph, id heap.ObjectID) int64 {
	for _, e := range g.Edges(id) {
		if e.Label.Kind() == heap.Internal && !e.Label.IsIndex() && g.EdgeName(e.Label) == "<super>" {
			return int64(e.To)
		}
	}
	return -1
}

// TestSkipEdges reads the hand-made dumps (one cut short, one with
// references to no object) and a real JVM's dump, taken with class data
// sharing on so that it refers to objects it leaves out, whole and
// without edges.
func TestSkipEdges(t *testing.T) {
	for name, b := range testdataFiles() {
		r := strings.NewReader(string(b))
		full, ferr := Options{}.Read(r, int64(len(b)))
		skip, serr := Options{SkipEdges: true}.Read(r, int64(len(b)))
		if (ferr == nil) != (serr == nil) || (ferr != nil && ferr.Error() != serr.Error()) {
			t.Fatalf("%s: error %v with SkipEdges, %v whole", name, serr, ferr)
		}
		if ferr != nil && !errors.Is(ferr, io.ErrUnexpectedEOF) {
			t.Fatalf("%s: %v", name, ferr)
		}
		sameWithoutEdges(t, name, full, skip)
	}

	dir := javaDemo(t)
	dump, _ := runDemo(t, dir, 2000)
	full, err := Open(dump)
	if err != nil {
		t.Fatal(err)
	}
	skip, err := Options{SkipEdges: true}.Open(dump)
	if err != nil {
		t.Fatal(err)
	}
	if danglingCount(full) == 0 {
		t.Errorf("the JVM's dump refers to no object it leaves out: want some, with class data sharing on")
	}
	if threads := sameWithoutEdges(t, "the JVM's dump", full, skip); threads == 0 {
		t.Errorf("no thread object is named in the JVM's dump")
	}
}
