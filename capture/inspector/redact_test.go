package inspector

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/heapscope/heapscope/heapsnapshot"
)

// secretJS holds secrets in the places a V8 snapshot shows text: a string
// literal, a built string, a concatenation, a slice, the keys of an
// object used as a dictionary, a Map's keys and values, a WeakMap value,
// a regexp source, and the script's own source. Each secret holds
// "S3CR3T". It prints "ready" once it has them.
const secretJS = `
class Vault { constructor(){ this.password = 'pw-S3CR3T-' + process.pid; this.token = 'LITERAL-S3CR3T'; } }
globalThis.vault = new Vault();
globalThis.sessions = {};
for (let i = 0; i < 40; i++) sessions['key' + i + '-S3CR3T-' + process.pid] = { i };
globalThis.cons = 'CONS-S3CR3T-' + Math.random() + '-a-long-enough-tail-for-a-cons-string';
globalThis.sliced = ('SLICED-S3CR3T-' + 'y'.repeat(100) + Math.random()).slice(1, 90);
globalThis.map = new Map([['mapkey-S3CR3T-' + process.pid, 'mapval-S3CR3T-' + process.pid]]);
globalThis.weak = new WeakMap([[vault, 'weakval-S3CR3T-' + process.pid]]);
globalThis.re = new RegExp('regex-S3CR3T-' + process.pid);
setInterval(() => {}, 1000);
console.log('ready');
`

// secretRE finds any secret of secretJS in a file. The word is built at
// run time so that it appears in no snapshot of this test's own text.
var secretRE = regexp.MustCompile("S3CR" + "3T")

