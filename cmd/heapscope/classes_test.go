package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// classFactories runs testdata/factories.py in mode ("apart" or
// "shared") and returns the directory of its snapshots a, b and c and
// what it says it made.
func classFactories(t *testing.T, mode string, extra ...string) (string, factoryMade) {
	t.Helper()
	dir := t.TempDir()
	var made factoryMade
	if err := json.Unmarshal(runPython(t, "factories.py", append([]string{dir, mode}, extra...)...), &made); err != nil {
		t.Fatal(err)
	}
	return dir, made
}

// leakPart is a part of a leak finding, as leaks --json writes it.
type leakPart struct {
	Type     string `json:"type"`
	Classes  string `json:"classes"`
	Types    int    `json:"types"`
	Count    int    `json:"count"`
	Shallow  uint64 `json:"shallow_bytes"`
	Retained uint64 `json:"retained_bytes"`
	Path     string `json:"path"`
}

// classLeaks runs leaks --json on the snapshots a, b and c.
func classLeaks(t *testing.T, snap func(string) string) (leaks struct {
	Rows []struct {
		Type    string     `json:"type"`
		Count   int        `json:"count"`
		Path    string     `json:"path"`
		HeldBy  string     `json:"held_by"`
		Parts   []leakPart `json:"parts"`
		Verdict string     `json:"verdict"`
	} `json:"rows"`
}) {
	t.Helper()
	runJSON(t, &leaks, "leaks", "--json", snap("a"), snap("b"), snap("c"))
	return leaks
}

type factoryMade struct {
	Module      string `json:"module"`
	ModelName   string `json:"model_name"`   // the qualified name of one class of make_model
	HandlerName string `json:"handler_name"` // the one name of make_handler's classes
	Counts      []int  `json:"counts"`       // classes each factory had made at a, b and c
}

