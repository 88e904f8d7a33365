package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"maps"
	"path/filepath"
	"regexp"
	"slices"
	"testing"
)

// TestJSONComplete runs every command that has --json on the snapshots
// of a real Python program: without --top the JSON has every row (and
// says it is not truncated); with --top it has that many and says it is
// truncated, with the total.
func TestJSONComplete(t *testing.T) {
	dir := t.TempDir()
	runPython(t, "leaky.py", dir)
	b, tg, f := filepath.Join(dir, "baseline.pysnap"), filepath.Join(dir, "target.pysnap"), filepath.Join(dir, "final.pysnap")
	tests := []struct {
		args  []string
		rows  string // the list that --top cuts
		total string // the field that counts its rows
		// textTop is the text output's default --top: a real heap has
		// more rows than that, so a JSON cut at it would fail the test.
		textTop int
	}{
		{[]string{"summary", f}, "rows", "types", 20},
		{[]string{"diff", b, f}, "rows", "types", 0},
		{[]string{"trend", b, tg, f}, "rows", "types", 0},
		{[]string{"leaks", b, tg, f}, "rows", "findings", 0},
		{[]string{"why", f, "str"}, "rows", "groups", 10},
		{[]string{"containers", f}, "rows", "containers", 20},
		{[]string{"duplicates", f}, "rows", "groups", 20},
		{[]string{"top", f}, "types", "types_total", 10},
		{[]string{"top", f}, "held_outside_heap", "held_outside_heap_total", 0},
	}
	for _, tc := range tests {
		t.Run(tc.args[0]+"-"+tc.rows, func(t *testing.T) {
			var all map[string]any
			runJSON(t, &all, append([]string{tc.args[0], "--json"}, tc.args[1:]...)...)
			rows, _ := all[tc.rows].([]any)
			total, ok := all[tc.total].(float64)
			if !ok {
				t.Fatalf("no %q in the JSON", tc.total)
			}
			if len(rows) != int(total) {
				t.Errorf("%d %s of %v", len(rows), tc.rows, total)
			}
			if len(rows) <= tc.textTop {
				t.Errorf("only %d %s: the test needs more than the text default, %d", len(rows), tc.rows, tc.textTop)
			}
			if all["truncated"] != false && tc.args[0] != "top" {
				t.Errorf("truncated = %v, want false", all["truncated"])
			}
			if total < 2 {
				return
			}
			var cut map[string]any
			runJSON(t, &cut, append([]string{tc.args[0], "--json", "--top", "1"}, tc.args[1:]...)...)
			if rows, _ := cut[tc.rows].([]any); len(rows) != 1 || cut["truncated"] != true || cut[tc.total] != total {
				t.Errorf("--top 1: %d %s, truncated %v, %s %v; want 1, true, %v", len(rows), tc.rows, cut["truncated"], tc.total, cut[tc.total], total)
			}
		})
	}

	// top's objects rank the whole heap: JSON shows the first 10 too, and
	// says how many there are.
	var top struct {
		Truncated    bool  `json:"truncated"`
		ObjectsTotal int   `json:"objects_total"`
		Objects      []any `json:"objects"`
	}
	runJSON(t, &top, "top", "--json", f)
	if len(top.Objects) != 10 || top.ObjectsTotal < 1000 || !top.Truncated {
		t.Errorf("top --json: %d objects of %d, truncated %v; want 10 of thousands, truncated", len(top.Objects), top.ObjectsTotal, top.Truncated)
	}

	// tree: hidden children make it truncated.
	var tree struct {
		Truncated bool `json:"truncated"`
	}
	runJSON(t, &tree, "tree", "--json", "--top", "1", f)
	if !tree.Truncated {
		t.Error("tree --json --top 1 hides children but is not truncated")
	}
}

// TestJSONKeys: every key of every command's JSON is snake_case, the
// same convention throughout, on the snapshots of a real Python program.
func TestJSONKeys(t *testing.T) {
	dir := t.TempDir()
	runPython(t, "leaky.py", dir)
	b, tg, f := filepath.Join(dir, "baseline.pysnap"), filepath.Join(dir, "target.pysnap"), filepath.Join(dir, "final.pysnap")
	snake := regexp.MustCompile(`^[a-z][a-z0-9]*(_[a-z0-9]+)*$`)
	for _, args := range [][]string{
		{"summary", f}, {"diff", b, f}, {"trend", b, tg, f}, {"leaks", b, tg, f}, {"check", b, tg, f},
		{"why", f, "str"}, {"containers", f}, {"duplicates", f}, {"top", f}, {"tree", "--depth", "3", f},
	} {
		var stdout, stderr bytes.Buffer
		err := run(append([]string{args[0], "--json"}, args[1:]...), &stdout, &stderr)
		var ee *exitError
		if err != nil && !(args[0] == "check" && errors.As(err, &ee) && ee.code == 1) {
			t.Fatalf("%v: %v\n%s", args, err, stderr.String())
		}
		var v any
		if err := json.Unmarshal(stdout.Bytes(), &v); err != nil {
			t.Fatalf("%v: %v", args, err)
		}
		bad := map[string]bool{}
		var walk func(v any)
		walk = func(v any) {
			switch v := v.(type) {
			case map[string]any:
				for k, x := range v {
					if !snake.MatchString(k) {
						bad[k] = true
					}
					walk(x)
				}
			case []any:
				for _, x := range v {
					walk(x)
				}
			}
		}
		walk(v)
		if len(bad) > 0 {
			t.Errorf("%s --json: keys not in snake_case: %v", args[0], slices.Sorted(maps.Keys(bad)))
		}
	}
}
