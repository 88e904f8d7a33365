package hprof

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/heapscope/heapscope/heap"
)

// histEntry is one line of a GC.class_histogram.
type histEntry struct {
	count, bytes uint64
}

var histLine = regexp.MustCompile(`^\s*\d+:\s+(\d+)\s+(\d+)\s+(\S+)`)

// parseHistogram parses the output of GC.class_histogram (jmap -histo),
// keyed by class name in the form heapscope uses.
func parseHistogram(t *testing.T, text string) map[string]histEntry {
	t.Helper()
	out := map[string]histEntry{}
	sc := bufio.NewScanner(strings.NewReader(text))
	for sc.Scan() {
		m := histLine.FindStringSubmatch(sc.Text())
		if m == nil {
			continue
		}
		n, _ := strconv.ParseUint(m[1], 10, 64)
		b, _ := strconv.ParseUint(m[2], 10, 64)
		name := histName(m[3])
		e := out[name]
		out[name] = histEntry{e.count + n, e.bytes + b}
	}
	if len(out) == 0 {
		t.Fatalf("no histogram lines in %q", text[:min(len(text), 200)])
	}
	return out
}

// histName converts a histogram's class name ("[I", "[Ljava.lang.Object;",
// "Foo$$Lambda$1/0x...") to the Java form.
func histName(s string) string {
	if strings.HasPrefix(s, "[") {
		return javaName(s)
	}
	return s
}

// graphHistogram counts objects and shallow bytes per type.
func graphHistogram(g *heap.Graph) map[string]histEntry {
	out := map[string]histEntry{}
	for id := range g.Objects() {
		name := g.TypeName(g.Type(id))
		e := out[name]
		out[name] = histEntry{e.count + 1, e.bytes + g.Size(id)}
	}
	return out
}

// javaDemo compiles testdata/java/LeakDemo.java once per test run.
func javaDemo(t *testing.T) string {
	t.Helper()
	if _, err := exec.LookPath("javac"); err != nil {
		t.Skip("javac not found")
	}
	dir := t.TempDir()
	src, err := filepath.Abs("testdata/java/LeakDemo.java")
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("javac", "-d", dir, src)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("javac: %v\n%s", err, out)
	}
	return dir
}

// transient lists the classes whose objects the in-process JMX calls
// allocate and hold while one of the histogram and the dump is taken but
// not the other (call arguments, file names, a lambda in dumpHeap).
func transient(name string) bool {
	switch name {
	case "byte[]", "java.lang.String", "java.lang.StringBuilder", "java.lang.String[]", "java.lang.Object[]":
		return true
	}
	return strings.Contains(name, "$$Lambda$")
}

// checkHistogram compares the graph's per-class counts and bytes with a
// GC.class_histogram taken right before or after the dump. Counts must be
// equal, except for up to two objects of transient classes when exact is
// false. Bytes must be equal where counts are, except java.lang.Class,
// whose mirrors may differ by less than 0.5% (see the package doc).
func checkHistogram(t *testing.T, g *heap.Graph, histogram string, exact bool, skip ...string) {
	t.Helper()
	want := parseHistogram(t, histogram)
	got := graphHistogram(g)
	names := map[string]bool{}
	for n := range got {
		names[n] = true
	}
	for n := range want {
		names[n] = true
	}
	matched := 0
	for _, n := range skip {
		delete(names, n)
	}
	for n := range names {
		gc, wc := got[n], want[n]
		if gc.count != wc.count {
			d := int64(gc.count) - int64(wc.count)
			if exact || !transient(n) || d < -2 || d > 2 {
				t.Errorf("%s: %d objects, histogram %d", n, gc.count, wc.count)
			}
			continue
		}
		matched++
		if n == "java.lang.Class" {
			if d := int64(gc.bytes) - int64(wc.bytes); d*200 > int64(wc.bytes) || -d*200 > int64(wc.bytes) {
				t.Errorf("%s: %d bytes, histogram %d", n, gc.bytes, wc.bytes)
			} else if d != 0 {
				t.Logf("%s: %d bytes, histogram %d", n, gc.bytes, wc.bytes)
			}
			continue
		}
		if gc.bytes != wc.bytes {
			t.Errorf("%s: %d bytes, histogram %d (%d objects)", n, gc.bytes, wc.bytes, gc.count)
		}
	}
	t.Logf("%d classes, %d with equal counts", len(names), matched)
}

