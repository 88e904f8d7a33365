package browsertest

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/heapscope/heapscope/agent"
)

// TestLeakHolders opens the leaks and why views of a real Python program
// whose leaked classes two independent holders keep (the program's cache
// and its metaclass's registry, testdata/twoholders.py): the finding and
// why's group name both holders, what each holds, and say that removing
// one alone frees nothing, as the leaks command does.
func TestLeakHolders(t *testing.T) {
	chromium(t)
	if _, err := exec.LookPath("python3"); err != nil {
		t.Skip("python3 is not installed")
	}
	pp, err := agent.Dir()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	cmd := exec.Command("python3", filepath.Join(testdata, "twoholders.py"), dir)
	cmd.Env = append(os.Environ(), "PYTHONPATH="+pp)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("twoholders.py: %v\n%s", err, out)
	}
	var snaps []string
	for _, n := range []string{"a", "b", "c"} {
		snaps = append(snaps, filepath.Join(dir, n+".pysnap"))
	}
	url := serve(t, snaps)
	b := newBrowser(t)
	b.open(t, "the page", url)
	holders := []string{"dict at module __main__._plugins", "list at class __main__.PluginMeta.registry"}

	b.open(t, "leaks", site(url)+"#/leaks")
	b.wait(t, "the findings", `document.querySelector('[data-table="leaks"][data-total]') !== null`)
	if n := eval[int](t, b, `document.querySelectorAll('[data-table="leaks"] tbody tr').length`); n != 1 {
		t.Errorf("the leaks view shows %d findings, want the one cause", n)
	}
	b.wait(t, "the finding's holders", `document.querySelector('[data-table="leaks"] tbody tr .holders') !== null`)
	text := b.text(t, `[data-table="leaks"] tbody tr .holders`)
	for _, h := range holders {
		if !strings.Contains(text, h+": holds") {
			t.Errorf("the finding does not name its holder %q:\n%s", h, text)
		}
	}
	if !strings.Contains(text, "removing one alone frees nothing") || strings.Count(text, "alone frees nothing") != 3 {
		t.Errorf("the finding does not say that removing either holder frees nothing:\n%s", text)
	}

	b.open(t, "why", site(url)+"#/why?s=2&sel=__main__.reader_50")
	b.wait(t, "the paths", `document.querySelector('[data-table="why"][data-total]') !== null`)
	b.wait(t, "the holders", `document.querySelector('[data-table="why"] tbody tr .holders') !== null`)
	text = b.text(t, `[data-table="why"] tbody`)
	for _, h := range holders {
		if !strings.Contains(text, h) {
			t.Errorf("why __main__.reader_50 does not name the holder %q:\n%s", h, text)
		}
	}
	if !strings.Contains(text, "frees nothing") {
		t.Errorf("why __main__.reader_50 does not say that one holder alone frees nothing:\n%s", text)
	}
	b.clean(t, site(url))
}
