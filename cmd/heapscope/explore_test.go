package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/heapscope/heapscope/agent"
	"github.com/heapscope/heapscope/analyze"
	"github.com/heapscope/heapscope/heap"
	"github.com/heapscope/heapscope/heapfile"
)

// leakySnapshots runs the real leaky program of a runtime (python, node
// or java), which writes its baseline, target and final snapshots, and
// returns their paths; it skips when the runtime is not installed.
func leakySnapshots(t *testing.T, runtime string) []string {
	t.Helper()
	dir := t.TempDir()
	var cmd *exec.Cmd
	ext := ""
	switch runtime {
	case "python":
		if _, err := exec.LookPath("python3"); err != nil {
			t.Skip("python3 is not installed")
		}
		pp, err := agent.Dir()
		if err != nil {
			t.Fatal(err)
		}
		cmd = exec.Command("python3", filepath.Join("testdata", "leaky.py"), dir)
		cmd.Env = append(os.Environ(), "PYTHONPATH="+pp)
		ext = ".pysnap"
	case "node":
		if _, err := exec.LookPath("node"); err != nil {
			t.Skip("node is not installed")
		}
		cmd = exec.Command("node", "--expose-gc", filepath.Join("testdata", "leaky.js"), dir)
		ext = ".heapsnapshot"
	case "java":
		if _, err := exec.LookPath("javac"); err != nil {
			t.Skip("javac is not installed")
		}
		if out, err := exec.Command("javac", "-d", dir, filepath.Join("testdata", "Leaky.java")).CombinedOutput(); err != nil {
			t.Fatalf("javac: %v\n%s", err, out)
		}
		cmd = exec.Command("java", "-Xshare:off", "-Xmx256m", "-cp", dir, "Leaky", dir)
		ext = ".hprof"
	}
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%s: %v\n%s", runtime, err, out)
	}
	var snaps []string
	for _, n := range []string{"baseline", "target", "final"} {
		snaps = append(snaps, filepath.Join(dir, n+ext))
	}
	return snaps
}

// selected runs why on a selector and returns how many objects it
// selects, or the error.
func selected(t *testing.T, snap, sel string) (int, error) {
	t.Helper()
	var out struct {
		Selected int `json:"selected"`
	}
	var stdout, stderr bytes.Buffer
	if err := run([]string{"why", "--json", "--top", "1", snap, sel}, &stdout, &stderr); err != nil {
		return 0, err
	}
	if err := json.Unmarshal(stdout.Bytes(), &out); err != nil {
		t.Fatal(err)
	}
	return out.Selected, nil
}

