package heapsnapshot_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/heapscope/heapscope/capture/inspector"
	"github.com/heapscope/heapscope/heap"
	"github.com/heapscope/heapscope/heapsnapshot"
)

// detachPage builds 40 <li> items in a <ul>, then takes the list out of
// the document and keeps it in a global: 41 detached elements, their
// text nodes detached with them.
const detachPage = `<!doctype html><html><body><div id=app></div><script>
const app = document.getElementById('app');
const list = document.createElement('ul');
for (let i = 0; i < 40; i++) {
  const li = document.createElement('li');
  li.textContent = 'item ' + i;
  list.appendChild(li);
}
app.appendChild(list);
app.removeChild(list);
window.kept = list;
document.title = 'ready';
</script></body></html>`

// chromiumSnapshot loads page in headless Chromium (on loopback, with a
// fresh profile) and takes a heap snapshot of it over the DevTools
// protocol into a file, whose path it returns.
func chromiumSnapshot(t *testing.T, page string) string {
	t.Helper()
	bin, err := exec.LookPath("chromium")
	if err != nil {
		t.Skip("chromium not installed (Debian package chromium)")
	}
	dir := t.TempDir()
	html := filepath.Join(dir, "page.html")
	if err := os.WriteFile(html, []byte(page), 0o600); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	profile := filepath.Join(dir, "profile")
	cmd := exec.CommandContext(ctx, bin, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
		"--disable-background-networking", "--disable-component-update", "--disable-sync",
		"--remote-debugging-address=127.0.0.1", "--remote-debugging-port=0", "--user-data-dir="+profile,
		"file://"+html)
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { cmd.Process.Kill(); cmd.Wait() }()
	// Chromium prints "DevTools listening on ws://127.0.0.1:PORT/devtools/browser/..."
	port := ""
	sc := bufio.NewScanner(stderr)
	for sc.Scan() {
		line := sc.Text()
		if _, rest, ok := strings.Cut(line, "DevTools listening on ws://127.0.0.1:"); ok {
			port, _, _ = strings.Cut(rest, "/")
			break
		}
	}
	if port == "" {
		t.Fatalf("chromium did not say where DevTools listens")
	}
	go func() {
		for sc.Scan() {
		}
	}()
	var target string
	for target == "" {
		if ctx.Err() != nil {
			t.Fatal("the page did not load")
		}
		var targets []struct {
			Type  string `json:"type"`
			Title string `json:"title"`
			WS    string `json:"webSocketDebuggerUrl"`
		}
		resp, err := http.Get("http://127.0.0.1:" + port + "/json/list")
		if err == nil {
			json.NewDecoder(resp.Body).Decode(&targets)
			resp.Body.Close()
		}
		for _, tg := range targets {
			if tg.Type == "page" && tg.Title == "ready" {
				target = tg.WS
			}
		}
		time.Sleep(100 * time.Millisecond)
	}
	out := filepath.Join(dir, "page.heapsnapshot")
	f, err := os.Create(out)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := inspector.SnapshotURL(ctx, target, f, inspector.Options{}); err != nil {
		t.Fatalf("snapshot: %v", err)
	}
	if keep := os.Getenv("HEAPSCOPE_KEEP_SNAPSHOT"); keep != "" {
		data, _ := os.ReadFile(out)
		os.WriteFile(keep, data, 0o600)
	}
	return out
}

// TestChromiumDetached takes a snapshot of a real page that detaches a
// list and checks that its elements are named as DevTools names them.
func TestChromiumDetached(t *testing.T) {
	path := chromiumSnapshot(t, detachPage)
	g, err := heapsnapshot.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	count := map[string]int{}
	for id := range g.Objects() {
		if name := g.TypeName(g.Type(id)); strings.HasPrefix(name, "Detached ") {
			count[name]++
		}
	}
	if count["Detached <li>"] != 40 || count["Detached <ul>"] != 1 {
		t.Errorf("detached elements: %v; want 40 <li> and 1 <ul>", count)
	}
	// The page's own elements are attached.
	if n := countPrefix(g, "<div"); n == 0 {
		t.Errorf("no attached <div>; detached: %s", fmt.Sprint(count))
	}
	// Without its edges (summary), the page keeps the edges of its
	// native nodes long enough to tell the same ones detached.
	skip, err := heapsnapshot.Options{SkipEdges: true}.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	if !skip.EdgesSkipped() || skip.NumObjects() != g.NumObjects() {
		t.Fatalf("SkipEdges: skipped %v, %d objects of %d", skip.EdgesSkipped(), skip.NumObjects(), g.NumObjects())
	}
	for id := range g.Objects() {
		if a, b := g.TypeName(g.Type(id)), skip.TypeName(skip.Type(id)); a != b {
			t.Fatalf("object %d is a %s read whole, a %s without edges", id, a, b)
		}
	}
}

func countPrefix(g *heap.Graph, prefix string) int {
	n := 0
	for id := range g.Objects() {
		if strings.HasPrefix(g.TypeName(g.Type(id)), prefix) {
			n++
		}
	}
	return n
}
