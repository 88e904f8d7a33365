package main

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestSuspectsProgramData runs a real numpy and sympy program twice:
// clean, it keeps only its results, and top names no leak suspect
// (before, the namespaces of the modules it imports, their classes and
// functions were suspects #1 to #3: "778 dict, held by no single
// object"); leaking, it appends each step's arrays to a module-level
// list, and that list is suspect #1.
func TestSuspectsProgramData(t *testing.T) {
	py := debianPython(t, "numpy, sympy")
	dir := t.TempDir()
	type suspect struct {
		Text     string `json:"text"`
		Elements []struct {
			Type string `json:"type"`
		} `json:"elements"`
		Place string `json:"place"`
	}
	var top struct {
		Suspects []suspect `json:"suspects"`
	}
	for _, mode := range []string{"clean", "leak"} {
		snap := filepath.Join(dir, mode+".pysnap")
		runPythonWith(t, py, "scientific.py", snap, mode)
		runJSON(t, &top, "top", "--json", "--top", "3", snap)
		var texts []string
		for _, s := range top.Suspects {
			texts = append(texts, s.Text)
		}
		switch mode {
		case "clean":
			if len(top.Suspects) > 0 {
				t.Errorf("a clean program has leak suspects: %s", strings.Join(texts, "; "))
			}
		case "leak":
			if len(top.Suspects) != 1 || top.Suspects[0].Text != "60 dict in list at module __main__.HISTORY" {
				t.Errorf("suspects of the leaking program: %q; want one, 60 dict in list at module __main__.HISTORY", texts)
			}
		}
	}
}
