package analyze_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/heapscope/heapscope/analyze"
	"github.com/heapscope/heapscope/heap"
	"github.com/heapscope/heapscope/internal/heaptest"
)

// fixtureHeap is a Python heap in a pytest process after `round` runs of
// a test body: pytest's test item keeps two log records per run in its
// stash (caplog), the records of one run share a value, monkeypatch's
// undo list gains a tuple, a mock records a call, and a fixture's object
// (the user's app.Cache) gains an item: the one leak of the test.
func fixtureHeap(t *testing.T, round int) *heap.Graph {
	var b strings.Builder
	b.WriteString("runtime python\nroot module mod conftest\n")
	var recs, undo, calls, items []string
	for i := 0; i < round; i++ {
		recs = append(recs, fmt.Sprintf("[%d]=rec%da [%d]=rec%db", 2*i, i, 2*i+1, i))
		undo = append(undo, fmt.Sprintf("[%d]=undo%d", i, i))
		calls = append(calls, fmt.Sprintf("[%d]=call%d", i, i))
		items = append(items, fmt.Sprintf("[%d]=item%d", i, i))
	}
	b.WriteString("mod@0x100 module 72 -> .item=fn\n")
	b.WriteString("fn@0x200 _pytest.python.Function 56 -> ._store=stash .funcargs=args\n")
	b.WriteString("stash@0x300 _pytest.stash.Stash 48 -> ._storage=storage\n")
	b.WriteString("storage@0x400 dict 232 -> ['call']=records\n")
	fmt.Fprintf(&b, "records@0x500 list 88 -> %s\n", strings.Join(recs, " "))
	b.WriteString("args@0x600 dict 232 -> ['monkeypatch']=mp ['client']=mock ['cache']=cache\n")
	b.WriteString("mp@0x700 _pytest.monkeypatch.MonkeyPatch 48 -> ._setattr=undolist\n")
	fmt.Fprintf(&b, "undolist@0x800 list 88 -> %s\n", strings.Join(undo, " "))
	b.WriteString("mock@0x900 unittest.mock.MagicMock 48 -> .call_args_list=calllist\n")
	fmt.Fprintf(&b, "calllist@0xa00 unittest.mock._CallList 88 -> %s\n", strings.Join(calls, " "))
	b.WriteString("cache@0xb00 app.Cache 48 -> .items=itemlist\n")
	fmt.Fprintf(&b, "itemlist@0xc00 list 88 -> %s\n", strings.Join(items, " "))
	for i := 0; i < round; i++ {
		a := 0x10000 + i*0x100
		fmt.Fprintf(&b, "rec%da@%x logging.LogRecord 56 -> .msg=shared%d\n", i, a, i)
		fmt.Fprintf(&b, "rec%db@%x logging.LogRecord 56 -> .msg=shared%d\n", i, a+0x10, i)
		fmt.Fprintf(&b, "shared%d@%x str 60\n", i, a+0x20)
		fmt.Fprintf(&b, "undo%d@%x tuple 64\n", i, a+0x30)
		fmt.Fprintf(&b, "call%d@%x unittest.mock._Call 64\n", i, a+0x40)
		fmt.Fprintf(&b, "item%d@%x app.Item 56\n", i, a+0x50)
	}
	return heaptest.MustParse(t, b.String())
}

