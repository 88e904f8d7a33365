package agent

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/heapscope/heapscope/capture/inspector"
	"github.com/heapscope/heapscope/heap"
	"github.com/heapscope/heapscope/heapsnapshot"
)

// redactJS runs the preload's redactor over the file argv[1] in pieces
// of random sizes from 1 to argv[3] characters (a seeded generator) and
// writes the result to argv[2]; on an error it prints it and exits 3.
const redactJS = `
const { newRedactor } = require(process.env.PRELOAD);
const fs = require('fs');
const [inPath, outPath, maxPiece] = process.argv.slice(1);
const text = fs.readFileSync(inPath, 'utf8');
const fd = fs.openSync(outPath, 'w');
let seed = 12345;
try {
  const r = newRedactor((s) => fs.writeSync(fd, s));
  for (let i = 0; i < text.length;) {
    seed = (seed * 1103515245 + 12345) & 0x7fffffff;
    const n = 1 + seed % +maxPiece;
    r.feed(text.slice(i, i + n));
    i += n;
  }
  r.end();
} catch (e) {
  console.log(e.message);
  process.exit(3);
}
`

// redactWith runs the preload's redactor over in, fed in pieces of at
// most maxPiece characters, and returns what it wrote, or its error.
func redactWith(t *testing.T, in []byte, maxPiece string) ([]byte, error) {
	t.Helper()
	dir := t.TempDir()
	preload := filepath.Join(dir, "preload.js")
	inPath, outPath := filepath.Join(dir, "in"), filepath.Join(dir, "out")
	if err := os.WriteFile(preload, nodePreload, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(inPath, in, 0o600); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("node", "-e", redactJS, inPath, outPath, maxPiece)
	cmd.Env = append(os.Environ(), "PRELOAD="+preload)
	if out, err := cmd.CombinedOutput(); err != nil {
		return nil, fmt.Errorf("%v: %s", err, out)
	}
	return os.ReadFile(outPath)
}

// TestPreloadRedactorMatchesGo holds the preload's JavaScript redactor
// to inspector.Redact: on a real snapshot with secrets, fed in pieces of
// any size, it writes the same bytes; on text Redact refuses, it fails.
func TestPreloadRedactorMatchesGo(t *testing.T) {
	if _, err := exec.LookPath("node"); err != nil {
		t.Skip("node is not installed")
	}
	dir := t.TempDir()
	js := `
const w = ['S3', 'CR', '3T'].join('');
class Vault { constructor() { this.password = 'pw-' + w; } }
function makeVault() { return new Vault(); }
globalThis.vault = makeVault();
globalThis.sessions = {};
for (let i = 0; i < 40; i++) sessions['key' + i + '-' + w] = { i };
globalThis.weak = new WeakMap([[vault, 'weak-' + w]]);
globalThis.esc = 'quote" back\\ nl\n tab\t uni\u2028 ' + w;
class Odd { constructor() { this['we"ird\\key\u2028'] = {}; } }
globalThis.odd = new Odd();
require('v8').writeHeapSnapshot(process.argv[1]);
`
	var orig []byte
	// A snapshot as node writes it, and one with allocation traces, whose
	// function names and scripts stay.
	for _, tracked := range []bool{false, true} {
		snap := filepath.Join(dir, fmt.Sprintf("s%v.heapsnapshot", tracked))
		args := []string{"-e", js, snap}
		if tracked {
			args = append([]string{TrackFlag}, args...)
		}
		if out, err := exec.Command("node", args...).CombinedOutput(); err != nil {
			t.Fatalf("node: %v\n%s", err, out)
		}
		var err error
		if orig, err = os.ReadFile(snap); err != nil {
			t.Fatal(err)
		}
		var want bytes.Buffer
		if err := inspector.Redact(&want, bytes.NewReader(orig)); err != nil {
			t.Fatal(err)
		}
		if bytes.Equal(want.Bytes(), orig) || bytes.Contains(want.Bytes(), []byte("S3"+"CR3T")) {
			t.Fatal("Redact changed nothing, or left the secret (the test is broken)")
		}
		if tracked {
			g, err := heapsnapshot.Read(bytes.NewReader(want.Bytes()))
			if err != nil {
				t.Fatal(err)
			}
			found := false
			for id := range g.Objects() {
				if g.TypeName(g.Type(id)) == "Vault" {
					f := g.SiteFrame(g.Site(id))
					found = g.String(f.Function) == "makeVault" && g.String(f.File) == "[eval]"
				}
			}
			if !found {
				t.Errorf("the redacted snapshot lost where the Vault was allocated")
			}
			for s := 1; s < g.NumSites(); s++ {
				f := g.SiteFrame(heap.SiteID(s))
				if name := g.String(f.Function) + " " + g.String(f.File); strings.Contains(name, "[redacted") {
					t.Fatalf("site %d: %q redacted", s, name)
				}
			}
		}
		for _, max := range []string{"7", "5000", "100000000"} {
			got, err := redactWith(t, orig, max)
			if err != nil {
				t.Fatalf("pieces up to %s: %v", max, err)
			}
			if !bytes.Equal(got, want.Bytes()) {
				i := 0
				for i < len(got) && i < want.Len() && got[i] == want.Bytes()[i] {
					i++
				}
				t.Errorf("tracked %v, pieces up to %s: differs from Go at byte %d: %.60q, want %.60q", tracked, max, i, got[i:], want.Bytes()[i:])
			}
		}
	}
	// Text both refuse: the strings before the edges, an edge too many
	// (the numbers shift), a node type out of range, the end cut off.
	for name, bad := range map[string][]byte{
		"strings first":    bytes.Replace(orig, []byte(`"nodes":`), []byte(`"strings":["x"],"nodes":`), 1),
		"shifted edges":    bytes.Replace(orig, []byte(`"edges":[`), []byte(`"edges":[1,`), 1),
		"one number short": bytes.Replace(orig, []byte(`"nodes":[`), []byte(`"nodes":[9,`), 1),
		"cut":              orig[:len(orig)-100],
	} {
		if err := inspector.Redact(&bytes.Buffer{}, bytes.NewReader(bad)); err == nil {
			t.Errorf("%s: Redact accepted it", name)
		}
		if _, err := redactWith(t, bad, "5000"); err == nil {
			t.Errorf("%s: the preload's redactor accepted it", name)
		}
	}
}