// writeSecretSnapshot has node write a snapshot of secretJS's heap with
// v8.writeHeapSnapshot, as V8 makes it, and returns it.
func writeSecretSnapshot(t testing.TB) []byte {
	t.Helper()
	if _, err := exec.LookPath("node"); err != nil {
		t.Skip("node is not installed")
	}
	path := filepath.Join(t.TempDir(), "secret.heapsnapshot")
	js := strings.Replace(secretJS, "setInterval(() => {}, 1000);", "require('v8').writeHeapSnapshot("+fmt.Sprintf("%q", path)+");", 1)
	if out, err := exec.Command("node", "-e", js).CombinedOutput(); err != nil {
		t.Fatalf("node: %v\n%s", err, out)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestRedact redacts a real snapshot that holds secrets: none is left,
// the nodes and edges are byte for byte the same, and the graph read
// back has the same objects, types, edges and property names.
func TestRedact(t *testing.T) {
	orig := writeSecretSnapshot(t)
	if n := len(secretRE.FindAll(orig, -1)); n < 10 {
		t.Fatalf("the snapshot holds %d secrets, want the program's (the test is broken)", n)
	}
	var red bytes.Buffer
	if err := Redact(&red, bytes.NewReader(orig)); err != nil {
		t.Fatalf("Redact() = %v", err)
	}
	if loc := secretRE.FindIndex(red.Bytes()); loc != nil {
		t.Errorf("a secret is left: %q", red.Bytes()[max(0, loc[0]-40):min(red.Len(), loc[1]+40)])
	}
	cut := func(b []byte) []byte { return b[:bytes.Index(b, []byte(`"strings":`))] }
	if !bytes.Equal(cut(orig), cut(red.Bytes())) {
		t.Errorf("the text before the strings changed")
	}
	checkSameGraph(t, orig, red.Bytes())
}

// checkSameGraph reads both snapshots and compares what the analyses
// use: objects, types, edges, and the names of properties, variables
// and internal edges.
func checkSameGraph(t *testing.T, orig, red []byte) {
	t.Helper()
	g, err := heapsnapshot.Read(bytes.NewReader(orig))
	if err != nil {
		t.Fatal(err)
	}
	r, err := heapsnapshot.Read(bytes.NewReader(red))
	if err != nil {
		t.Fatalf("reading the redacted snapshot: %v", err)
	}
	if g.NumObjects() != r.NumObjects() || g.NumEdges() != r.NumEdges() {
		t.Fatalf("%d objects %d edges, want %d %d", r.NumObjects(), r.NumEdges(), g.NumObjects(), g.NumEdges())
	}
	kept, renamed := 0, 0
	vault := 0
	for id := range g.Objects() {
		if g.TypeName(g.Type(id)) != r.TypeName(r.Type(id)) {
			t.Fatalf("object %d: type %q, was %q", id, r.TypeName(r.Type(id)), g.TypeName(g.Type(id)))
		}
		if g.TypeName(g.Type(id)) == "Vault" {
			vault++
			names := map[string]bool{}
			for _, e := range r.Edges(id) {
				names[r.EdgeName(e.Label)] = true
			}
			if !names["password"] || !names["token"] {
				t.Errorf("Vault's edges %v lack its property names", names)
			}
		}
		ge, re := g.Edges(id), r.Edges(id)
		for i := range ge {
			if ge[i].To != re[i].To || ge[i].Label.Kind() != re[i].Label.Kind() {
				t.Fatalf("object %d edge %d differs", id, i)
			}
			if g.EdgeName(ge[i].Label) == r.EdgeName(re[i].Label) {
				kept++
			} else {
				renamed++
			}
		}
	}
	if vault != 1 {
		t.Errorf("%d Vault objects, want 1", vault)
	}
	// The dictionary keys and a few more go; nearly all names stay.
	if renamed > (kept+renamed)/5 {
		t.Errorf("%d of %d edge names replaced, want few", renamed, kept+renamed)
	}
	t.Logf("%d edge names kept, %d replaced", kept, renamed)
}

// TestSnapshotNoValues takes a capture of a live process with NoValues:
// the snapshot that reaches the writer holds no secret.
func TestSnapshotNoValues(t *testing.T) {
	cmd, _ := startNodeJS(t, secretJS, "--inspect-port=0")
	var plain, red bytes.Buffer
	if err := Snapshot(testCtx(t), cmd.Process.Pid, &plain, Options{}); err != nil {
		t.Fatal(err)
	}
	if !secretRE.Match(plain.Bytes()) {
		t.Fatalf("the plain snapshot holds no secret (the test is broken)")
	}
	if err := Snapshot(testCtx(t), cmd.Process.Pid, &red, Options{NoValues: true}); err != nil {
		t.Fatalf("Snapshot(NoValues) = %v", err)
	}
	if secretRE.Match(red.Bytes()) {
		t.Errorf("the NoValues snapshot holds a secret")
	}
	if n := countType(t, red.Bytes(), "Vault"); n != 1 {
		t.Errorf("%d Vault objects, want 1", n)
	}
	assertClosed(t, cmd.Process.Pid, nil)
}

// tinySnapshot is a snapshot in V8's layout: a root, an object with a
// property holding a string, and the string.
const tinySnapshot = `{"snapshot":{"meta":{"node_fields":["type","name","id","self_size","edge_count","trace_node_id","detachedness"],` +
	`"node_types":[["hidden","array","string","object","code","closure","regexp","number","native","synthetic","concatenated string","sliced string","symbol","bigint","object shape"],"string","number","number","number","number","number"],` +
	`"edge_fields":["type","name_or_index","to_node"],"edge_types":[["context","element","property","internal","hidden","shortcut","weak"],"string_or_number","node"]},"node_count":3,"edge_count":2},
"nodes":[9,1,1,0,1,0,0
,3,2,3,16,1,0,0
,2,3,5,24,0,0,0],
"edges":[1,0,7
,2,4,14],
"trace_function_infos":[],"strings":["<dummy>","","Holder","hunter2","pass\"word"]}`

// TestRedactTiny checks the rules on a hand-made snapshot: the class and
// property names stay, the string value goes.
func TestRedactTiny(t *testing.T) {
	var out bytes.Buffer
	if err := Redact(&out, strings.NewReader(tinySnapshot)); err != nil {
		t.Fatal(err)
	}
	want := `"strings":["<dummy>","","Holder","[redacted #3]","pass\"word"]}`
	if !strings.HasSuffix(out.String(), want) {
		t.Errorf("Redact() ends %q, want %q", out.String()[strings.Index(out.String(), `"strings"`):], want)
	}
	g, err := heapsnapshot.Read(&out)
	if err != nil {
		t.Fatal(err)
	}
	if v, _ := g.Value(2); v != "[redacted #3]" {
		t.Errorf("the string reads %q", v)
	}
	if n := g.EdgeName(g.Edges(1)[0].Label); n != `pass"word` {
		t.Errorf("the property is named %q", n)
	}
}

// TestRedactHostile feeds Redact snapshots it must refuse rather than
// pass strings through: it errs, and what it wrote holds no value.
func TestRedactHostile(t *testing.T) {
	for name, in := range map[string]string{
		"strings first":    `{"strings":["hunter2"],` + tinySnapshot[1:],
		"no meta":          `{"nodes":[],"edges":[],"strings":["hunter2"]}`,
		"index far out":    strings.Replace(tinySnapshot, `,2,3,5,24,0,0,0]`, `,2,99999999,5,24,0,0,0]`, 1),
		"to_node not node": strings.Replace(tinySnapshot, `,2,4,14]`, `,2,4,15]`, 1),
		"to_node past end": strings.Replace(tinySnapshot, `,2,4,14]`, `,2,4,21]`, 1),
		"too many edges":   strings.Replace(tinySnapshot, `,2,4,14]`, `,2,4,14,2,4,14]`, 1),
		"left over":        strings.Replace(tinySnapshot, `,2,4,14]`, `,2,4]`, 1),
		"bad type":         strings.Replace(tinySnapshot, `,2,4,14]`, `,9,4,14]`, 1),
		"truncated":        tinySnapshot[:len(tinySnapshot)-20],
		"number overflow":  strings.Replace(tinySnapshot, `3,16,1`, `3,99999999999999999999999,1`, 1),
		"unknown key form": strings.Replace(tinySnapshot, `"strings"`, `"str\u0069ngs"`, 1),
	} {
		var out bytes.Buffer
		err := Redact(&out, strings.NewReader(in))
		if name == "unknown key form" {
			// An escaped key is still the strings table.
			if err != nil || strings.Contains(out.String(), "hunter2") {
				t.Errorf("%s: Redact() = %v, output %q", name, err, out.String())
			}
			continue
		}
		if err == nil {
			t.Errorf("%s: Redact() succeeded", name)
		}
		if strings.Contains(out.String(), "hunter2") {
			t.Errorf("%s: the value got through", name)
		}
	}
}

// FuzzRedact checks that no input makes Redact panic or run away with
// memory.
func FuzzRedact(f *testing.F) {
	f.Add([]byte(tinySnapshot))
	f.Add([]byte(`{"snapshot":{},"nodes":[]}`))
	f.Add([]byte(strings.Replace(tinySnapshot, `"hunter2"`, `"hun\"ter2\\"`, 1)))
	f.Fuzz(func(t *testing.T, in []byte) {
		Redact(io.Discard, bytes.NewReader(in))
	})
}

// BenchmarkRedact measures Redact beside reading the same snapshot, as
// heapscope does after a capture.
func BenchmarkRedact(b *testing.B) {
	orig := writeSecretSnapshot(b)
	b.Run("read", func(b *testing.B) {
		b.SetBytes(int64(len(orig)))
		for i := 0; i < b.N; i++ {
			if _, err := heapsnapshot.Read(bytes.NewReader(orig)); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("redact", func(b *testing.B) {
		b.SetBytes(int64(len(orig)))
		for i := 0; i < b.N; i++ {
			if err := Redact(io.Discard, bytes.NewReader(orig)); err != nil {
				b.Fatal(err)
			}
		}
	})
}