// TestPythonClassFactories runs a real program with two factories that
// leak classes, one with type() in a loop into a registry dict, one with
// a class statement in a function into a list: leaks reports a finding
// per place that keeps them, with a part per factory that names its
// classes, so one finding with two parts when both keep their classes
// in the same dict; diff and top give each factory its own row; why
// selects one class by its name, qualified or not, and a family by its
// pattern.
func TestPythonClassFactories(t *testing.T) {
	for _, mode := range []string{"apart", "shared"} {
		t.Run(mode, func(t *testing.T) {
			dir, made := classFactories(t, mode)
			snap := func(n string) string { return filepath.Join(dir, n+".pysnap") }
			models := made.Module + ".Model_*"
			families := map[string]string{models: ".REGISTRY", made.HandlerName: ".SUBCLASSES"}
			places := 2
			if mode == "shared" {
				families[made.HandlerName] = ".REGISTRY"
				places = 1
			}
			leaked := made.Counts[1] - made.Counts[0]

			leaks := classLeaks(t, snap)
			found := map[string]int{}
			withClasses := 0
			for _, f := range leaks.Rows {
				classes := 0
				for _, p := range f.Parts {
					if p.Type != "type" {
						continue
					}
					classes++
					holder, ok := families[p.Classes]
					if !ok {
						t.Errorf("a part of classes %q: %+v", p.Classes, p)
						continue
					}
					found[p.Classes]++
					if p.Count != leaked || !strings.Contains(p.Path, holder+" dict") && !strings.Contains(p.Path, holder+" list") {
						t.Errorf("part of %s: %d classes held by %s, want %d held by %s", p.Classes, p.Count, p.Path, leaked, holder)
					}
				}
				if classes > 0 {
					withClasses++
				}
			}
			for fam := range families {
				if found[fam] != 1 {
					t.Errorf("%d parts of classes %s, want 1; findings: %+v", found[fam], fam, leaks.Rows)
				}
			}
			if withClasses != places {
				t.Errorf("%d findings of classes, want %d (one per place); findings: %+v", withClasses, places, leaks.Rows)
			}

			var diff struct {
				Rows []struct {
					Type       string `json:"type"`
					Classes    string `json:"classes"`
					CountDelta int    `json:"count_delta"`
					CountAfter int    `json:"count_after"`
				} `json:"rows"`
			}
			runJSON(t, &diff, "diff", "--json", "--top", "0", snap("a"), snap("c"))
			grew := made.Counts[2] - made.Counts[0]
			rows := map[string]int{}
			for _, r := range diff.Rows {
				if r.Type != "type" {
					continue
				}
				rows[r.Classes] = r.CountDelta
			}
			if rows[models] != grew || rows[made.HandlerName] != grew || rows[""] >= grew {
				t.Errorf("diff rows of type: %v, want %d for %s and for %s, and the rest of type apart", rows, grew, models, made.HandlerName)
			}

			var top struct {
				Types []struct {
					Type    string `json:"type"`
					Classes string `json:"classes"`
					Count   int    `json:"count"`
				} `json:"types"`
			}
			runJSON(t, &top, "top", "--json", "--top", "0", snap("c"))
			counted := map[string]int{}
			for _, r := range top.Types {
				if r.Type == "type" {
					counted[r.Classes] = r.Count
				}
			}
			if counted[models] != made.Counts[2] || counted[made.HandlerName] != made.Counts[2] {
				t.Errorf("top types of type: %v, want %d for %s and for %s", counted, made.Counts[2], models, made.HandlerName)
			}

			short := made.ModelName[strings.LastIndexByte(made.ModelName, '.')+1:]
			for _, sel := range []struct {
				selector string
				n        int
				path     string // in the sample path of the first group
			}{
				{short, 1, fmt.Sprintf("['%s']", short)},
				{made.ModelName, 1, fmt.Sprintf("['%s']", short)},
				{"class:" + short, 1, fmt.Sprintf("['%s']", short)},
				{"class " + made.ModelName, 1, fmt.Sprintf("['%s']", short)},
				{"class:" + models, made.Counts[2], ".REGISTRY"},
				{"Handler", made.Counts[2], families[made.HandlerName]},
				{"class:" + made.HandlerName, made.Counts[2], families[made.HandlerName]},
			} {
				var why struct {
					Selected int `json:"selected"`
					Rows     []struct {
						Sample struct {
							Text string `json:"text"`
						} `json:"sample_path"`
					} `json:"rows"`
				}
				runJSON(t, &why, "why", "--json", snap("c"), sel.selector)
				if why.Selected != sel.n || len(why.Rows) == 0 || !strings.Contains(why.Rows[0].Sample.Text, sel.path) {
					t.Errorf("why %q selects %d objects held by %+v, want %d held through %s", sel.selector, why.Selected, why.Rows, sel.n, sel.path)
				}
			}
			// type: means a type, and no object is of type Model_17.
			var stdout, stderr bytes.Buffer
			if code := exitCode(run([]string{"why", snap("c"), "type:" + short}, &stdout, &stderr)); code != 1 {
				t.Errorf("why type:%s: exit %d, want 1 (no object of that type)", short, code)
			}
		})
	}
}

// TestPythonClassNamesNeedValues: a snapshot taken with values=False has
// no class names, and why says so instead of selecting nothing silently.
func TestPythonClassNamesNeedValues(t *testing.T) {
	dir, made := classFactories(t, "apart", "novalues")
	var stdout, stderr bytes.Buffer
	err := run([]string{"why", filepath.Join(dir, "c.pysnap"), made.ModelName}, &stdout, &stderr)
	if code := exitCode(err); code != 1 || !strings.Contains(err.Error(), "values=False") {
		t.Errorf("why %s on a snapshot without values: exit %d (%v); want 1 and a word on values=False", made.ModelName, code, err)
	}
}

