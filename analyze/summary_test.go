package analyze_test

import (
	"reflect"
	"testing"

	"github.com/heapscope/heapscope/analyze"
	"github.com/heapscope/heapscope/heap"
	"github.com/heapscope/heapscope/internal/heaptest"
)

func TestSummary(t *testing.T) {
	g := heaptest.MustParse(t, `
a A 10
b A 10
c B 30
d C 5
e C 5
f D 20
`)
	got := analyze.Summary(g)
	want := []analyze.TypeSummary{{"B", 1, 30}, {"A", 2, 20}, {"D", 1, 20}, {"C", 2, 10}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Summary() = %v, want %v", got, want)
	}
}

func TestDiff(t *testing.T) {
	before := heaptest.MustParse(t, `
a A 10
b B 10
c Gone 7
`)
	after := heaptest.MustParse(t, `
a A 10
b B 10
x B 10
y B 10
n New 100
`)
	got := analyze.Diff(before, after, analyze.DiffOptions{})
	want := []analyze.TypeDelta{
		{Type: "New", CountAfter: 1, CountDelta: 1, BytesAfter: 100, BytesDelta: 100, Status: "appeared", New: -1, NewBytes: -1, Deleted: -1, DeletedBytes: -1},
		{Type: "B", CountBefore: 1, CountAfter: 3, CountDelta: 2, BytesBefore: 10, BytesAfter: 30, BytesDelta: 20, New: -1, NewBytes: -1, Deleted: -1, DeletedBytes: -1},
		{Type: "Gone", CountBefore: 1, CountDelta: -1, BytesBefore: 7, BytesDelta: -7, Status: "vanished", New: -1, NewBytes: -1, Deleted: -1, DeletedBytes: -1},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Diff() =\n%+v\nwant\n%+v", got, want)
	}
	// The DSL gives addresses by declaration order: a and b keep theirs, x
	// takes the address c had, but c was a Gone: x, y and n are new.
	byType := map[string]analyze.TypeDelta{}
	rows := analyze.Diff(before, after, analyze.DiffOptions{Identity: true})
	for _, d := range rows {
		byType[d.Type] = d
	}
	for typ, want := range map[string][4]int{"B": {2, 20, 0, 0}, "New": {1, 100, 0, 0}, "Gone": {0, 0, 1, 7}, "A": {0, 0, 0, 0}} {
		d := byType[typ]
		if got := [4]int{d.New, int(d.NewBytes), d.Deleted, int(d.DeletedBytes)}; got != want {
			t.Errorf("identity diff of %s: new, new bytes, deleted, deleted bytes = %v, want %v", typ, got, want)
		}
	}
	// The objects of a row: new in after, deleted from before.
	for _, tc := range []struct {
		typ     string
		deleted bool
		want    []heap.ObjectID
	}{
		{"B", false, []heap.ObjectID{2, 3}},
		{"Gone", true, []heap.ObjectID{2}},
		{"A", false, nil},
		{"Gone", false, nil},
	} {
		if got := analyze.DiffObjects(before, after, byType[tc.typ], tc.deleted); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("DiffObjects(%s, deleted %v) = %v, want %v", tc.typ, tc.deleted, got, tc.want)
		}
	}
}