// runDemo runs LeakDemo with n sessions; extra JVM flags come first.
func runDemo(t *testing.T, dir string, n int, flags ...string) (dump, histogram string) {
	t.Helper()
	dump = filepath.Join(dir, "demo.hprof")
	hist := filepath.Join(dir, "histo.txt")
	args := append(append([]string{"-Xmx128m"}, flags...), "-cp", dir, "LeakDemo", dump, hist, strconv.Itoa(n))
	if out, err := exec.Command("java", args...).CombinedOutput(); err != nil {
		t.Fatalf("java: %v\n%s", err, out)
	}
	text, err := os.ReadFile(hist)
	if err != nil {
		t.Fatal(err)
	}
	return dump, string(text)
}

// TestJavaHeap runs a Java program that builds a known heap and dumps it
// with its class histogram in the same process.
func TestJavaHeap(t *testing.T) {
	t.Parallel()
	dir := javaDemo(t)
	// Class data sharing off: with it, the dump omits the archived
	// mirrors of classes not yet loaded, which the histogram counts.
	dump, histogram := runDemo(t, dir, 5000, "-Xshare:off")
	g, err := Open(dump)
	if err != nil {
		t.Fatal(err)
	}
	if err := g.Validate(); err != nil {
		t.Fatal(err)
	}
	for _, w := range g.Warnings() {
		t.Errorf("warning: %v", w)
	}
	checkHistogram(t, g, histogram, false)
	const layout = "64-bit, compressed oops, compressed class pointers, 8-byte alignment, JDK 15+ field layout (from object addresses)"
	if got := g.Meta().Attrs["layout"]; got != layout {
		t.Errorf("layout %q, want %q", got, layout)
	}
	if n := graphHistogram(g)["LeakDemo$Session"].count; n < 5000 {
		t.Errorf("%d LeakDemo$Session objects, want at least 5000", n)
	}

	// The demo's statics, found from its class object.
	var demo heap.ObjectID = heap.None
	for id := range g.Objects() {
		if g.TypeName(g.Type(id)) == "java.lang.Class" {
			for _, e := range g.Edges(id) {
				if g.EdgeName(e.Label) == "SESSIONS" {
					demo = id
				}
			}
		}
	}
	if demo == heap.None {
		t.Fatal("no class object with a static field SESSIONS")
	}
	if name, _ := g.Name(demo); name != "class LeakDemo" {
		t.Errorf("the class object with SESSIONS is named %q, want \"class LeakDemo\"", name)
	}
	checkClassNames(t, g)
	statics := map[string]string{}
	for _, e := range g.Edges(demo) {
		statics[g.EdgeName(e.Label)] = e.Label.Kind().String() + " " + g.TypeName(g.Type(e.To))
	}
	for name, want := range map[string]string{
		"SESSIONS": "strong java.util.HashMap",
		"NAMES":    "strong java.util.ArrayList",
		"CACHE":    "strong java.util.WeakHashMap",
		"matrix":   "strong long[][]",
		"grid":     "strong java.lang.String[][]",
		"<super>":  "internal java.lang.Class",
	} {
		if statics[name] != want {
			t.Errorf("LeakDemo.%s = %q, want %q", name, statics[name], want)
		}
	}

	// Strings: labels in Latin-1, UTF-16 and with a surrogate pair, and
	// equal digests for equal contents.
	byValue := map[string][]heap.ObjectID{}
	for id, v := range g.Values() {
		byValue[v] = append(byValue[v], id)
	}
	for _, s := range []string{"héllo wörld", "日本語のテキスト", "emoji 😀 end", "user-4999"} {
		if len(byValue[s]) == 0 {
			t.Errorf("no java.lang.String labelled %q", s)
		}
	}
	// The literal and two copies made with new String.
	if d := byValue["duplicate-me"]; len(d) != 3 {
		t.Errorf("%d strings labelled duplicate-me, want 3", len(d))
	} else {
		d0, ok0 := g.Digest(d[0])
		for _, id := range d[1:] {
			if d1, ok1 := g.Digest(id); !ok0 || !ok1 || d0 != d1 {
				t.Errorf("digests of equal strings: %x %v, %x %v; want equal", d0, ok0, d1, ok1)
			}
		}
	}

	// Weak edges: every java.lang.ref referent, including WeakHashMap$Entry.
	weak := map[string]int{}
	for id := range g.Objects() {
		for _, e := range g.Edges(id) {
			if e.Label.Kind() == heap.Weak {
				weak[g.TypeName(g.Type(id))+"."+g.EdgeName(e.Label)]++
			}
		}
	}
	if weak["java.util.WeakHashMap$Entry.referent"] == 0 {
		t.Errorf("weak edges = %v, want WeakHashMap$Entry.referent among them", weak)
	}
	rootNames := map[string]int{}
	for _, r := range g.Roots() {
		rootNames[r.Kind.String()+" "+g.String(r.Name)]++
	}
	for _, want := range []string{"class sticky class", "thread thread", "global jni global"} {
		if rootNames[want] == 0 {
			t.Errorf("roots = %v, want some %q", rootNames, want)
		}
	}
	// The main thread's locals are its references, named after their
	// frames; the thread is named after its name.
	locals := 0
	for _, r := range g.Roots() {
		if name, _ := g.Name(r.Object); r.Kind == heap.RootThread && name == "thread main" {
			for _, e := range g.Edges(r.Object) {
				if n := g.EdgeName(e.Label); strings.HasPrefix(n, "at LeakDemo.main(LeakDemo.java:") && strings.HasSuffix(n, ") <local>") {
					locals++
				}
			}
		}
	}
	if locals == 0 {
		t.Errorf("thread main has no reference from a frame of LeakDemo.main")
	}
}

