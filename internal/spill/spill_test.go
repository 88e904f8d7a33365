//go:build linux

package spill

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"unsafe"
)

// withLimit sets the budget to n for the test, and back to none after.
func withLimit(t *testing.T, n int64) {
	t.Helper()
	SetLimit(n)
	t.Cleanup(func() { SetLimit(0) })
}

// spillMaps returns the process's mappings of spill files, as
// /proc/self/maps lists them: start address -> the line.
func spillMaps(t *testing.T) map[uintptr]string {
	t.Helper()
	f, err := os.Open("/proc/self/maps")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	out := map[uintptr]string{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		if !strings.Contains(line, "heapscope-spill-") {
			continue
		}
		start, _, _ := strings.Cut(line, "-")
		a, err := strconv.ParseUint(start, 16, 64)
		if err != nil {
			t.Fatalf("maps line %q: %v", line, err)
		}
		out[uintptr(a)] = line
	}
	return out
}

func addr[T any](s []T) uintptr { return uintptr(unsafe.Pointer(unsafe.SliceData(s))) }

func TestNoBudgetIsMake(t *testing.T) {
	SetLimit(0)
	before := Spilled()
	s := Make[uint64](1 << 20)
	if len(s) != 1<<20 || cap(s) != 1<<20 {
		t.Fatalf("len %d cap %d", len(s), cap(s))
	}
	if Spilled() != before {
		t.Errorf("spilled %d bytes without a budget", Spilled()-before)
	}
	if _, ok := spillMaps(t)[addr(s)]; ok {
		t.Error("the array is in a file without a budget")
	}
}

func TestUnderBudget(t *testing.T) {
	withLimit(t, 1<<40)
	before := Spilled()
	s := Make[uint32](1 << 20)
	if Spilled() != before {
		t.Errorf("a 4 MiB array under a 1 TiB budget went to a file")
	}
	if _, ok := spillMaps(t)[addr(s)]; ok {
		t.Error("the array is in a file under the budget")
	}
}

func TestOverBudget(t *testing.T) {
	t.Setenv("TMPDIR", t.TempDir())
	withLimit(t, 16<<20)
	before := Spilled()
	const n = 8 << 20 // 32 MiB of uint32, over a third of the budget
	s := Make[uint32](n)
	if got := Spilled() - before; got != 4*n {
		t.Fatalf("spilled %d bytes, want %d", got, 4*n)
	}
	line, ok := spillMaps(t)[addr(s)]
	if !ok {
		t.Fatal("the array is not in a spill file's mapping")
	}
	if !strings.HasSuffix(line, "(deleted)") {
		t.Errorf("the spill file is not unlinked: %s", line)
	}
	if ents, _ := os.ReadDir(os.Getenv("TMPDIR")); len(ents) != 0 {
		t.Errorf("files left in the temporary directory: %v", ents)
	}
	for i, v := range s {
		if v != 0 {
			t.Fatalf("element %d is %d, not zero", i, v)
		}
	}
	for i := range s {
		s[i] = uint32(i) * 2654435761
	}
	trim() // drop the pages: they come back from the page cache
	for i, v := range s {
		if v != uint32(i)*2654435761 {
			t.Fatalf("element %d read back %d", i, v)
		}
	}
	// A small array and one with pointers stay in memory.
	if small := Make[byte](100); spillMaps(t)[addr(small)] != "" {
		t.Error("a 100-byte array went to a file")
	}
	if ptrs := Make[*int](1 << 20); spillMaps(t)[addr(ptrs)] != "" {
		t.Error("an array of pointers went to a file")
	}
	type pair struct {
		a uint32
		b [2]int64
	}
	if p := Make[pair](1 << 20); spillMaps(t)[addr(p)] == "" {
		t.Error("an array of a plain struct stayed in memory over the budget")
	}
	Free(s)
	if _, ok := spillMaps(t)[addr(s)]; ok {
		t.Error("Free left the mapping")
	}
}

func TestGrowKeepsContents(t *testing.T) {
	withLimit(t, 16<<20)
	live := len(spillMaps(t))
	var s []uint64
	for i := range 3 << 20 { // 24 MiB at the end, through files from 64 KiB
		if len(s) == cap(s) {
			s = Grow(s, 1)
		}
		s = append(s, uint64(i)<<20|uint64(i))
	}
	if addr(s) == 0 || spillMaps(t)[addr(s)] == "" {
		t.Fatal("the grown array is not in a file")
	}
	for i, v := range s {
		if v != uint64(i)<<20|uint64(i) {
			t.Fatalf("element %d is %#x after growing", i, v)
		}
	}
	// Every array Grow left behind was released: one mapping is left.
	if got := len(spillMaps(t)) - live; got != 1 {
		t.Errorf("%d more spill mappings, want 1 (the last array)", got)
	}
	s = s[:len(s)-1]
	if g := Grow(s, 1); addr(g) != addr(s) || len(g) != len(s) {
		t.Error("Grow moved an array that had room")
	}
	Free(s)
	if got := len(spillMaps(t)) - live; got != 0 {
		t.Errorf("%d spill mappings left after Free", got)
	}
}

// TestResidentBounded runs a child that fills and reads back 256 MiB of
// arrays under a 64 MiB budget, and checks that its peak resident set
// (VmHWM) stays well under what the arrays take.
func TestResidentBounded(t *testing.T) {
	if os.Getenv("SPILL_CHILD") == "1" {
		child()
		return
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestResidentBounded$")
	cmd.Env = append(os.Environ(), "SPILL_CHILD=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("child: %v\n%s", err, out)
	}
	var hwm, trims int64
	for _, line := range strings.Split(string(out), "\n") {
		fmt.Sscanf(line, "hwm %d trims %d", &hwm, &trims)
	}
	if hwm == 0 {
		t.Fatalf("child printed no peak:\n%s", out)
	}
	t.Logf("peak resident set %d MiB, %d trims, for 256 MiB of arrays under a 64 MiB budget", hwm>>20, trims)
	if trims == 0 {
		t.Error("the watchdog never dropped the mapped pages")
	}
	// The budget plus the watchdog's margin and a loaded machine's delays;
	// without spill the peak is over 256 MiB.
	if hwm > 128<<20 {
		t.Errorf("peak resident set %d MiB over a 64 MiB budget, want under 128", hwm>>20)
	}
}

func child() {
	SetLimit(64 << 20)
	var arrays [][]uint64
	for k := range 8 {
		s := Make[uint64](4 << 20) // 32 MiB each
		for i := range s {
			s[i] = uint64(k)<<40 | uint64(i)
		}
		arrays = append(arrays, s)
	}
	for k, s := range arrays {
		for i, v := range s {
			if v != uint64(k)<<40|uint64(i) {
				fmt.Printf("array %d element %d read back %#x\n", k, i, v)
				os.Exit(1)
			}
		}
	}
	status, _ := os.ReadFile("/proc/self/status")
	for _, line := range bytes.Split(status, []byte("\n")) {
		if f := bytes.Fields(line); len(f) == 3 && string(f[0]) == "VmHWM:" {
			kb, _ := strconv.ParseInt(string(f[1]), 10, 64)
			fmt.Printf("hwm %d trims %d\n", kb<<10, Trims())
		}
	}
}
