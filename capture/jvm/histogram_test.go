package jvm

import (
	"strings"
	"testing"
)

func TestParseHistogram(t *testing.T) {
	text := `18776:
 num     #instances         #bytes  class name (module)
-------------------------------------------------------
   1:          7197         332448  [B (java.base@17.0.15)
   2:          3322         192440  [I (java.base@17.0.15)
   3:           881         115424  [Ljava.lang.Object; (java.base@17.0.15)
   4:             2             64  [[Ljava.lang.String; (java.base@17.0.15)
   5:           995          31840  java.util.HashMap$Node (java.base@17.0.15)
   6:            10            160  H
   7:             1             16  H$$Lambda$14/0x0000000800c01000
Total         29627        1351928
`
	rows, err := parseHistogram(strings.NewReader(text))
	if err != nil {
		t.Fatal(err)
	}
	want := []ClassCount{
		{"byte[]", 7197, 332448}, {"int[]", 3322, 192440}, {"java.lang.Object[]", 881, 115424},
		{"java.lang.String[][]", 2, 64}, {"java.util.HashMap$Node", 995, 31840}, {"H", 10, 160},
		{"H$$Lambda$14/0x0000000800c01000", 1, 16},
	}
	if len(rows) != len(want) {
		t.Fatalf("rows = %v", rows)
	}
	for i := range want {
		if rows[i] != want[i] {
			t.Errorf("row %d = %v, want %v", i, rows[i], want[i])
		}
	}
	if _, err := parseHistogram(strings.NewReader("   1:   x   12  [B\n")); err == nil || !strings.Contains(err.Error(), "line 1") {
		t.Errorf("a bad row: %v", err)
	}
}

func FuzzParseHistogram(f *testing.F) {
	f.Add("   1:          7197         332448  [B (java.base@17.0.15)\nTotal 1 2\n")
	f.Add("   2:  1 2 [[[Lx;\n")
	f.Fuzz(func(t *testing.T, s string) {
		rows, err := parseHistogram(strings.NewReader(s))
		if err == nil && len(rows) > strings.Count(s, "\n")+1 {
			t.Fatalf("%d rows from %d lines", len(rows), strings.Count(s, "\n")+1)
		}
	})
}
