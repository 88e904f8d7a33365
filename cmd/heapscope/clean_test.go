package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
)

// TestSympyCleanCheck runs a real sympy workload that keeps nothing
// (testdata/sympyclean.py): check passes it. sympy's lru_caches fill as
// it runs (bounded), the assumptions sympy computes on first use for the
// numbers in them are set once per number the baseline had (bounded,
// per object), and what grew only from baseline to target stopped
// growing; check failed on five findings of these before. --strict
// fails on what stopped growing, when there is some, and only on it.
func TestSympyCleanCheck(t *testing.T) {
	py := debianPython(t, "sympy")
	dir := t.TempDir()
	runPythonWith(t, py, "sympyclean.py", dir)
	snaps := []string{filepath.Join(dir, "a.pysnap"), filepath.Join(dir, "b.pysnap"), filepath.Join(dir, "c.pysnap")}
	var out bytes.Buffer
	if err := run(append([]string{"check"}, snaps...), &out, &bytes.Buffer{}); err != nil {
		t.Fatalf("check of a clean sympy workload: %v\n%s", err, out.String())
	}
	var rep leakRows
	runJSON(t, &rep, append([]string{"leaks", "--json", "--top", "0"}, snaps...)...)
	stopped, perObject := 0, 0
	for _, r := range rep.Rows {
		switch {
		case r.Verdict == "grows":
			t.Errorf("a clean workload grows: %s", r.Text)
		case r.Verdict == "stopped":
			stopped++
		case r.Bound != nil && r.Bound.Kind == "per-object":
			perObject++
		}
	}
	if perObject == 0 {
		t.Errorf("no finding set once per object: the test checks that bound on nothing\n%s", out.String())
	}
	out.Reset()
	err := run(append([]string{"check", "--strict"}, snaps...), &out, &bytes.Buffer{})
	if fails := strings.Count(out.String(), "\nleak: "); (stopped > 0) != (exitCode(err) == 1) || fails != stopped {
		t.Errorf("check --strict: exit %d, %d leaks, with %d findings that stopped growing\n%s", exitCode(err), fails, stopped, out.String())
	}
}

// TestSympyRationalCheck runs a real sympy workload that multiplies
// Rationals and keeps nothing (testdata/sympyrational.py): sympy's
// lru_caches evict and make new entries at the addresses they freed, so
// that identity takes a new Integer for the old one at its address, and
// the assumptions sympy computes for it for gains after target at a
// place that had gained before. check failed on it ("grew by 15, then
// 59: growing in proportion to the work"); the place's paths hold as
// many objects in final as in target (246), and now it stopped
// growing, by those counts. The same workload keeping its products in a list set on
// objects the baseline had, appended to ever after, still fails, on
// that list and only on it.
func TestSympyRationalCheck(t *testing.T) {
	py := debianPython(t, "sympy")
	for _, leak := range []bool{false, true} {
		snaps, _ := threeSnapshots(t, py, "sympyrational.py", map[bool]string{true: "leak"}[leak])
		out, fails, err := checkLeaks(append([]string{"check"}, snaps...))
		switch {
		case !leak && err != nil:
			t.Errorf("check of a clean sympy workload: %v\n%s", err, out)
		case leak && (exitCode(err) != 1 || len(fails) != 1 || !strings.Contains(fails[0], " at __main__.Account.history,")):
			t.Errorf("check of the leaking workload: exit %d, leaks %q, want one at Account.history\n%s", exitCode(err), fails, out)
		}
		var rep leakRows
		runJSON(t, &rep, append([]string{"leaks", "--json", "--top", "0"}, snaps...)...)
		grows, turnover := 0, 0
		for _, r := range rep.Rows {
			switch {
			case r.Verdict == "grows":
				grows++
				if !leak || !strings.Contains(r.Text, "Account.history") {
					t.Errorf("leak=%v: grows: %s", leak, r.Text)
				}
			case r.Gains.Held != nil:
				// Identity saw gains after target; the counts overruled.
				if h := r.Gains.Held; r.Verdict != "stopped" || r.Gains.New[1] <= 0 || h[1] > h[0] {
					t.Errorf("leak=%v: %s after gains %v, held %v: %s", leak, r.Verdict, r.Gains.New, *h, r.Text)
				}
				turnover++
			}
		}
		if leak && grows != 1 {
			t.Errorf("the leaking workload: %d findings grow, want the history's\n%s", grows, out)
		}
		if turnover == 0 {
			t.Errorf("leak=%v: no finding whose gains by identity the counts overruled: the test checks that on nothing\n%s", leak, out)
		}
	}
}