// checkPrintedNames: every name leaks and top print selects objects in
// why, as the user copies it: a leak finding's type label selects at
// least the finding's objects; an object top prints, by its name and id
// as printed, selects that object, and so does its id alone in every
// form (@N and N for V8's decimal ids, 0x for the hex ones); a closure
// type "f (closure)" is selected by "f".
func checkPrintedNames(t *testing.T, snaps []string) {
	var lk struct {
		Rows []struct {
			Text    string `json:"text"`
			Type    string `json:"type"`
			Classes string `json:"classes"`
			Types   int    `json:"types"`
			Count   int    `json:"count"`
			Holders []struct {
				Text string `json:"text"`
			} `json:"holders"`
		} `json:"rows"`
	}
	runJSON(t, &lk, "leaks", "--json", "--top", "0", snaps[0], snaps[1], snaps[2])
	if len(lk.Rows) == 0 {
		t.Fatal("leaks found nothing to check")
	}
	for _, r := range lk.Rows {
		label := r.Type
		switch {
		case r.Types > 0:
			label = fmt.Sprintf("%s (instances of %d classes)", r.Type, r.Types)
		case r.Classes != "":
			label = r.Type + " (classes " + r.Classes + ")"
		}
		n, err := selected(t, snaps[2], label)
		if err != nil || n < r.Count {
			t.Errorf("leaks prints %q (%d objects); why selects %d: %v", label, r.Count, n, err)
		}
		// The finding as its title says it ("300 RequestContext in Map
		// at system / Context.contexts"): at least as many objects as
		// it counts of its first kind, all held there.
		var first int
		fmt.Sscanf(strings.ReplaceAll(r.Text, ",", ""), "%d", &first)
		if n, err := selected(t, snaps[2], r.Text); err != nil || n < max(first, 1) {
			t.Errorf("leaks prints finding %q; why selects %d objects: %v", r.Text, n, err)
		}
		for _, h := range r.Holders {
			if strings.HasPrefix(h.Text, "the objects of ") {
				continue // another finding's, which why does not know
			}
			if n, err := selected(t, snaps[2], h.Text); err != nil || n < 1 {
				t.Errorf("leaks prints holder %q; why selects %d objects: %v", h.Text, n, err)
			}
		}
	}
	var top struct {
		Objects [][]json.RawMessage `json:"objects"` // see topRowOf
		Types   []struct {
			Type string `json:"type"`
		} `json:"types"`
		Suspects []struct {
			Text string `json:"text"`
		} `json:"suspects"`
	}
	runJSON(t, &top, "top", "--json", "--top", "15", snaps[2])
	for _, s := range top.Suspects {
		if n, err := selected(t, snaps[2], s.Text); err != nil || n < 1 {
			t.Errorf("top prints suspect %q; why selects %d objects: %v", s.Text, n, err)
		}
	}
	if len(top.Objects) == 0 {
		t.Fatal("top lists no objects to check")
	}
	for _, raw := range top.Objects {
		o := topRowOf(t, raw)
		label := o.Type
		if o.Name != "" {
			label = o.Name
		}
		forms := []string{o.Addr}
		if strings.HasPrefix(o.Addr, "@") {
			var n uint64
			fmt.Sscanf(o.Addr, "@%d", &n)
			forms = append(forms, label+" "+o.Addr, o.Addr[1:], fmt.Sprintf("0x%x", n))
		} else {
			forms = append(forms, label+"@"+o.Addr)
		}
		for _, sel := range forms {
			if n, err := selected(t, snaps[2], sel); err != nil || n != 1 {
				t.Errorf("top prints %s %s; why %q selects %d objects: %v", label, o.Addr, sel, n, err)
			}
		}
		// tree starts at the object as top prints it.
		var tr struct {
			Lines []struct {
				Addr string `json:"addr"`
			} `json:"lines"`
		}
		runJSON(t, &tr, "tree", "--json", "--depth", "0", "--from", forms[1], snaps[2])
		if len(tr.Lines) == 0 || tr.Lines[0].Addr != o.Addr {
			t.Errorf("tree --from %q starts at %+v, want %s", forms[1], tr.Lines, o.Addr)
		}
	}
	// A --from that picks many objects names some of them.
	if len(top.Types) > 0 {
		var stdout, stderr bytes.Buffer
		err := run([]string{"tree", "--from", top.Types[0].Type, snaps[2]}, &stdout, &stderr)
		if n, _ := selected(t, snaps[2], top.Types[0].Type); n > 1 && (err == nil || !strings.Contains(err.Error(), "wants one object")) {
			t.Errorf("tree --from %q (%d objects): %v, want it to ask for one", top.Types[0].Type, n, err)
		}
	}
	closures := 0
	for _, ty := range top.Types {
		if fn, ok := strings.CutSuffix(ty.Type, " (closure)"); ok && !strings.ContainsAny(fn, "()") {
			closures++
			// A name that is a type's too ("NodeError": its instances,
			// and its constructor, "NodeError (closure)") is the type's.
			if _, err := selected(t, snaps[2], "type:"+fn); err == nil {
				continue
			}
			a, errA := selected(t, snaps[2], fn)
			b, errB := selected(t, snaps[2], ty.Type)
			if errA != nil || errB != nil || a != b {
				t.Errorf("why %q selects %d (%v), why %q %d (%v)", fn, a, errA, ty.Type, b, errB)
			}
		}
	}
	if strings.HasSuffix(snaps[2], ".heapsnapshot") && closures == 0 {
		t.Error("top lists no closure type to check")
	}
}

// neighborJSON is a group of retainers or references as --json writes
// it.
type neighborJSON struct {
	Edge     string         `json:"edge"`
	Kind     string         `json:"kind"`
	Type     string         `json:"type"`
	Objects  int            `json:"objects"`
	Edges    int            `json:"edges"`
	Retained uint64         `json:"retained_bytes"`
	Distance int            `json:"distance"`
	Text     string         `json:"text"`
	IDs      []string       `json:"ids"`
	Groups   []neighborJSON `json:"groups"`
}

type neighborsJSON struct {
	Selected int            `json:"selected"`
	Groups   []neighborJSON `json:"groups"`
}