// TestJavaLayouts runs the demo on JVMs with other object layouts and
// checks that the reader tells the layout from the dump and that its
// sizes are the JVM's own, class by class, as TestJavaHeap does for the
// default layout.
func TestJavaLayouts(t *testing.T) {
	t.Parallel()
	dir := javaDemo(t)
	for _, c := range []struct {
		flags  []string
		layout string
	}{
		{[]string{"-XX:-UseCompressedOops"}, "64-bit, no compressed oops, compressed class pointers, 8-byte alignment, JDK 15+ field layout"},
		{[]string{"-XX:-UseCompressedClassPointers"}, "64-bit, compressed oops, no compressed class pointers, 8-byte alignment, JDK 15+ field layout"},
		{[]string{"-XX:-UseCompressedOops", "-XX:-UseCompressedClassPointers"}, "64-bit, no compressed oops, no compressed class pointers, 8-byte alignment, JDK 15+ field layout"},
		{[]string{"-XX:ObjectAlignmentInBytes=16"}, "64-bit, compressed oops, compressed class pointers, 16-byte alignment, JDK 15+ field layout"},
		// Each class's fields after its superclass's, from a
		// reference-size boundary, as before JDK 15.
		{[]string{"-XX:-UseEmptySlotsInSupers", "-XX:-UseCompressedOops"}, "64-bit, no compressed oops, compressed class pointers, 8-byte alignment, JDK 15+ field layout without empty slots in supers"},
	} {
		t.Run(strings.Join(c.flags, " "), func(t *testing.T) {
			t.Parallel()
			sub := t.TempDir()
			for _, f := range []string{"LeakDemo.class", "LeakDemo$Session.class", "LeakDemo$Level1.class", "LeakDemo$Level2.class", "LeakDemo$Level3.class"} {
				b, err := os.ReadFile(filepath.Join(dir, f))
				if err != nil {
					t.Fatal(err)
				}
				os.WriteFile(filepath.Join(sub, f), b, 0o644)
			}
			dump, histogram := runDemo(t, sub, 2000, append([]string{"-Xshare:off"}, c.flags...)...)
			g, err := Open(dump)
			if err != nil {
				t.Fatal(err)
			}
			for _, w := range g.Warnings() {
				t.Errorf("warning: %v", w)
			}
			if got, want := g.Meta().Attrs["layout"], c.layout+" (from object addresses)"; got != want {
				t.Errorf("layout %q, want %q", got, want)
			}
			checkHistogram(t, g, histogram, false)
			if n := graphHistogram(g)["LeakDemo$Level3"].count; n != 100 {
				t.Errorf("%d LeakDemo$Level3 objects, want 100", n)
			}
		})
	}
}

