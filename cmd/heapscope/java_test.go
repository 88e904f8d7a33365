package main

import (
	"bytes"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// TestJavaSuspects runs testdata/leakbench/LeakBench.java, a real Java
// program in a package that keeps every request's context in the static
// map leakbench.SessionCache.CACHE (323 per round, three rounds, a dump
// after each) beside a bounded cache and churn, and checks that the
// reports name what its author knows: the class objects by their class,
// the leak suspect and the leak finding as the contexts in that map at
// that static field, counted exactly.
func TestJavaSuspects(t *testing.T) {
	if _, err := exec.LookPath("javac"); err != nil {
		t.Skip("javac is not installed")
	}
	t.Parallel()
	dir := t.TempDir()
	src := filepath.Join("testdata", "leakbench", "LeakBench.java")
	if out, err := exec.Command("javac", "-d", dir, src).CombinedOutput(); err != nil {
		t.Fatalf("javac: %v\n%s", err, out)
	}
	if out, err := exec.Command("java", "-Xmx256m", "-cp", dir, "leakbench.LeakBench", dir).CombinedOutput(); err != nil {
		t.Fatalf("java: %v\n%s", err, out)
	}
	snap := func(n string) string { return filepath.Join(dir, n+".hprof") }
	const where = "leakbench.RequestContext in java.util.HashMap at class leakbench.SessionCache.CACHE"

	var top struct {
		Suspects []struct {
			Text    string `json:"text"`
			Suspect struct {
				Name string `json:"name"`
			} `json:"suspect"`
			Holder struct {
				Type string `json:"type"`
			} `json:"holder"`
			Place       string `json:"place"`
			Accumulated uint64 `json:"accumulated_bytes"`
			Elements    []struct {
				Type  string `json:"type"`
				Count int    `json:"count"`
			} `json:"elements"`
		} `json:"suspects"`
		Reachable uint64 `json:"reachable_bytes"`
	}
	runJSON(t, &top, "top", "--json", snap("final"))
	if len(top.Suspects) == 0 {
		t.Fatal("top finds no leak suspect")
	}
	s := top.Suspects[0]
	if s.Text != "969 "+where || s.Suspect.Name != "class leakbench.SessionCache" ||
		s.Holder.Type != "java.util.HashMap" || s.Place != "class leakbench.SessionCache.CACHE" {
		t.Errorf("first suspect %q (suspect %q, holder %s at %s), want %q held by class leakbench.SessionCache",
			s.Text, s.Suspect.Name, s.Holder.Type, s.Place, "969 "+where)
	}
	// Each context holds a 2,048-byte array (2,064 bytes with its header).
	if len(s.Elements) == 0 || s.Elements[0].Count != 969 || s.Accumulated < 969*2064 || s.Accumulated > top.Reachable {
		t.Errorf("elements %+v, accumulated %d; want 969 contexts and at least %d bytes", s.Elements, s.Accumulated, 969*2064)
	}

	var out, errOut bytes.Buffer
	if err := run([]string{"top", snap("final")}, &out, &errOut); err != nil {
		t.Fatalf("top: %v\n%s", err, errOut.String())
	}
	text := out.String()
	if !strings.Contains(text, "#1  969 "+where) || !strings.Contains(text, "class leakbench.SessionCache -> CACHE java.util.HashMap") {
		t.Errorf("top does not name the suspect and its path:\n%s", text)
	}
	if strings.Contains(text, "java.lang.Class@") {
		t.Errorf("top shows a class object by its type, not its class:\n%s", text)
	}

	var leaks struct {
		Rows []struct {
			Text  string     `json:"text"`
			Type  string     `json:"type"`
			Count int        `json:"count"`
			Parts []leakPart `json:"parts"`
			Gains struct {
				New [2]int `json:"new"`
			} `json:"gains"`
		} `json:"rows"`
	}
	runJSON(t, &leaks, "leaks", "--json", snap("baseline"), snap("target"), snap("final"))
	if len(leaks.Rows) == 0 {
		t.Fatal("leaks finds nothing")
	}
	f := leaks.Rows[0]
	grew := f.Gains.New[0] + f.Gains.New[1]
	if f.Text != "969 "+where || f.Type != "leakbench.RequestContext" || f.Parts[0].Type != "java.util.HashMap$Node" || grew != 646 {
		t.Errorf("first finding %q (%s, parts %+v, grew by %d), want %q, of HashMap$Nodes, grown by 646", f.Text, f.Type, f.Parts, grew, "969 "+where)
	}
}

// TestJavaLoaderLeak runs testdata/loaderleak: a plugin's loader that the
// host forgot stays alive through one registered plugin object, its class
// and the class's loader, with the class's 1 MiB static table. The
// object's reference to its class (in its header, <class> in the graph)
// is what explains it: why finds the loader through it, and top names
// the table at its static field, retained by the registered object.
func TestJavaLoaderLeak(t *testing.T) {
	if _, err := exec.LookPath("javac"); err != nil {
		t.Skip("javac is not installed")
	}
	t.Parallel()
	dir := t.TempDir()
	host, plugin := filepath.Join(dir, "host"), filepath.Join(dir, "plugin")
	for _, c := range [][2]string{{host, "LoaderLeak.java"}, {plugin, "Plugin.java"}} {
		if out, err := exec.Command("javac", "-d", c[0], filepath.Join("testdata", "loaderleak", c[1])).CombinedOutput(); err != nil {
			t.Fatalf("javac %s: %v\n%s", c[1], err, out)
		}
	}
	snap := filepath.Join(dir, "leak.hprof")
	if out, err := exec.Command("java", "-Xmx64m", "-cp", host, "LoaderLeak", plugin, snap).CombinedOutput(); err != nil {
		t.Fatalf("java: %v\n%s", err, out)
	}

	var why struct {
		Unreached int `json:"unreached"`
		Rows      []struct {
			Sample struct {
				Text string `json:"text"`
			} `json:"sample_path"`
		} `json:"rows"`
	}
	runJSON(t, &why, "why", "--json", snap, "java.net.URLClassLoader")
	var path string
	if len(why.Rows) > 0 {
		path = why.Rows[0].Sample.Text
	}
	if !strings.Contains(path, "REGISTRY java.util.ArrayList") || !strings.Contains(path, "[0] Plugin -> <class> class Plugin -> <classloader> java.net.URLClassLoader") {
		t.Errorf("why the loader lives: %q (%d unreached), want the registered Plugin, its class and its loader", path, why.Unreached)
	}

	var out, errOut bytes.Buffer
	if err := run([]string{"top", "--width", "0", snap}, &out, &errOut); err != nil {
		t.Fatalf("top: %v\n%s", err, errOut.String())
	}
	if text := out.String(); !strings.Contains(text, "#1  byte[] at class Plugin.TABLE, 1.0 MiB") ||
		!strings.Contains(text, "[0] Plugin -> <class> class Plugin -> TABLE byte[]") {
		t.Errorf("top does not name the plugin's table and why it lives:\n%s", text)
	}
}

// TestJavaLeakPlaces runs testdata/warmup/Warmup.java, a real Java
// program with two leaks in static arrays (sessions in KEPT, tokens in
// the pages of PAGES) beside code first run between its baseline and
// target dumps, and checks that leaks says where the leaked objects sit
// in the program's words: by the class whose static holds them, never by
// the kind of GC root that holds the class ("class sticky class"), and,
// for the tokens spread over pages made as they fill, at the array of
// pages rather than at the one page of the sample path; that what only the JDK's method
// handle machinery holds is set aside. Over two of its dumps, trend says
// that one interval cannot tell a cache that filled once from a leak,
// and top counts what only a soft reference holds as alive.
func TestJavaLeakPlaces(t *testing.T) {
	t.Parallel()
	dir := compileJava(t, filepath.Join("testdata", "warmup", "Warmup.java"))
	if out, err := exec.Command("java", "-Xmx64m", "-cp", dir, "Warmup", dir).CombinedOutput(); err != nil {
		t.Fatalf("java: %v\n%s", err, out)
	}
	snap := func(n string) string { return filepath.Join(dir, n+".hprof") }
	var leaks struct {
		Rows []struct {
			Text  string `json:"text"`
			Where string `json:"where"`
			Gains struct {
				New [2]int `json:"new"`
			} `json:"gains"`
		} `json:"rows"`
	}
	runJSON(t, &leaks, "leaks", "--json", "--all", "--top", "0", snap("baseline"), snap("target"), snap("final"))
	found := map[string]string{}
	for _, r := range leaks.Rows {
		if r.Gains.New[0]+r.Gains.New[1] == 600 {
			found[r.Text] = r.Where
		}
		if strings.Contains(r.Where, "sticky class") || strings.Contains(r.Where, "jni global") {
			t.Errorf("finding %q is said to be %q: named by its GC root's kind", r.Text, r.Where)
		}
	}
	for text, where := range map[string]string{
		"900 Warmup$Session in Warmup$Session[] at class Warmup.KEPT": "in Warmup$Session[] KEPT of class Warmup",
		// The pages are made as they fill: the place is the array of pages.
		"900 Warmup$Token in Warmup$Token[][] at class Warmup.PAGES": "in Warmup$Token[] of Warmup$Token[][] PAGES",
	} {
		if got, ok := found[text]; !ok || got != where {
			t.Errorf("finding %q (where %q) not found or where %q; findings grown by 600: %v", text, where, got, found)
		}
	}

	// What only the method handle machinery holds (the string
	// concatenations and lambdas first run after the baseline linked it)
	// is set aside, and none of the rest starts in it.
	var all struct {
		Rows []struct {
			Text  string `json:"text"`
			Noise string `json:"noise"`
			Path  string `json:"path"`
		} `json:"rows"`
	}
	runJSON(t, &all, "leaks", "--json", "--all", "--top", "0", snap("baseline"), snap("target"), snap("final"))
	handles := 0
	for _, r := range all.Rows {
		if r.Noise == "java-method-handles" {
			handles++
		}
		if r.Noise == "" && (strings.HasPrefix(r.Path, "jni global -> java.lang.invoke.") || strings.HasPrefix(r.Path, "sticky class -> class java.lang.invoke.")) {
			t.Errorf("finding %q is the method handle machinery's: %s", r.Text, r.Path)
		}
	}
	if handles == 0 {
		t.Error("no finding set aside as the method handle machinery's")
	}

	// What a soft reference alone holds is not retained, but alive.
	var top struct {
		Unreachable int `json:"unreachable"`
		Weak        int `json:"unreachable_weak"`
	}
	runJSON(t, &top, "top", "--json", snap("final"))
	if top.Weak < 65 || top.Weak > top.Unreachable {
		t.Errorf("top: %d of %d unreachable objects reached through weak or soft references, want at least the 65 that SPARE holds", top.Weak, top.Unreachable)
	}

	// Over two of the dumps, trend cannot tell the JDK's caches that
	// filled once from the leaks, and says so; over three it can.
	const oneInterval = "two snapshots are one interval"
	for _, snaps := range [][]string{{snap("baseline"), snap("target")}, {snap("baseline"), snap("target"), snap("final")}} {
		var out, errOut bytes.Buffer
		if err := run(append([]string{"trend"}, snaps...), &out, &errOut); err != nil {
			t.Fatalf("trend: %v\n%s", err, errOut.String())
		}
		if said := strings.Contains(out.String(), oneInterval); said != (len(snaps) == 2) {
			t.Errorf("trend over %d snapshots: says %q: %v, want %v:\n%s", len(snaps), oneInterval, said, len(snaps) == 2, out.String())
		}
	}
}

// TestJavaGeneratedClassLeak runs testdata/javacloader: a script host
// that compiles each script in-process with the JDK's compiler into a
// class of its own name (Gen0, Gen1, ...) in a loader of its own, keeps
// every script object, and lets each register a lambda, whose class the
// script's loader defines (Gen7$$Lambda$...). Each round makes new
// classes, so by their own names no type grows from target to final:
// the registries, growing by 10 a round, read "held 0, 10, 10: stopped
// growing", which check passes, and each class's static table was a
// finding of its own ("1 JavacLoader$Table at class Gen17.T"). The instances of
// one factory's classes are counted as one type, and one field of each
// of its classes is one place.
func TestJavaGeneratedClassLeak(t *testing.T) {
	t.Parallel()
	dir := compileJava(t, filepath.Join("testdata", "javacloader", "JavacLoader.java"))
	if out, err := exec.Command("java", "-Xmx128m", "-XX:+UseSerialGC", "-cp", dir, "JavacLoader", dir, "10").CombinedOutput(); err != nil {
		t.Fatalf("java: %v\n%s", err, out)
	}
	snaps := []string{filepath.Join(dir, "baseline.hprof"), filepath.Join(dir, "target.hprof"), filepath.Join(dir, "final.hprof")}
	var leaks struct {
		Rows []struct {
			Text    string `json:"text"`
			Verdict string `json:"verdict"`
			Gains   struct {
				Counts []int `json:"counts"`
			} `json:"gains"`
		} `json:"rows"`
	}
	runJSON(t, &leaks, append([]string{"leaks", "--json", "--top", "0"}, snaps...)...)
	want := map[string]bool{
		"30 instances of classes Gen*$$Lambda$*/* in java.util.ArrayList at class JavacLoader.LISTENERS": false,
		"30 instances of classes Gen* in java.util.ArrayList at class JavacLoader.KEPT":                  false,
		"30 JavacLoader$Table at class Gen*.T":                                                           false,
	}
	perClass := regexp.MustCompile(`class Gen[0-9]+`)
	for _, r := range leaks.Rows {
		if _, ok := want[r.Text]; ok {
			want[r.Text] = true
			if r.Verdict != "grows" || !slices.Equal(r.Gains.Counts, []int{10, 20, 30}) {
				t.Errorf("%q: %s, held %v; want grows, held 10, 20, 30", r.Text, r.Verdict, r.Gains.Counts)
			}
		}
		if perClass.MatchString(r.Text) {
			t.Errorf("finding %q is one class's: a finding per generated class", r.Text)
		}
	}
	for text, found := range want {
		if !found {
			t.Errorf("no finding %q", text)
		}
	}
}

// compileJava compiles the Java source src into a new temporary
// directory, which it returns; it skips the test when javac is not
// installed.
func compileJava(t *testing.T, src string) string {
	t.Helper()
	if _, err := exec.LookPath("javac"); err != nil {
		t.Skip("javac is not installed")
	}
	dir := t.TempDir()
	if out, err := exec.Command("javac", "-d", dir, src).CombinedOutput(); err != nil {
		t.Fatalf("javac: %v\n%s", err, out)
	}
	return dir
}