// TestSympyClasses: sympy makes a class per undefined function
// (Function('f_17') is a class, of the metaclass UndefinedFunction) and
// records every class it makes in sympy.core.core.all_classes. diff and
// leaks count them as one family, and why finds the registry for one.
func TestSympyClasses(t *testing.T) {
	py := debianPython(t, "sympy")
	dir := t.TempDir()
	out := runPythonWith(t, py, "sympyclasses.py", dir)
	var made struct {
		Counts []int `json:"counts"`
	}
	if err := json.Unmarshal(out, &made); err != nil {
		t.Fatal(err)
	}
	snap := func(n string) string { return filepath.Join(dir, n+".pysnap") }
	const meta, family = "sympy.core.function.UndefinedFunction", "f_*"

	var diff struct {
		Rows []struct {
			Type       string `json:"type"`
			Classes    string `json:"classes"`
			Types      int    `json:"types"`
			CountDelta int    `json:"count_delta"`
		} `json:"rows"`
	}
	runJSON(t, &diff, "diff", "--json", "--top", "0", snap("a"), snap("c"))
	got, types := -1, -1
	for _, r := range diff.Rows {
		if r.Type == meta && r.Classes == family {
			got = r.CountDelta
		}
		if r.Type == family {
			types = r.Types // f_17(x) and the like: an instance of the class f_17
		}
		if strings.HasPrefix(r.Type, "f_") && r.Type != family {
			t.Errorf("diff row %+v: the instances of one of the classes", r)
		}
	}
	if want := made.Counts[2] - made.Counts[0]; got != want {
		t.Errorf("diff: %s (classes %s) grew by %d, want %d", meta, family, got, want)
	}
	if types != made.Counts[2] {
		t.Errorf("diff: the instances of %d classes %s in one row, want %d", types, family, made.Counts[2])
	}

	leaks := classLeaks(t, snap)
	n, instances := 0, 0
	for _, f := range leaks.Rows {
		for _, p := range f.Parts {
			if strings.HasPrefix(p.Type, "f_") {
				// f_17(x): an instance of the class f_17, held by a cache.
				instances++
				if p.Type != family || p.Types != made.Counts[1]-made.Counts[0] || p.Count != p.Types {
					t.Errorf("part %+v, want the instances of the %d new classes %s in one", p, made.Counts[1]-made.Counts[0], family)
				}
			}
			if p.Type == meta {
				n++
				if p.Classes != family || p.Count != made.Counts[1]-made.Counts[0] || !strings.Contains(f.Path+" "+f.HeldBy, ".all_classes") {
					t.Errorf("part %+v of %s (%s), want %d classes %s held by all_classes", p, f.Path, f.HeldBy, made.Counts[1]-made.Counts[0], family)
				}
			}
		}
	}
	if n != 1 || instances != 1 {
		t.Errorf("%d parts of %s and %d of their instances, want 1 and 1", n, meta, instances)
	}

	text := whyText(t, snap("c"), "class:f_17")
	if !strings.Contains(text, "class:f_17 selects 1 object held by") || !strings.Contains(text, ".all_classes") {
		t.Errorf("why class:f_17:\n%s", text)
	}
}

// TestJavaClassFamilies runs a real Java program that makes a proxy
// class per call: diff gives them a row of their own, named by their
// pattern, that grows by the number of classes the program made; why
// selects a class by its name, as the HPROF reader names class objects.
func TestJavaClassFamilies(t *testing.T) {
	if _, err := exec.LookPath("java"); err != nil {
		t.Skip("java is not installed")
	}
	dir := t.TempDir()
	out, err := exec.Command("java", "-Xmx128m", filepath.Join("testdata", "ProxyFactory.java"), dir).Output()
	if err != nil {
		t.Fatalf("ProxyFactory: %v", err)
	}
	var made struct{ A, B int }
	if err := json.Unmarshal(out, &made); err != nil {
		t.Fatalf("%q: %v", out, err)
	}
	a, b := filepath.Join(dir, "a.hprof"), filepath.Join(dir, "b.hprof")
	var diff struct {
		Rows []struct {
			Type       string `json:"type"`
			Classes    string `json:"classes"`
			CountDelta int    `json:"count_delta"`
			CountAfter int    `json:"count_after"`
		} `json:"rows"`
	}
	runJSON(t, &diff, "diff", "--json", "--top", "0", a, b)
	found := false
	for _, r := range diff.Rows {
		if r.Type == "java.lang.Class" && r.Classes == "jdk.proxy*.$Proxy*" {
			found = true
			if r.CountDelta != made.B-made.A || r.CountAfter != made.B {
				t.Errorf("row %+v, want %d more proxy classes, %d in all", r, made.B-made.A, made.B)
			}
		}
	}
	if !found {
		t.Errorf("diff has no row of the proxy classes: %+v", diff.Rows)
	}
	for _, sel := range []string{"class:ProxyFactory", "class ProxyFactory", "class:ProxyFactory$Service"} {
		var why struct {
			Selected int `json:"selected"`
		}
		runJSON(t, &why, "why", "--json", b, sel)
		if why.Selected != 1 {
			t.Errorf("why %q selects %d objects, want the class", sel, why.Selected)
		}
	}
}
