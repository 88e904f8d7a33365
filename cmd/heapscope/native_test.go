package main

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/heapscope/heapscope/agent"
)

// TestNativeKeeps builds a real Cython extension (testdata/nativekeep/
// keeper.pyx) that keeps memoryviews of numpy arrays in a C struct and
// never releases them, runs a program that hands it 60 arrays of 1 MiB,
// and checks that top says what the memoryviews held outside the heap
// keep: the 60 arrays, 1 MiB each, with the dtype and shape numpy gives
// them, read from the snapshot without running numpy's code. Before,
// top stopped at "60 memoryview".
func TestNativeKeeps(t *testing.T) {
	py := "/usr/bin/python3"
	const config = "/usr/bin/python3-config" // Debian's, for its python3
	for _, tool := range []string{"cython3", "gcc", config} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("%s is not installed (Debian cython3, build-essential, python3-dev)", tool)
		}
	}
	if err := exec.Command(py, "-c", "import numpy").Run(); err != nil {
		t.Skipf("%s cannot import numpy", py)
	}
	dir := t.TempDir()
	src, err := filepath.Abs(filepath.Join("testdata", "nativekeep", "keeper.pyx"))
	if err != nil {
		t.Fatal(err)
	}
	suffix, err := exec.Command(config, "--extension-suffix").Output()
	if err != nil {
		t.Fatal(err)
	}
	includes, err := exec.Command(config, "--includes").Output()
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range [][]string{
		{"cython3", "-3", src, "-o", filepath.Join(dir, "keeper.c")},
		append(append([]string{"gcc", "-shared", "-fPIC", "-O1"}, strings.Fields(string(includes))...),
			filepath.Join(dir, "keeper.c"), "-o", filepath.Join(dir, "keeper"+strings.TrimSpace(string(suffix)))),
	} {
		if out, err := exec.Command(c[0], c[1:]...).CombinedOutput(); err != nil {
			t.Fatalf("%s: %v\n%s", strings.Join(c, " "), err, out)
		}
	}
	pp, err := agent.Dir()
	if err != nil {
		t.Fatal(err)
	}
	snap := filepath.Join(dir, "keep.pysnap")
	cmd := exec.Command(py, filepath.Join("testdata", "nativekeep.py"), snap)
	cmd.Env = append(os.Environ(), "PYTHONPATH="+dir+string(os.PathListSeparator)+pp)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("nativekeep.py: %v\n%s", err, stderr.String())
	}
	var numpy struct {
		Arrays int    `json:"arrays"`
		Size   uint64 `json:"size"`
		Dtype  string `json:"dtype"`
		Shape  []int  `json:"shape"`
	}
	if err := json.Unmarshal(out, &numpy); err != nil {
		t.Fatal(err)
	}
	var top struct {
		Suspects []struct {
			Text string `json:"text"`
		} `json:"suspects"`
		Native []struct {
			Type  string `json:"type"`
			Count int    `json:"count"`
			Keeps []struct {
				Type    string `json:"type"`
				Count   int    `json:"count"`
				Least   uint64 `json:"least_bytes"`
				Most    uint64 `json:"most_bytes"`
				Example struct {
					Value string `json:"value"`
				} `json:"example"`
			} `json:"keeps"`
		} `json:"held_outside_heap"`
	}
	runJSON(t, &top, "top", "--json", snap)
	var shape []string
	for _, d := range numpy.Shape {
		shape = append(shape, fmt.Sprint(d))
	}
	label := numpy.Dtype + " (" + strings.Join(shape, ", ") + ")"
	found := false
	for _, n := range top.Native {
		if n.Type != "memoryview" {
			continue
		}
		found = true
		if n.Count != numpy.Arrays || len(n.Keeps) == 0 {
			t.Fatalf("%d memoryview held outside the heap keeping %+v; want %d keeping the arrays", n.Count, n.Keeps, numpy.Arrays)
		}
		k := n.Keeps[0]
		// An array's retained size is sys.getsizeof's: its data and header.
		if k.Type != "numpy.ndarray" || k.Count != numpy.Arrays || k.Least != numpy.Size || k.Most != numpy.Size || k.Example.Value != label {
			t.Errorf("the memoryviews keep %d %s (%d to %d bytes, e.g. %q); numpy says %d arrays of %d bytes, %s",
				k.Count, k.Type, k.Least, k.Most, k.Example.Value, numpy.Arrays, numpy.Size, label)
		}
	}
	if !found {
		t.Fatalf("no memoryview held outside the heap: %+v", top.Native)
	}
	want := fmt.Sprintf("%d memoryview -> %d numpy.ndarray %s, 1.0 MiB each, held outside the heap", numpy.Arrays, numpy.Arrays, label)
	if len(top.Suspects) == 0 || top.Suspects[0].Text != want {
		t.Errorf("suspects %+v; want first %q", top.Suspects, want)
	}
}