// TestOwnerRules (baseline after 1 run, target after 3, final after 5):
// growth whose owner is pytest's or unittest.mock's is
// set aside, and so is what it holds (the strings the log records share,
// which no record dominates); growth a fixture's own object holds stays,
// though pytest holds that object.
func TestOwnerRules(t *testing.T) {
	base, target, final := fixtureHeap(t, 1), fixtureHeap(t, 3), fixtureHeap(t, 5)
	rep := analyze.Leaks(base, target, final, analyze.LeakOptions{KeepNoise: true, Scaling: true})
	var kept, aside []string
	for _, f := range rep.Findings {
		for _, p := range f.Parts {
			s := fmt.Sprintf("%s x%d", p.Type, p.Count)
			if f.Noise != "" {
				aside = append(aside, s+" "+f.Noise+" "+analyze.PathOwner("python", p.PathGroup))
			} else {
				kept = append(kept, s)
			}
		}
	}
	slices.Sort(aside)
	if got, want := strings.Join(kept, "|"), "app.Item x2"; got != want {
		t.Errorf("leaks = %q, want %q", got, want)
	}
	want := []string{
		"logging.LogRecord x4 python-pytest _pytest.stash.Stash",
		// Held by the records, which pytest holds: set aside with them.
		"str x2 python-pytest logging.LogRecord",
		"tuple x2 python-pytest _pytest.monkeypatch.MonkeyPatch",
		"unittest.mock._Call x2 python-unittest-mock unittest.mock._CallList",
	}
	if got := strings.Join(aside, "|"); got != strings.Join(want, "|") {
		t.Errorf("set aside:\n%s\nwant\n%s", strings.Join(aside, "\n"), strings.Join(want, "\n"))
	}
	if rep.Suppressed != len(want) || rep.SuppressedObjects != 10 {
		t.Errorf("suppressed %d groups, %d objects; want %d, 10", rep.Suppressed, rep.SuppressedObjects, len(want))
	}
	// Without the catalogue, everything is a leak: a finding per place,
	// the records and the strings they share being one (the stash's
	// list), the undo list, the call list and the fixture's items.
	rep = analyze.Leaks(base, target, final, analyze.LeakOptions{Noise: []analyze.NoiseRule{}, Scaling: true})
	if len(rep.Findings) != 4 || len(rep.Findings[0].Parts) != 2 {
		t.Errorf("no rules: findings %+v, want 4, the first the log records and their strings", rep.Findings)
	}
}

func TestPathOwner(t *testing.T) {
	sig := func(types ...string) analyze.PathGroup {
		var g analyze.PathGroup
		for _, ty := range types {
			g.Signature = append(g.Signature, analyze.SigStep{Type: ty})
		}
		return g
	}
	for _, c := range []struct {
		runtime string
		grp     analyze.PathGroup
		want    string
	}{
		{"python", sig("_pytest.monkeypatch.MonkeyPatch", "list", "tuple"), "_pytest.monkeypatch.MonkeyPatch"},
		{"python", sig("module", "dict", "list", "app.Item"), "module"},
		{"python", sig("list", "str"), ""},
		{"python", sig("str"), ""},
		{"python", sig("app.Cache", "collections.OrderedDict", "cell", "app.Item"), "app.Cache"},
		{"java", sig("app.Cache", "java.util.ArrayList", "app.Item"), "java.util.ArrayList"},
	} {
		if got := analyze.PathOwner(c.runtime, c.grp); got != c.want {
			t.Errorf("PathOwner(%s, %v) = %q, want %q", c.runtime, c.grp.Signature, got, c.want)
		}
	}
}

// TestNodeBindingData: what Node's per-module native state holds (the
// HTTP parser's buffer, made again between snapshots of a server) is
// Node's, not the program's; the program's objects are not set aside.
func TestNodeBindingData(t *testing.T) {
	buffer := analyze.PathGroup{Signature: []analyze.SigStep{{Type: "Node / BindingData"}, {Type: "Node / parser_buffer", Edge: "parser_buffer"}}}
	if r := analyze.MatchNoise(analyze.BuiltinNoise, "v8", buffer); r == nil || r.Name != "node-binding-data" {
		t.Errorf("the parser's buffer: rule %v, want node-binding-data", r)
	}
	session := analyze.PathGroup{Signature: []analyze.SigStep{{Type: "Object"}, {Type: "Array", Edge: "sessions"}, {Type: "Session", Edge: "[*]"}}}
	if r := analyze.MatchNoise(analyze.BuiltinNoise, "v8", session); r != nil {
		t.Errorf("the program's sessions set aside by %s", r.Name)
	}
}