// checkRetainers runs retainers on the planted leaked type and checks
// what a user would read there: the first level holds every edge that
// leads to the leaked objects (counted beside, in the graph), the first
// group is the container that holds them all, and the levels below go
// through the planted holders, in order; refs of that container lists
// each of its edges; --format dot draws a graph Graphviz reads.
func checkRetainers(t *testing.T, snap, leaked string, holders ...string) {
	g, err := heapfile.Open(snap)
	if err != nil {
		t.Fatal(err)
	}
	var rt neighborsJSON
	runJSON(t, &rt, "retainers", "--json", "--depth", fmt.Sprint(len(holders)+1), snap, leaked)
	sel := analyze.Select(g, analyze.Selector{Type: leaked})
	in := map[heap.ObjectID]bool{}
	for _, x := range sel {
		in[x] = true
	}
	edges := 0
	for v := range g.Objects() {
		for _, e := range g.Edges(v) {
			if in[e.To] {
				edges++
			}
		}
	}
	got := 0
	for _, grp := range rt.Groups {
		got += grp.Edges
	}
	if rt.Selected != len(sel) || got != edges {
		t.Errorf("retainers %s: %d objects, %d edges in its groups; the graph has %d and %d", leaked, rt.Selected, got, len(sel), edges)
	}
	if len(rt.Groups) == 0 || rt.Groups[0].Edges < len(sel) {
		t.Fatalf("retainers %s: no group holds all %d of them: %+v", leaked, len(sel), rt.Groups)
	}
	// Down the first group: each planted holder in turn.
	level := rt.Groups[0]
	for _, h := range holders {
		found := false
		for _, k := range level.Groups {
			if strings.Contains(k.Text, h) {
				level, found = k, true
				break
			}
		}
		if !found {
			var texts []string
			for _, k := range level.Groups {
				texts = append(texts, k.Text)
			}
			t.Fatalf("retainers %s: below %q no group is %q: %q", leaked, level.Text, h, texts)
		}
	}
	// The container's references: each of its edges.
	container := rt.Groups[0].IDs[0]
	var refs neighborsJSON
	runJSON(t, &refs, "refs", "--json", snap, container)
	id, err := analyze.ParseID(container)
	if err != nil {
		t.Fatal(err)
	}
	obj, ok := g.FindAddr(id)
	if !ok {
		t.Fatalf("retainers names %s, which is not in the snapshot", container)
	}
	n := 0
	for _, grp := range refs.Groups {
		n += grp.Edges
	}
	if n != len(g.Edges(obj)) {
		t.Errorf("refs %s: %d edges in its groups, the object has %d", container, n, len(g.Edges(obj)))
	}
	if strings.HasSuffix(snap, ".heapsnapshot") != strings.HasPrefix(container, "@") {
		t.Errorf("retainers names the container %s: want @N for V8 ids, 0x for others", container)
	}
	// Graphviz reads the pictures.
	if _, err := exec.LookPath("dot"); err != nil {
		t.Log("no Graphviz dot to read the --format dot output (Debian: graphviz)")
		return
	}
	for _, args := range [][]string{{"retainers", "--format", "dot", "--depth", "3", snap, leaked}, {"why", "--format", "dot", snap, leaked}} {
		var stdout, stderr bytes.Buffer
		if err := run(args, &stdout, &stderr); err != nil {
			t.Fatal(err)
		}
		cmd := exec.Command("dot", "-Tsvg")
		cmd.Stdin = &stdout
		out, err := cmd.CombinedOutput()
		if err != nil || !bytes.Contains(out, []byte("<svg")) {
			t.Errorf("dot -Tsvg on heapscope %s: %v\n%s", strings.Join(args, " "), err, out)
		}
	}
}

// TestExploreNode: the commands that explore one object on a real node
// program's snapshots.
func TestExploreNode(t *testing.T) {
	snaps := leakySnapshots(t, "node")
	t.Run("names", func(t *testing.T) { checkPrintedNames(t, snaps) })
	t.Run("closure", func(t *testing.T) {
		// leaky.js adds a listener onTick per request: 900 closures.
		if n, err := selected(t, snaps[2], "onTick"); err != nil || n != 900 {
			t.Errorf("why onTick selects %d, want the 900 onTick (closure): %v", n, err)
		}
		_, err := selected(t, snaps[2], "onTik")
		if err == nil || !strings.Contains(err.Error(), `nearest: "onTick (closure)"`) {
			t.Errorf("why onTik: %v; want the nearest name onTick (closure)", err)
		}
	})
	t.Run("retainers", func(t *testing.T) {
		checkRetainers(t, snaps[2], "RequestContext", "table in Map", "contexts in system / Context")
		// A second holder: the listeners' closures are held by the
		// EventEmitter's array and by that array's backing store.
		var rt neighborsJSON
		runJSON(t, &rt, "retainers", "--json", snaps[2], "onTick")
		if len(rt.Groups) < 2 {
			t.Errorf("retainers onTick shows %d holders, want the listeners Array and its backing store", len(rt.Groups))
		}
	})
	t.Run("diff objects", func(t *testing.T) { checkDiffObjects(t, snaps[0], snaps[2]) })
}

