package analyze_test

import (
	"reflect"
	"testing"

	"github.com/heapscope/heapscope/analyze"
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
		{Type: "New", CountAfter: 1, CountDelta: 1, BytesAfter: 100, BytesDelta: 100, Status: "appeared", New: -1},
		{Type: "B", CountBefore: 1, CountAfter: 3, CountDelta: 2, BytesBefore: 10, BytesAfter: 30, BytesDelta: 20, New: -1},
		{Type: "Gone", CountBefore: 1, CountDelta: -1, BytesBefore: 7, BytesDelta: -7, Status: "vanished", New: -1},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Diff() =\n%+v\nwant\n%+v", got, want)
	}
	// The DSL gives addresses by declaration order: a and b keep theirs, x
	// takes the address c had, but c was a Gone: x, y and n are new.
	byType := map[string]int{}
	for _, d := range analyze.Diff(before, after, analyze.DiffOptions{Identity: true}) {
		byType[d.Type] = d.New
	}
	if byType["B"] != 2 || byType["New"] != 1 {
		t.Errorf("identity diff new counts = %v, want B:2 New:1", byType)
	}
}