// threeSnapshots runs script (in testdata) with py, its arguments a new
// directory and arg when not "", and returns the paths of the snapshots
// it writes there, a, b and c, and what it printed.
func threeSnapshots(t *testing.T, py, script, arg string) ([]string, []byte) {
	t.Helper()
	dir := t.TempDir()
	args := []string{dir}
	if arg != "" {
		args = append(args, arg)
	}
	printed := runPythonWith(t, py, script, args...)
	return []string{filepath.Join(dir, "a.pysnap"), filepath.Join(dir, "b.pysnap"), filepath.Join(dir, "c.pysnap")}, printed
}

// checkLeaks runs heapscope with args (check, its flags and snapshots)
// and returns what it wrote, the lines that name a leak, and its error.
func checkLeaks(args []string) (string, []string, error) {
	var out bytes.Buffer
	err := run(args, &out, &bytes.Buffer{})
	var fails []string
	for _, l := range strings.Split(out.String(), "\n") {
		if strings.HasPrefix(l, "leak: ") {
			fails = append(fails, l)
		}
	}
	return out.String(), fails, err
}

// TestLazyListCheck runs a program whose Accounts, made at the start,
// get a list set on first use and a record appended to it every round
// they are used again (testdata/lazylog.py): there are as many lists in
// final as in target, one per Account, but what they hold grows with
// the work, and check fails on them (with --scaling too), at the
// attribute, with the records counted as the program counts them. Its
// clean twin sets each list once, with one record, and appends nothing:
// check passes, and the lists do not grow.
func TestLazyListCheck(t *testing.T) {
	py := debianPython(t, "json")
	for _, clean := range []bool{false, true} {
		snaps, printed := threeSnapshots(t, py, "lazylog.py", map[bool]string{true: "clean"}[clean])
		var made struct {
			Lists   [3]int `json:"lists"`
			Records [3]int `json:"records"`
		}
		if err := json.Unmarshal(printed, &made); err != nil {
			t.Fatal(err)
		}
		if made.Lists[1] == 0 || made.Lists[2] != made.Lists[1] {
			t.Fatalf("clean=%v: the program set %v lists, want some by the second snapshot and no more after", clean, made.Lists)
		}
		// --scaling too: the records grow in proportion to the work.
		grew := fmt.Sprintf("what they hold grew: %d __main__.Record more, held %d in target and %d in final",
			made.Records[2]-made.Records[1], made.Records[1], made.Records[2])
		for _, flags := range [][]string{{"check"}, {"check", "--scaling"}} {
			out, fails, err := checkLeaks(append(flags, snaps...))
			switch {
			case clean && err != nil:
				t.Errorf("%s of lists set once: %v\n%s", flags, err, out)
			case !clean && (exitCode(err) != 1 || len(fails) != 1 || !strings.Contains(fails[0], " at __main__.Account.history,") || !strings.Contains(fails[0], grew)):
				t.Errorf("%s of lists appended to: exit %d, leaks %q, want one at Account.history, saying %q\n%s", flags, exitCode(err), fails, grew, out)
			}
		}
		var rep leakRows
		runJSON(t, &rep, append([]string{"leaks", "--json", "--top", "0"}, snaps...)...)
		found := false
		for _, r := range rep.Rows {
			if r.Place.Text != "__main__.Account.history" {
				if r.Verdict == "grows" {
					t.Errorf("clean=%v: grows elsewhere: %s", clean, r.Text)
				}
				continue
			}
			found = true
			in := r.Gains.Inside
			switch {
			case r.Count != made.Lists[1]:
				t.Errorf("clean=%v: %d lists at the attribute, want %d: %s", clean, r.Count, made.Lists[1], r.Text)
			case clean && (r.Verdict == "grows" || in != nil):
				t.Errorf("lists set once: %s", r.Text)
			case !clean && (r.Verdict != "grows" || in == nil || in.Type != "__main__.Record" ||
				in.New != made.Records[2]-made.Records[1] || in.Held != [2]int{made.Records[1], made.Records[2]}):
				t.Errorf("lists appended to: %s, inside %+v; want growing, %d records more, held %d then %d",
					r.Text, in, made.Records[2]-made.Records[1], made.Records[1], made.Records[2])
			}
		}
		if !found {
			t.Errorf("clean=%v: no finding at __main__.Account.history: %d findings", clean, len(rep.Rows))
		}
	}
}