// TestWithinRule: java-method-handles sets aside what only the method
// handle machinery holds, from its own classes' statics or a global
// handle, through its caches (java.util collections, arrays, soft
// references); what a program's class holds, method handles included,
// stays a finding.
func TestWithinRule(t *testing.T) {
	type st = analyze.SigStep
	cls := func(name string) st { return st{Type: "java.lang.Class", Name: "class " + name} }
	for _, tc := range []struct {
		sig  []st
		want bool
	}{
		{[]st{{Type: "java.lang.invoke.MethodType"}}, true},
		{[]st{{Type: "java.lang.invoke.MethodType"}, {Type: "java.lang.Class[]", Edge: "ptypes"}}, true},
		{[]st{{Type: "java.lang.invoke.MethodType"}, {Type: "java.lang.invoke.MethodTypeForm", Edge: "form"},
			{Type: "java.lang.ref.SoftReference[]", Edge: "lambdaForms"}, {Type: "java.lang.ref.SoftReference", Edge: "[*]"}}, true},
		{[]st{cls("java.lang.invoke.StringConcatFactory"), {Type: "java.util.concurrent.ConcurrentHashMap", Edge: "PREPENDERS"},
			{Type: "java.util.concurrent.ConcurrentHashMap$Node[]", Edge: "table"}, {Type: "java.util.concurrent.ConcurrentHashMap$Node", Edge: "[*]"},
			{Type: "java.lang.invoke.BoundMethodHandle$Species_L", Edge: "val"}}, true},
		// A program's class, and a program's object on the way.
		{[]st{cls("app.Handlers"), {Type: "java.util.ArrayList", Edge: "ALL"}, {Type: "java.lang.Object[]", Edge: "elementData"},
			{Type: "java.lang.invoke.DirectMethodHandle", Edge: "[*]"}}, false},
		{[]st{cls("java.lang.invoke.StringConcatFactory"), {Type: "app.Box", Edge: "x"}, {Type: "app.Item", Edge: "item"}}, false},
		{[]st{{Type: "app.Item"}}, false},
	} {
		grp := analyze.PathGroup{RootKind: heap.RootClass, RootName: "sticky class", Signature: tc.sig}
		r := analyze.MatchNoise(analyze.BuiltinNoise, "java", grp)
		if got := r != nil && r.Name == "java-method-handles"; got != tc.want {
			t.Errorf("%v: set aside as the method handles' %v, want %v (rule %v)", tc.sig, got, tc.want, r)
		}
	}
}

// TestDaskRules: what Dask's objects keep in deques (a worker's
// transition log) is Dask's; what a worker holds for the program (its
// task results in Worker.data), a deque of the program's and the
// samples of Dask's profiling thread, a local deque with a maxlen that
// leaks calls bounded, are not set aside.
func TestDaskRules(t *testing.T) {
	grp := func(root string, steps ...analyze.SigStep) analyze.PathGroup {
		return analyze.PathGroup{RootName: root, Signature: steps}
	}
	worker := analyze.SigStep{Type: "distributed.worker.Worker"}
	for _, c := range []struct {
		what string
		grp  analyze.PathGroup
		want string
	}{
		{"the transition log", grp("", worker, analyze.SigStep{Type: "distributed.worker_state_machine.WorkerState", Edge: ".state"},
			analyze.SigStep{Type: "collections.deque", Edge: ".log"}, analyze.SigStep{Type: "tuple", Edge: "[*]"}), "python-dask-logs"},
		{"the profile samples", grp("thread Profile", analyze.SigStep{Type: "frame"},
			analyze.SigStep{Type: "collections.deque", Edge: "<local> log"}, analyze.SigStep{Type: "tuple", Edge: "[*]"}, analyze.SigStep{Type: "dict", Edge: "[1]"}), ""},
		{"task results", grp("", worker, analyze.SigStep{Type: "dict", Edge: ".data"}, analyze.SigStep{Type: "app.Result", Edge: "[*]"}), ""},
		{"the program's deque", grp("app", analyze.SigStep{Type: "module"}, analyze.SigStep{Type: "collections.deque", Edge: ".log"}, analyze.SigStep{Type: "app.Event", Edge: "[*]"}), ""},
		{"a local log of another thread", grp("thread MainThread", analyze.SigStep{Type: "frame"},
			analyze.SigStep{Type: "collections.deque", Edge: "<local> log"}, analyze.SigStep{Type: "tuple", Edge: "[*]"}), ""},
	} {
		got := ""
		if r := analyze.MatchNoise(analyze.BuiltinNoise, "python", c.grp); r != nil {
			got = r.Name
		}
		if got != c.want {
			t.Errorf("%s: rule %q, want %q", c.what, got, c.want)
		}
	}
}