// checkDiffObjects: diff --new and --deleted list as many objects as the
// diff's row counts new and deleted, each of the row's type, named as
// why takes it (that one object); a row that is not there suggests the
// nearest.
func checkDiffObjects(t *testing.T, before, after string) {
	var d struct {
		Rows []struct {
			Type    string `json:"type"`
			Classes string `json:"classes"`
			Types   int    `json:"types"`
			New     int    `json:"new"`
			Deleted int    `json:"deleted"`
		} `json:"rows"`
	}
	runJSON(t, &d, "diff", "--json", "--top", "0", before, after)
	checked := map[string]bool{}
	for _, r := range d.Rows {
		if r.Classes != "" || r.Types > 0 {
			continue
		}
		for _, c := range []struct {
			which string
			want  int
			snap  string
		}{{"new", r.New, after}, {"deleted", r.Deleted, before}} {
			if c.want == 0 || checked[c.which] && c.want < 50 {
				continue // every row with many objects, and one with few
			}
			checked[c.which] = true
			var objs struct {
				Total   int `json:"total"`
				Objects []struct {
					Type string `json:"type"`
					Text string `json:"text"`
				} `json:"objects"`
			}
			runJSON(t, &objs, "diff", "--json", "--top", "0", "--"+c.which, r.Type, before, after)
			if objs.Total != c.want || len(objs.Objects) != c.want {
				t.Errorf("diff --%s %q lists %d of %d objects; the diff counts %d", c.which, r.Type, len(objs.Objects), objs.Total, c.want)
			}
			for i, o := range objs.Objects {
				if o.Type != r.Type {
					t.Errorf("diff --%s %q lists %s", c.which, r.Type, o.Text)
				}
				if i < 3 {
					if n, err := selected(t, c.snap, o.Text); err != nil || n != 1 {
						t.Errorf("diff --%s prints %q; why selects %d objects: %v", c.which, o.Text, n, err)
					}
				}
			}
		}
	}
	if !checked["new"] || !checked["deleted"] {
		t.Errorf("no row with new and deleted objects to check: %v", checked)
	}
	var stdout, stderr bytes.Buffer
	err := run([]string{"diff", "--new", "RequstContext", before, after}, &stdout, &stderr)
	if err == nil || !strings.Contains(err.Error(), `nearest: "RequestContext"`) {
		t.Errorf("diff --new RequstContext: %v; want the nearest row RequestContext", err)
	}
}

// TestExploreJava: the same on a real JVM's dumps.
func TestExploreJava(t *testing.T) {
	snaps := leakySnapshots(t, "java")
	t.Run("names", func(t *testing.T) { checkPrintedNames(t, snaps) })
	t.Run("retainers", func(t *testing.T) {
		checkRetainers(t, snaps[2], "Leaky$Session", "[*] in java.util.HashMap$Node[]", "table in java.util.HashMap", "sessions in class Leaky")
	})
}

// TestExplorePython: the same on a real Python program's snapshots.
func TestExplorePython(t *testing.T) {
	snaps := leakySnapshots(t, "python")
	t.Run("names", func(t *testing.T) { checkPrintedNames(t, snaps) })
	t.Run("retainers", func(t *testing.T) {
		checkRetainers(t, snaps[2], "__main__.RequestContext", ".contexts in dict", "__dict__ in module __main__")
	})
	t.Run("diff objects", func(t *testing.T) {
		// Addresses are reused: new and deleted are V8's only.
		var stdout, stderr bytes.Buffer
		err := run([]string{"diff", "--new", "__main__.RequestContext", snaps[0], snaps[2]}, &stdout, &stderr)
		if exitCode(err) != 2 || !strings.Contains(err.Error(), "V8's ids") {
			t.Errorf("diff --new of Python snapshots: %v (exit %d), want a misuse that says why", err, exitCode(err))
		}
	})
}
