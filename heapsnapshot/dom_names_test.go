package heapsnapshot_test

import (
	"strings"
	"testing"

	"github.com/heapscope/heapscope/heapsnapshot"
)

// panelPage detaches a panel with attributes and keeps it in a global,
// with a span inside it.
const panelPage = `<!doctype html><html><body><div id=app><div class="panel wide" id="p1" data-kind="card"><span title="t">x</span></div></div><script>
const app = document.getElementById('app');
const panel = document.getElementById('p1');
app.removeChild(panel);
window.kept = panel;
document.title = 'ready';
</script></body></html>`

// TestChromiumElementNames: an element is named as DevTools names it in
// its Summary, with its attributes, "Detached " first when it is
// detached; its type stays the tag alone, so that elements group.
func TestChromiumElementNames(t *testing.T) {
	g, err := heapsnapshot.Open(chromiumSnapshot(t, panelPage))
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{
		`Detached <div class="panel wide" id="p1" data-kind="card">`: "Detached <div>",
		`Detached <span title="t">`:                                  "Detached <span>",
		`<div id="app">`:                                             "<div>",
	}
	found := map[string]bool{}
	for id := range g.Objects() {
		name, ok := g.Name(id)
		if !ok || !strings.Contains(name, "<") {
			continue
		}
		if typ, ok := want[name]; ok {
			found[name] = true
			if got := g.TypeName(g.Type(id)); got != typ {
				t.Errorf("%s is a %s, want a %s", name, got, typ)
			}
		}
	}
	for name := range want {
		if !found[name] {
			t.Errorf("no element named %s", name)
		}
	}
}
