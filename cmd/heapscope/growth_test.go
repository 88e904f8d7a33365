package main

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"
	"testing"
)

// TestPythonTrendLabels follows a real Python program's five snapshots,
// in which types are flat, grow steadily, grow with a pause, warm up then
// stay, shrink, fluctuate, or keep their count while their bytes grow
// (one buffer; fewer tables, one ever bigger). Every type's counts and
// bytes are what the program itself counts with sys.getsizeof, and its
// label is the one its shape calls for.
func TestPythonTrendLabels(t *testing.T) {
	dir := t.TempDir()
	var prog struct {
		Want map[string][2]string `json:"want"`
		Seen map[string]struct {
			Counts []int64  `json:"counts"`
			Bytes  []uint64 `json:"bytes"`
		} `json:"seen"`
	}
	if err := json.Unmarshal(runPython(t, "series.py", dir), &prog); err != nil {
		t.Fatal(err)
	}
	args := []string{"trend", "--json"}
	for i := 0; i < 5; i++ {
		args = append(args, filepath.Join(dir, fmt.Sprintf("%d.pysnap", i)))
	}
	var tr struct {
		Rows []struct {
			Type   string   `json:"type"`
			Counts []int64  `json:"counts"`
			Bytes  []uint64 `json:"bytes"`
			Growth string   `json:"growth"`
			By     string   `json:"by"`
		} `json:"rows"`
	}
	runJSON(t, &tr, args...)
	found := map[string]bool{}
	for _, r := range tr.Rows {
		want, ok := prog.Want[r.Type]
		if !ok {
			continue
		}
		found[r.Type] = true
		seen := prog.Seen[r.Type]
		if !slices.Equal(r.Counts, seen.Counts) || !slices.Equal(r.Bytes, seen.Bytes) {
			t.Errorf("%s: counts %v bytes %v, the program counts %v and %v", r.Type, r.Counts, r.Bytes, seen.Counts, seen.Bytes)
		}
		if r.Growth != want[0] || r.By != want[1] {
			t.Errorf("%s: %s by %s, want %s by %s (counts %v, bytes %v)", r.Type, r.Growth, r.By, want[0], want[1], r.Counts, r.Bytes)
		}
	}
	for typ, want := range prog.Want {
		if want[0] == "flat" {
			if found[typ] {
				t.Errorf("%s never changed but is listed", typ)
			}
		} else if !found[typ] {
			t.Errorf("%s (%s) is not listed", typ, want[0])
		}
	}
}