// TestJavaJcmd dumps a running JVM from outside with jcmd, compressed
// (-gz=1, a multi-member gzip stream), with class data sharing on, and
// compares it with jcmd's class histogram taken just before.
func TestJavaJcmd(t *testing.T) {
	t.Parallel()
	dir := javaDemo(t)
	if _, err := exec.LookPath("jcmd"); err != nil {
		t.Skip("jcmd not found")
	}
	cmd := exec.Command("java", "-Xmx128m", "-cp", dir, "LeakDemo", "-", "-", "2000", "wait")
	stdin, _ := cmd.StdinPipe()
	stdout, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() {
		stdin.Close()
		cmd.Wait()
	}()
	line, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil || line != "ready\n" {
		t.Fatalf("LeakDemo said %q, %v", line, err)
	}
	pid := strconv.Itoa(cmd.Process.Pid)
	jcmd := func(args ...string) string {
		out, err := exec.Command("jcmd", append([]string{pid}, args...)...).CombinedOutput()
		if err != nil {
			t.Fatalf("jcmd %v: %v\n%s", args, err, out)
		}
		return string(out)
	}
	// The first commands start the attach listener thread and let a full
	// GC and the reference handler finish with what is unreachable.
	jcmd("VM.version")
	jcmd("GC.class_histogram")
	time.Sleep(300 * time.Millisecond)
	histogram := jcmd("GC.class_histogram")
	dump := filepath.Join(dir, "jcmd.hprof.gz")
	jcmd("GC.heap_dump", "-gz=1", dump)
	if b, err := os.ReadFile(dump); err != nil || len(b) < 2 || b[0] != 0x1f || b[1] != 0x8b {
		t.Fatalf("%s is not gzip (%v)", dump, err)
	}
	g, err := Open(dump)
	if err != nil {
		t.Fatal(err)
	}
	// With class data sharing, the dump omits the archived mirrors of
	// classes not loaded yet; the CDS roots array still refers to them.
	got, want := graphHistogram(g)["java.lang.Class"], parseHistogram(t, histogram)["java.lang.Class"]
	dangling := danglingCount(g)
	if got.count+uint64(dangling) != want.count {
		t.Errorf("java.lang.Class: %d objects + %d dangling references, histogram %d", got.count, dangling, want.count)
	}
	checkHistogram(t, g, histogram, true, "java.lang.Class")
}

// checkClassNames checks the names of class objects: every
// java.lang.Class but the nine primitive mirrors (int.class ... void.class,
// which HotSpot dumps as instances) is named "class " and its Java name,
// the class it stands for; the name of a class's "<super>" is its
// superclass's, and java.lang.Object, String and int[] are named as Java
// names them.
func checkClassNames(t *testing.T, g *heap.Graph) {
	t.Helper()
	classes, named := 0, map[string]heap.ObjectID{}
	for id := range g.Objects() {
		if g.TypeName(g.Type(id)) != "java.lang.Class" {
			if name, ok := g.Name(id); ok && !strings.HasPrefix(name, "thread ") {
				t.Errorf("a %s is named %q", g.TypeName(g.Type(id)), name)
			}
			continue
		}
		classes++
		if name, ok := g.Name(id); ok {
			named[name] = id
		}
	}
	if n := len(named); n != classes-9 {
		t.Errorf("%d of %d class objects are named, want all but the 9 primitive mirrors", n, classes)
	}
	for _, want := range []string{"class java.lang.Object", "class java.lang.String", "class int[]", "class java.util.HashMap$Node[]"} {
		if _, ok := named[want]; !ok {
			t.Errorf("no class object named %q", want)
		}
	}
	if s, ok := named["class java.lang.String"]; ok {
		for _, e := range g.Edges(s) {
			if g.EdgeName(e.Label) == "<super>" {
				if sup, _ := g.Name(e.To); sup != "class java.lang.Object" {
					t.Errorf("class java.lang.String's <super> is named %q", sup)
				}
			}
		}
	}
}

// danglingCount returns the number of references the reader dropped.
func danglingCount(g *heap.Graph) int {
	for _, w := range g.Warnings() {
		var n int
		if _, err := fmt.Sscanf(w.Msg, "%d references point to no object", &n); err == nil {
			return n
		}
	}
	return 0
}
