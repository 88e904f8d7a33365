package main

import (
	"bytes"
	"encoding/json"
	"io"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestDuplicatesOneLine: duplicates shows a value that holds a newline and
// a tab escaped, as Go quotes it, so each group stays on one line.
func TestDuplicatesOneLine(t *testing.T) {
	snap := filepath.Join(t.TempDir(), "d.pysnap")
	runPython(t, "dupvalues.py", snap)
	var out, errOut bytes.Buffer
	if err := run([]string{"duplicates", "--width", "0", snap}, &out, &errOut); err != nil {
		t.Fatalf("duplicates: %v\n%s", err, errOut.String())
	}
	text := out.String()
	var row string
	for _, l := range strings.Split(text, "\n") {
		if strings.Contains(l, `"first line\nsecond\tline"`) {
			row = l
		}
	}
	if !regexp.MustCompile(`^\s*\S+ \S+\s+50\s+\S+ \S+\s+str\s+"`).MatchString(row) {
		t.Errorf("no one-line group of the 50 strings:\n%s", text)
	}
	if strings.Contains(text, "first line\n") || strings.Contains(text, "second\tline") {
		t.Errorf("a value's newline or tab is printed raw:\n%s", text)
	}
}

// valuesDoc is what the tests read of duplicates --json: the objects
// equal by value.
type valuesDoc struct {
	Values []struct {
		Text     string `json:"text"`
		Type     string `json:"type"`
		Count    int    `json:"count"`
		Distinct int    `json:"distinct"`
		Example  struct {
			Text string `json:"text"`
		} `json:"example"`
		Holders []struct {
			Count     int    `json:"count"`
			Distinct  int    `json:"distinct"`
			Place     string `json:"place"`
			OneOfEach bool   `json:"one_of_each"`
		} `json:"holders"`
	} `json:"values"`
}

// TestDuplicatesByValue runs a real compiler built on llvmlite whose
// cache of struct types misses (its callers pass weak proxies as keys):
// 588 LiteralStructTypes, 15 distinct by Python's own equality, 15 of
// them in the cache. duplicates finds the same numbers from the
// snapshot alone, first, with the cache named as holding one of each
// value and the functions' arguments the rest.
func TestDuplicatesByValue(t *testing.T) {
	py := "/usr/bin/python3"
	if err := exec.Command(py, "-c", "import llvmlite.ir").Run(); err != nil {
		t.Skipf("%s cannot import llvmlite (Debian python3-llvmlite)", py)
	}
	snap := filepath.Join(t.TempDir(), "s.pysnap")
	var oracle struct {
		Structs, Distinct, Cached int
	}
	if err := json.Unmarshal(runPythonWith(t, py, "structcache.py", snap), &oracle); err != nil {
		t.Fatal(err)
	}
	var dup valuesDoc
	runJSON(t, &dup, "duplicates", "--json", snap)
	if len(dup.Values) == 0 {
		t.Fatal("duplicates finds no objects equal by value")
	}
	v := dup.Values[0]
	if v.Type != "llvmlite.ir.types.LiteralStructType" || v.Count != oracle.Structs || v.Distinct != oracle.Distinct {
		t.Fatalf("first group %q (%d copies, %d values); Python says %d LiteralStructType, %d distinct",
			v.Text, v.Count, v.Distinct, oracle.Structs, oracle.Distinct)
	}
	var cache, args bool
	for _, h := range v.Holders {
		switch {
		case strings.HasSuffix(h.Place, ".ctx._cache.data[*]"):
			cache = h.Count == oracle.Cached && h.Distinct == oracle.Distinct && h.OneOfEach
		case strings.HasSuffix(h.Place, ".args[*]"):
			args = h.Count == oracle.Structs-oracle.Cached
		}
	}
	if !cache || !args {
		t.Errorf("holders of %q: %+v; want %d (one of each value) in ctx._cache and %d in the functions' arguments",
			v.Text, v.Holders, oracle.Cached, oracle.Structs-oracle.Cached)
	}
	if !strings.HasPrefix(v.Example.Text, "LiteralStructType(") || !strings.Contains(v.Example.Text, "elements=(") {
		t.Errorf("example %q does not show the struct's elements", v.Example.Text)
	}
	var text bytes.Buffer
	if err := run([]string{"duplicates", "--width", "0", snap}, &text, io.Discard); err != nil {
		t.Fatal(err)
	}
	if want := "588 llvmlite.ir.types.LiteralStructType, 15 distinct values, each built about 39 times"; !strings.Contains(text.String(), want) {
		t.Errorf("the text does not say %q:\n%s", want, text.String())
	}
}

// TestLeaksCopies: the llvmlite compiler whose struct type cache misses,
// snapshotted after each of three rounds of 196 functions: leaks' one
// finding (the functions in the module's globals) says that the struct
// types its functions hold are copies, 196 of Python's 15 distinct
// values, equal by value to the other 392, 15 of them, one of each
// value, in ctx._cache, where lookups miss; in text and JSON.
func TestLeaksCopies(t *testing.T) {
	py := "/usr/bin/python3"
	if err := exec.Command(py, "-c", "import llvmlite.ir").Run(); err != nil {
		t.Skipf("%s cannot import llvmlite (Debian python3-llvmlite)", py)
	}
	dir := t.TempDir()
	snaps := []string{filepath.Join(dir, "1.pysnap"), filepath.Join(dir, "2.pysnap"), filepath.Join(dir, "3.pysnap")}
	var oracle struct {
		Structs, Distinct, Cached int
	}
	if err := json.Unmarshal(runPythonWith(t, py, "structcache.py", snaps...), &oracle); err != nil {
		t.Fatal(err)
	}
	var rep struct {
		Rows []struct {
			Text   string `json:"text"`
			Count  int    `json:"count"`
			Copies *struct {
				Text     string `json:"text"`
				Type     string `json:"type"`
				Count    int    `json:"count"`
				Distinct int    `json:"distinct"`
				Equal    int    `json:"equal"`
				Misses   bool   `json:"misses"`
				Holders  []struct {
					Count     int    `json:"count"`
					Distinct  int    `json:"distinct"`
					Place     string `json:"place"`
					OneOfEach bool   `json:"one_of_each"`
				} `json:"holders"`
			} `json:"copies"`
		} `json:"rows"`
	}
	runJSON(t, &rep, append([]string{"leaks", "--json"}, snaps...)...)
	if len(rep.Rows) == 0 {
		t.Fatal("leaks finds nothing")
	}
	f := rep.Rows[0]
	c := f.Copies
	perRound := oracle.Structs / 3
	if c == nil || c.Type != "llvmlite.ir.types.LiteralStructType" || c.Count != perRound || c.Distinct != oracle.Distinct ||
		c.Equal != oracle.Structs-perRound || !c.Misses {
		t.Fatalf("finding %q: copies %+v; want %d LiteralStructType of Python's %d distinct values, equal to %d more, a cache that misses",
			f.Text, c, perRound, oracle.Distinct, oracle.Structs-perRound)
	}
	cache := false
	for _, h := range c.Holders {
		if strings.HasSuffix(h.Place, ".ctx._cache.data[*]") {
			cache = h.Count == oracle.Cached && h.Distinct == oracle.Distinct && h.OneOfEach
		}
	}
	if !cache {
		t.Errorf("copies' holders %+v: want %d, one of each value, in ctx._cache", c.Holders, oracle.Cached)
	}
	var text bytes.Buffer
	if err := run(append([]string{"leaks", "--width", "0"}, snaps...), &text, io.Discard); err != nil {
		t.Fatal(err)
	}
	want := "copies   196 llvmlite.ir.types.LiteralStructType, 15 distinct values, each built about 13 times; equal by value to 392 more"
	if !strings.Contains(text.String(), want) || !strings.Contains(text.String(), "15 at __main__.ctx._cache.data[*] (one of each value: lookups in it miss)") {
		t.Errorf("the text does not say %q and where the cache is:\n%s", want, text.String())
	}
}

// structOracle is what a structcache program's own equality says of its
// struct types: how many its functions hold, how many distinct values
// they and its table have, and how many its table holds.
type structOracle struct {
	Structs, Distinct, Cached int
}

// checkStructCopies checks duplicates and leaks on the three snapshots
// of a structcache program (its table of struct types keyed by object
// identity, looked up with copies, so every lookup misses) against what
// the program's own equality says: duplicates' first group is the struct
// type with every copy and the program's count of distinct values, one
// of each in the table (cacheAt, a suffix of its place), marked as a
// cache that misses; leaks' first finding says its objects hold copies of
// those values, equal to the table's.
func checkStructCopies(t *testing.T, snaps []string, typ, cacheAt string, o structOracle, leakedCopies int) {
	t.Helper()
	var dup valuesDoc
	runJSON(t, &dup, "duplicates", "--json", snaps[2])
	if len(dup.Values) == 0 {
		t.Fatal("duplicates finds no objects equal by value")
	}
	v := dup.Values[0]
	if v.Type != typ || v.Count != o.Structs+o.Cached || v.Distinct != o.Distinct {
		t.Fatalf("first group %q; the program says %d %s in its functions and %d in its table, %d distinct",
			v.Text, o.Structs, typ, o.Cached, o.Distinct)
	}
	cache := false
	for _, h := range v.Holders {
		if strings.HasSuffix(h.Place, cacheAt) {
			cache = h.Count == o.Cached && h.Distinct == o.Distinct && h.OneOfEach
		}
	}
	if !cache {
		t.Errorf("holders of %q: %+v; want %d, one of each value, at …%s", v.Text, v.Holders, o.Cached, cacheAt)
	}
	var rep struct {
		Rows []struct {
			Text   string `json:"text"`
			Copies *struct {
				Type     string `json:"type"`
				Count    int    `json:"count"`
				Distinct int    `json:"distinct"`
				Misses   bool   `json:"misses"`
				Text     string `json:"text"`
			} `json:"copies"`
		} `json:"rows"`
	}
	runJSON(t, &rep, append([]string{"leaks", "--json"}, snaps...)...)
	if len(rep.Rows) == 0 {
		t.Fatal("leaks finds nothing")
	}
	c := rep.Rows[0].Copies
	if c == nil || c.Type != typ || c.Count != leakedCopies || c.Distinct != o.Distinct || !c.Misses {
		t.Errorf("finding %q: copies %+v; want %d %s of %d distinct values, a cache that misses", rep.Rows[0].Text, c, leakedCopies, typ, o.Distinct)
	}
}

// TestJavaCopies: StructCache.java on a real JVM, the struct types of a
// table keyed by identity that copies of the records miss. Its classes'
// fields are all references, which HPROF's reader marks whole, so they
// are compared by value; leaks cannot match objects across HPROF dumps,
// so its finding is every function (588) and all their struct types.
func TestJavaCopies(t *testing.T) {
	t.Parallel()
	dir := compileJava(t, filepath.Join("testdata", "structcache", "StructCache.java"))
	out, err := exec.Command("java", "-Xmx256m", "-cp", dir, "structcache.StructCache", dir).Output()
	if err != nil {
		t.Fatalf("java: %v", err)
	}
	var o structOracle
	if err := json.Unmarshal(out, &o); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	snaps := []string{filepath.Join(dir, "baseline.hprof"), filepath.Join(dir, "target.hprof"), filepath.Join(dir, "final.hprof")}
	checkStructCopies(t, snaps, "structcache.StructType", ".CTX.declared.table[*]", o, o.Structs)
}

// TestNodeCopies: structcache.js on real Node, snapshots with numeric
// values (without them V8 objects are compared by identity): its struct
// types are copies of 15 values, one of each in a Map that copies of
// the records miss; leaks' finding, the round's 196 functions, holds 196.
func TestNodeCopies(t *testing.T) {
	if _, err := exec.LookPath("node"); err != nil {
		t.Skip("node is not installed")
	}
	t.Parallel()
	dir := t.TempDir()
	snaps := []string{filepath.Join(dir, "1.heapsnapshot"), filepath.Join(dir, "2.heapsnapshot"), filepath.Join(dir, "3.heapsnapshot")}
	out, err := exec.Command("node", append([]string{filepath.Join("testdata", "structcache.js")}, snaps...)...).Output()
	if err != nil {
		t.Fatalf("node: %v", err)
	}
	var o structOracle
	if err := json.Unmarshal(out, &o); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	checkStructCopies(t, snaps, "StructType", ".ctx.declared.table[*]", o, o.Structs/3)
}
