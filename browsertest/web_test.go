package browsertest

import (
	"bufio"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/heapprofiler"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"github.com/heapscope/heapscope/agent"
)

var screenshots = flag.String("screenshots", "", "write the README's pictures (web-*.png) into this `dir` (../docs)")

// testdata is where the real programs that write snapshots live: the
// same programs the command line's acceptance tests run.
const testdata = "../cmd/heapscope/testdata"

var (
	binOnce sync.Once
	binPath string
	binErr  error
	binDir  string
)

func TestMain(m *testing.M) {
	flag.Parse()
	code := m.Run()
	if binDir != "" {
		os.RemoveAll(binDir)
	}
	os.Exit(code)
}

// heapscope builds the heapscope binary once.
func heapscope(t *testing.T) string {
	t.Helper()
	binOnce.Do(func() {
		binDir, binErr = os.MkdirTemp("", "heapscope-browsertest")
		if binErr != nil {
			return
		}
		binPath = filepath.Join(binDir, "heapscope")
		out, err := exec.Command("go", "build", "-o", binPath, "github.com/heapscope/heapscope/cmd/heapscope").CombinedOutput()
		if err != nil {
			binErr = fmt.Errorf("go build: %v\n%s", err, out)
		}
	})
	if binErr != nil {
		t.Fatal(binErr)
	}
	return binPath
}

// chromium returns the browser to drive, or skips the test.
func chromium(t *testing.T) string {
	t.Helper()
	for _, name := range []string{"chromium", "chromium-browser", "/usr/bin/chromium"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	t.Skip("no chromium to drive (Debian: apt-get install chromium); the browser tests need one")
	return ""
}

// runtimeCase is a real program that leaks in two planted ways: where its
// snapshots come from, and what the pages must show of them.
type runtimeCase struct {
	name    string
	runtime string // as the overview names it
	leaked  string // a planted leaked type
	planted []string
	// holders: what the retainers pane of one leaked object shows first,
	// and what it shows below that once opened.
	holders [2]string
}

var cases = []runtimeCase{
	{"python", "python", "__main__.RequestContext", []string{"module __main__ -> .contexts dict", "module __main__ -> .listeners list"}, [2]string{"in dict", ".contexts in dict"}},
	{"node", "v8", "RequestContext", []string{"contexts Map", "bus EventEmitter -> _events Object -> tick Array"}, [2]string{"in (array) @", "table in Map @"}},
	{"java", "java", "Leaky$Session", []string{"sessions java.util.HashMap", "listeners java.util.ArrayList"}, [2]string{"value in java.util.HashMap$Node@", "in java.util.HashMap$Node[]@"}},
}

// capture runs the case's real program, which writes its baseline,
// target and final snapshots into a new directory, and returns their
// paths.
func capture(t *testing.T, c runtimeCase) []string {
	t.Helper()
	dir := t.TempDir()
	var cmd *exec.Cmd
	ext := ""
	switch c.name {
	case "python":
		if _, err := exec.LookPath("python3"); err != nil {
			t.Skip("python3 is not installed")
		}
		pp, err := agent.Dir()
		if err != nil {
			t.Fatal(err)
		}
		cmd = exec.Command("python3", filepath.Join(testdata, "leaky.py"), dir)
		cmd.Env = append(os.Environ(), "PYTHONPATH="+pp)
		ext = ".pysnap"
	case "node":
		if _, err := exec.LookPath("node"); err != nil {
			t.Skip("node is not installed")
		}
		cmd = exec.Command("node", "--expose-gc", filepath.Join(testdata, "leaky.js"), dir)
		ext = ".heapsnapshot"
	case "java":
		if _, err := exec.LookPath("javac"); err != nil {
			t.Skip("javac is not installed")
		}
		if out, err := exec.Command("javac", "-d", dir, filepath.Join(testdata, "Leaky.java")).CombinedOutput(); err != nil {
			t.Fatalf("javac: %v\n%s", err, out)
		}
		cmd = exec.Command("java", "-Xshare:off", "-Xmx256m", "-cp", dir, "Leaky", dir)
		ext = ".hprof"
	}
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%s: %v\n%s", c.name, err, out)
	}
	var snaps []string
	for _, n := range []string{"baseline", "target", "final"} {
		snaps = append(snaps, filepath.Join(dir, n+ext))
	}
	return snaps
}

// serve starts heapscope web on snaps and returns the URL it prints (with
// its token); the server is stopped (SIGINT, as Ctrl-C) when the test
// ends.
func serve(t *testing.T, snaps []string) string {
	t.Helper()
	return serveIn(t, "", snaps)
}

// serveIn is serve with the server's working directory dir (snaps may be
// relative to it).
func serveIn(t *testing.T, dir string, snaps []string) string {
	t.Helper()
	cmd := exec.Command(heapscope(t), append([]string{"web"}, snaps...)...)
	cmd.Dir = dir
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cmd.Process.Signal(os.Interrupt)
		done := make(chan error, 1)
		go func() { done <- cmd.Wait() }()
		select {
		case err := <-done:
			if err != nil {
				t.Errorf("heapscope web did not end cleanly on SIGINT: %v", err)
			}
		case <-time.After(10 * time.Second):
			cmd.Process.Kill()
			t.Error("heapscope web did not stop on SIGINT")
		}
	})
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil {
		t.Fatalf("heapscope web printed no address: %v", err)
	}
	url := regexp.MustCompile(`http://127\.0\.0\.1:\d+/\?token=[0-9a-f]{32}`).FindString(line)
	if url == "" {
		t.Fatalf("heapscope web printed %q: no loopback URL with a token", line)
	}
	return url
}

// site is the server's address without the token: the prefix of every
// request the page makes. Once the page has been opened with the token,
// site+"#/view" moves between views as a click on a link does.
func site(url string) string {
	return url[:strings.Index(url, "?")]
}

// endpoint is the address of path on the server of url (which carries the
// token), with the token.
func endpoint(url, path string) string {
	i := strings.Index(url, "?")
	return url[:i] + path + url[i:]
}

// browser is a headless Chromium tab. It records every request the page
// makes and every Content-Security-Policy violation.
type browser struct {
	ctx        context.Context
	mu         sync.Mutex
	requests   []string
	exceptions []string        // uncaught JavaScript exceptions
	heap       strings.Builder // the chunks of the heap snapshot being taken
}

// cspProbe records the page's policy violations before any script runs.
const cspProbe = `window.__csp = []; document.addEventListener('securitypolicyviolation', (e) => window.__csp.push(e.violatedDirective + ' ' + e.blockedURI));`

func newBrowser(t *testing.T) *browser {
	t.Helper()
	opts := []chromedp.ExecAllocatorOption{
		chromedp.ExecPath(chromium(t)),
		chromedp.Headless, chromedp.NoSandbox, chromedp.DisableGPU, chromedp.NoFirstRun, chromedp.NoDefaultBrowserCheck,
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.Flag("disable-quic", true),
		chromedp.Flag("hide-scrollbars", true),
		chromedp.UserDataDir(t.TempDir()),
		chromedp.WindowSize(1400, 1000),
	}
	b := &browser{}
	actx, cancelA := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancelC := chromedp.NewContext(actx, chromedp.WithListener(func(ev any) {
		b.mu.Lock()
		defer b.mu.Unlock()
		switch e := ev.(type) {
		case *network.EventRequestWillBeSent:
			b.requests = append(b.requests, e.Request.URL)
		case *heapprofiler.EventAddHeapSnapshotChunk:
			b.heap.WriteString(e.Chunk)
		case *runtime.EventExceptionThrown:
			d := e.ExceptionDetails
			msg := d.Text
			if d.Exception != nil {
				msg += " " + d.Exception.Description
			}
			b.exceptions = append(b.exceptions, fmt.Sprintf("%s (%s:%d:%d)", msg, d.URL, d.LineNumber+1, d.ColumnNumber+1))
		}
	}))
	t.Cleanup(func() { cancelC(); cancelA() })
	if _, err := chromedp.Call(ctx, runtime.Enable, cdp.Empty{}); err != nil {
		t.Fatalf("start chromium: %v", err)
	}
	if _, err := chromedp.Call(ctx, network.Enable, network.EnableParams{}); err != nil {
		t.Fatalf("start chromium: %v", err)
	}
	if _, err := chromedp.Call(ctx, page.AddScriptToEvaluateOnNewDocument, page.AddScriptToEvaluateOnNewDocumentParams{Source: cspProbe}); err != nil {
		t.Fatal(err)
	}
	ctx, cancelT := context.WithTimeout(ctx, 3*time.Minute)
	t.Cleanup(cancelT)
	b.ctx = ctx
	return b
}

// run runs actions in the tab.
func (b *browser) run(t *testing.T, what string, actions ...chromedp.Action[chromedp.Void]) {
	t.Helper()
	if err := chromedp.Do(b.ctx, actions...); err != nil {
		loc, _ := chromedp.Run(b.ctx, chromedp.Location())
		t.Fatalf("%s: %v (page at %s)", what, err, loc)
	}
}

// text returns the text of the first node sel matches, once it is visible.
func (b *browser) text(t *testing.T, sel string) string {
	t.Helper()
	b.run(t, "wait for "+sel, chromedp.WaitVisible(chromedp.CSS(sel)))
	s, err := chromedp.Run(b.ctx, chromedp.Text(chromedp.CSS(sel)))
	if err != nil {
		t.Fatalf("read %s: %v", sel, err)
	}
	return s
}

// eval evaluates a JavaScript expression in the tab.
func eval[T any](t *testing.T, b *browser, js string) T {
	t.Helper()
	v, err := chromedp.Run(b.ctx, chromedp.Evaluate[T](js))
	if err != nil {
		t.Fatalf("evaluate %s: %v", js, err)
	}
	return v
}

// wait polls a JavaScript condition until it holds. A condition that
// throws (it looked for an element the page has not drawn yet) counts as
// not yet true; if it never holds, the failure shows what it last threw.
func (b *browser) wait(t *testing.T, what, cond string) {
	t.Helper()
	safe := "(() => { try { return !!(" + cond + "); } catch (e) { return false; } })()"
	if _, err := chromedp.Run(b.ctx, chromedp.Poll[bool](safe, chromedp.WithPollingTimeout(60*time.Second))); err != nil {
		loc, _ := chromedp.Run(b.ctx, chromedp.Location())
		_, last := chromedp.Run(b.ctx, chromedp.Evaluate[bool](cond))
		t.Fatalf("wait for %s: %v (page at %s; the condition now: %v)", what, err, loc, last)
	}
}

// open goes to an address of the app and waits until the view drawn is
// the one for that address: a change of the hash alone is handled later,
// in the hashchange event, and until then the old view is on the page.
func (b *browser) open(t *testing.T, what, url string) {
	t.Helper()
	b.run(t, "open "+what, chromedp.Navigate(url))
	b.wait(t, what+" drawn", `document.getElementById('main').dataset.hash === location.hash`)
}

// clean checks that the page threw no exception, broke no rule of its
// policy and asked for nothing but what prefix (the server, or the file)
// serves.
func (b *browser) clean(t *testing.T, prefixes ...string) {
	t.Helper()
	for _, x := range eval[[]string](t, b, `window.__csp || []`) {
		t.Errorf("Content-Security-Policy violation: %s", x)
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	for _, e := range b.exceptions {
		t.Errorf("the page threw %s", e)
	}
	for _, u := range b.requests {
		ok := strings.HasPrefix(u, "data:")
		for _, p := range prefixes {
			ok = ok || strings.HasPrefix(u, p)
		}
		if !ok {
			t.Errorf("the page asked for %s", u)
		}
	}
}

// getJSON asks the server for an endpoint, as an oracle beside the page.
func getJSON(t *testing.T, url string, v any) {
	t.Helper()
	res, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	if err := json.NewDecoder(res.Body).Decode(v); err != nil {
		t.Fatal(err)
	}
}

// TestViews drives every view of heapscope web on the three snapshots of
// a real Python, Node and Java program.
func TestViews(t *testing.T) {
	chromium(t)
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			snaps := capture(t, c)
			url := serve(t, snaps)
			b := newBrowser(t)
			overview(t, b, url, c, snaps)
			summaryTable(t, b, url, c)
			treeClicks(t, b, url)
			whyPath(t, b, url, c)
			topView(t, b, url, snaps[2])
			duplicatesView(t, b, url, snaps[2])
			leaksView(t, b, url, c)
			trendView(t, b, url, c)
			objectPanes(t, b, url, c)
			summaryObjects(t, b, url, c)
			shownTheProgram(t, b, url, c)
			if c.runtime == "v8" {
				diffObjects(t, b, url, c)
			}
			b.clean(t, site(url))
		})
	}
}

// overview: a card per snapshot with the runtime and the object count
// that heapscope summary --json gives; the token is gone from the
// address bar once the page has it as a cookie.
func overview(t *testing.T, b *browser, url string, c runtimeCase, snaps []string) {
	b.run(t, "open the overview", chromedp.Navigate(url))
	b.wait(t, "the cards", fmt.Sprintf(`document.querySelectorAll('.card').length === %d`, len(snaps)))
	if search := eval[string](t, b, `location.search`); search != "" {
		t.Errorf("the address bar keeps %q after the page loaded", search)
	}
	for i, snap := range snaps {
		card := fmt.Sprintf(`.card[data-snapshot="%d"]`, i)
		if rt := b.text(t, card+` dd[data-field="runtime"]`); !strings.HasPrefix(rt, c.runtime) {
			t.Errorf("snapshot %d: runtime %q, want %s", i, rt, c.runtime)
		}
		out, err := exec.Command(heapscope(t), "summary", "--json", "--top", "1", snap).Output()
		if err != nil {
			t.Fatal(err)
		}
		var sum struct {
			Snapshot struct {
				Overview struct {
					Objects int `json:"objects"`
				} `json:"overview"`
			} `json:"snapshot"`
		}
		if err := json.Unmarshal(out, &sum); err != nil {
			t.Fatal(err)
		}
		objs := b.text(t, card+` dd[data-field="objects"]`)
		if want := fmt.Sprintf("%d", sum.Snapshot.Overview.Objects); strings.ReplaceAll(objs, ",", "") != want {
			t.Errorf("snapshot %d: %s objects on the page, summary says %s", i, objs, want)
		}
	}
}

// summaryTable filters the summary by a type and sorts it by count.
func summaryTable(t *testing.T, b *browser, url string, c runtimeCase) {
	b.open(t, "the summary", site(url)+"#/summary?s=2")
	b.wait(t, "the summary", `document.querySelector('[data-table="summary"][data-total]') !== null`)
	total := eval[int](t, b, `Number(document.querySelector('[data-table="summary"]').dataset.total)`)
	b.run(t, "filter the summary", chromedp.SendKeys(chromedp.CSS(`[data-table="summary"] input.filter`), c.leaked))
	b.wait(t, "the filtered summary", fmt.Sprintf(`[...document.querySelectorAll('[data-table="summary"] tbody tr')].every(r => r.textContent.includes(%q)) && Number(document.querySelector('[data-table="summary"]').dataset.total) < %d`, c.leaked, total))
	b.run(t, "clear the filter", chromedp.SendKeys(chromedp.CSS(`[data-table="summary"] input.filter`), strings.Repeat(kb.Backspace, len(c.leaked))))
	b.wait(t, "the whole summary", fmt.Sprintf(`Number(document.querySelector('[data-table="summary"]').dataset.total) === %d`, total))
	// Sort by count: the biggest first.
	counts := func() []int {
		return eval[[]int](t, b, `[...document.querySelectorAll('[data-table="summary"] tbody tr td:first-child')].map(td => Number(td.textContent.replace(/,/g, '')))`)
	}
	b.run(t, "sort by count", chromedp.Click(chromedp.CSS(`[data-table="summary"] th:nth-child(1)`)))
	b.wait(t, "sorted by count", `document.querySelector('[data-table="summary"] th[data-sorted="desc"]') !== null && !document.querySelector('[data-table="summary"]').classList.contains('loading')`)
	b.wait(t, "the sorted rows", `(() => { const v = [...document.querySelectorAll('[data-table="summary"] tbody tr td:first-child')].map(td => Number(td.textContent.replace(/,/g, ''))); return v.length > 1 && v.every((x, i) => i === 0 || v[i-1] >= x); })()`)
	if v := counts(); len(v) < 2 {
		t.Errorf("sorted summary has %d rows", len(v))
	}
}

// treeClicks opens the dominator tree, expands a node of the table, and
// clicks a rectangle of the treemap, which must focus the page on that
// object (or one of its children, drawn inside it).
func treeClicks(t *testing.T, b *browser, url string) {
	b.open(t, "the tree", site(url)+"#/tree?s=2&id=root")
	b.wait(t, "the top of the tree", `document.querySelectorAll('table.tree tr[data-depth="1"]').length > 0`)
	// Expand the first object that has children.
	id := eval[string](t, b, `(() => { const r = [...document.querySelectorAll('table.tree tr[data-depth="1"]')].find(r => !r.querySelector('button.toggle').disabled); return r.dataset.id; })()`)
	var node struct {
		Object struct {
			Children int `json:"children"`
		} `json:"object"`
	}
	getJSON(t, endpoint(url, "api/snapshots/2/object/"+id), &node)
	kids := node.Object.Children
	b.run(t, "expand "+id, chromedp.Click(chromedp.CSS(fmt.Sprintf(`table.tree tr[data-id="%s"] button.toggle`, id))))
	b.wait(t, "its children", fmt.Sprintf(`document.querySelectorAll('table.tree tr[data-depth="2"]:not(.more)').length === %d && document.querySelectorAll('table.tree tr.more[data-depth="2"]').length === %d`, min(kids, 50), map[bool]int{true: 1}[kids > 50]))
	if name := eval[string](t, b, `document.querySelector('table.tree tr[data-depth="2"] .object').textContent`); name == "" {
		t.Error("an expanded child has no name")
	}
	// Collapse it again.
	b.run(t, "collapse "+id, chromedp.Click(chromedp.CSS(fmt.Sprintf(`table.tree tr[data-id="%s"] button.toggle`, id))))
	b.wait(t, "no children", `document.querySelectorAll('table.tree tr[data-depth="2"]').length === 0`)

	// The treemap: click the biggest object drawn at the top level, on
	// its own part of the picture: the band of its label when it has
	// children drawn inside it (its middle may be a group of children,
	// whose click lists them in the summary), else its middle.
	b.wait(t, "the treemap", `document.getElementById('treemap').dataset.ready === 'true'`)
	type spot struct {
		ID string  `json:"id"`
		X  float64 `json:"x"`
		Y  float64 `json:"y"`
	}
	hit := eval[spot](t, b, `(() => {
		const c = echarts.getInstanceByDom(document.getElementById('treemap'));
		const data = c.getModel().getSeriesByIndex(0).getData();
		const box = document.getElementById('treemap').getBoundingClientRect();
		let best = null;
		for (let i = 0; i < data.count(); i++) {
			const node = data.tree.getNodeByDataIndex(i);
			const item = data.getRawDataItem(i);
			if (node.depth !== 1 || !item || !item.id) continue;
			const l = data.getItemLayout(i);
			if (!l) continue; // too small to be laid out
			const y = node.children.length > 0 ? l.y + Math.min(8, l.height / 2) : l.y + l.height / 2;
			if (!best || l.width * l.height > best.area) best = { id: item.id, area: l.width * l.height, x: box.left + l.x + l.width / 2, y: box.top + y };
		}
		return best;
	})()`)
	if hit.ID == "" {
		t.Fatal("no object drawn in the treemap")
	}
	b.run(t, "click the treemap", chromedp.MouseClickXY(hit.X, hit.Y))
	// The hash changes as the click is handled, the view only when the
	// hashchange event is: until then the old view (the roots) is still
	// drawn, with its own breadcrumb and top row.
	b.wait(t, "the focused tree", `/[?&]id=\d+/.test(location.hash) && document.getElementById('main').dataset.hash === location.hash && document.querySelector('.crumbs b') !== null && document.querySelectorAll('table.tree tr[data-depth="0"]').length === 1`)
	hash := eval[string](t, b, `location.hash`)
	focused := eval[string](t, b, `document.querySelector('table.tree tr[data-depth="0"]').dataset.id`)
	crumb := eval[string](t, b, `document.querySelector('.crumbs b').textContent`)
	if !strings.Contains(hash, "id="+focused) {
		t.Errorf("hash %s, but the table starts at %s", hash, focused)
	}
	var info struct {
		Object struct {
			ID   string `json:"id"`
			Name string `json:"name"`
			Type string `json:"type"`
		} `json:"object"`
	}
	getJSON(t, endpoint(url, "api/snapshots/2/object/"+focused), &info)
	if focused != hit.ID {
		t.Errorf("clicked object %s in the treemap, the page focused on %s", hit.ID, focused)
	}
	// The breadcrumb names the object as the page does: its own name (a
	// class, a module, a DOM element), else its type.
	want := info.Object.Name
	if want == "" {
		want = info.Object.Type
	}
	if crumb != want {
		t.Errorf("breadcrumb ends with %q, want %q", crumb, want)
	}
}

// whyPath asks why the planted leaked type is alive, opens the sample
// path and follows its last step to the object in the tree.
func whyPath(t *testing.T, b *browser, url string, c runtimeCase) {
	b.open(t, "why", site(url)+"#/why?s=2&type="+strings.ReplaceAll(c.leaked, "$", "%24"))
	b.wait(t, "the paths", `document.querySelector('[data-table="why"][data-total]') !== null`)
	text := b.text(t, `[data-table="why"] tbody`)
	if !strings.Contains(text, c.planted[0]) {
		t.Errorf("why %s does not show %q:\n%s", c.leaked, c.planted[0], text)
	}
	rowIdx := eval[int](t, b, fmt.Sprintf(`[...document.querySelectorAll('[data-table="why"] tbody tr')].findIndex(r => r.textContent.includes(%q))`, c.planted[0]))
	if rowIdx < 0 {
		t.Fatalf("no row of why %s shows %q: nothing to click", c.leaked, c.planted[0])
	}
	row := fmt.Sprintf(`[data-table="why"] tbody tr:nth-child(%d)`, rowIdx+1)
	b.run(t, "open the sample path", chromedp.Click(chromedp.CSS(row+` details.path summary`)))
	href := eval[string](t, b, fmt.Sprintf(`[...document.querySelectorAll(%q)].pop().getAttribute('href')`, row+` ol.steps a`))
	b.run(t, "follow the last step", chromedp.Click(chromedp.CSS(row+` ol.steps li:last-child a`)))
	id := regexp.MustCompile(`id=(\d+)`).FindStringSubmatch(href)
	if id == nil {
		t.Fatalf("the last step links to %q", href)
	}
	b.wait(t, "the object in the tree", fmt.Sprintf(`document.querySelector('table.tree tr[data-depth="0"]') !== null && document.querySelector('table.tree tr[data-depth="0"]').dataset.id === %q`, id[1]))
	if crumb := b.text(t, ".crumbs b"); crumb != c.leaked {
		t.Errorf("the path's last step is a %s, want %s", crumb, c.leaked)
	}
}

// leaksView shows exactly the two planted leaks (the same findings as
// the leaks command's acceptance test).
func leaksView(t *testing.T, b *browser, url string, c runtimeCase) {
	b.open(t, "leaks", site(url)+"#/leaks")
	b.wait(t, "the findings", `document.querySelector('[data-table="leaks"][data-total]') !== null`)
	paths := eval[[]string](t, b, `[...document.querySelectorAll('[data-table="leaks"] tbody tr details.path summary')].map(s => s.textContent)`)
	for _, p := range c.planted {
		found := false
		for _, q := range paths {
			found = found || strings.Contains(q, p)
		}
		if !found {
			t.Errorf("leaks does not show %q; it shows %q", p, paths)
		}
	}
	for _, q := range paths {
		ok := false
		for _, p := range c.planted {
			ok = ok || strings.Contains(q, p)
		}
		if !ok {
			t.Errorf("leaks shows %q, not a planted leak", q)
		}
	}
}

// cliSuspects returns the texts of the leak suspects heapscope top
// --json finds in snap.
func cliSuspects(t *testing.T, snap string) []string {
	t.Helper()
	out, err := exec.Command(heapscope(t), "top", "--json", "--top", "1", snap).Output()
	if err != nil {
		t.Fatal(err)
	}
	var top struct {
		Suspects []struct {
			Text string `json:"text"`
		} `json:"suspects"`
	}
	if err := json.Unmarshal(out, &top); err != nil {
		t.Fatal(err)
	}
	texts := []string{}
	for _, s := range top.Suspects {
		texts = append(texts, s.Text)
	}
	return texts
}

// checkSuspects compares the leak suspects the page shows with what the
// command line finds: the same texts in the same order, or, when there
// are none, the line that says so.
func checkSuspects(t *testing.T, b *browser, what string, want []string) {
	t.Helper()
	b.wait(t, what+" suspects", `document.querySelector('section.suspects') !== null`)
	got := eval[[]string](t, b, `[...document.querySelectorAll('section.suspects .suspect-text')].map(e => e.textContent.replace(/, [^,]*$/, ''))`)
	if len(want) == 0 {
		if text := b.text(t, "section.suspects"); !strings.Contains(text, "no accumulation of the program's data") {
			t.Errorf("%s: no suspect, and the page does not say so: %q", what, text)
		}
		return
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("%s shows the suspects\n%s\nwant, as top --json\n%s", what, strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// topView shows the leak suspects of the last snapshot, as top does.
func topView(t *testing.T, b *browser, url, snap string) {
	b.open(t, "top", site(url)+"#/top?s=2")
	checkSuspects(t, b, "the top view", cliSuspects(t, snap))
}

// duplicatesView lists the objects equal by value of the last snapshot
// as duplicates --json does: as many types, the first the same.
func duplicatesView(t *testing.T, b *browser, url, snap string) {
	out, err := exec.Command(heapscope(t), "duplicates", "--json", "--top", "50", snap).Output()
	if err != nil {
		t.Fatal(err)
	}
	var dup struct {
		Values []struct {
			Type string `json:"type"`
		} `json:"values"`
	}
	if err := json.Unmarshal(out, &dup); err != nil {
		t.Fatal(err)
	}
	b.open(t, "duplicates", site(url)+"#/duplicates?s=2")
	b.wait(t, "the values table", `document.querySelector('[data-table="values"][data-total]') !== null`)
	if n := eval[int](t, b, `Number(document.querySelector('[data-table="values"]').dataset.total)`); n != len(dup.Values) {
		t.Errorf("the duplicates view lists %d types equal by value, duplicates --json %d", n, len(dup.Values))
	}
	if len(dup.Values) > 0 {
		first := eval[string](t, b, `document.querySelector('[data-table="values"] tbody tr td:nth-child(4)').textContent`)
		if first != dup.Values[0].Type {
			t.Errorf("the duplicates view shows %q first, duplicates --json %q", first, dup.Values[0].Type)
		}
	}
}

// trendView plots the steadily growing types; the planted type is in the
// table.
func trendView(t *testing.T, b *browser, url string, c runtimeCase) {
	b.open(t, "trend", site(url)+"#/trend")
	b.wait(t, "the chart", `Number(document.getElementById('trend-chart').dataset.series) > 0`)
	series := eval[int](t, b, `echarts.getInstanceByDom(document.getElementById('trend-chart')).getOption().series.length`)
	checked := eval[int](t, b, `document.querySelectorAll('[data-table="trend"] input[type=checkbox]:checked').length`)
	if series == 0 || series != checked {
		t.Errorf("the chart draws %d series, %d types are checked", series, checked)
	}
	b.run(t, "filter trend", chromedp.SendKeys(chromedp.CSS(`[data-table="trend"] input.filter`), c.leaked))
	b.wait(t, "the planted type", fmt.Sprintf(`[...document.querySelectorAll('[data-table="trend"] tbody tr')].some(r => r.textContent.includes(%q) && r.textContent.includes('steady'))`, c.leaked))
}

// TestHTMLReports opens the self-contained reports of a real Python
// program from disk: they draw their tables and charts with nothing but
// the file.
func TestHTMLReports(t *testing.T) {
	chromium(t)
	snaps := capture(t, cases[0])
	dir := t.TempDir()
	b := newBrowser(t)
	for _, kind := range []string{"leaks", "check", "top", "trend"} {
		args := append([]string{kind, "--format", "html"}, snaps...)
		if kind == "top" {
			args = []string{"top", "--format", "html", snaps[2]}
		}
		out, _ := exec.Command(heapscope(t), args...).Output() // check exits 1: it finds the planted leaks
		file := filepath.Join(dir, kind+".html")
		if err := os.WriteFile(file, out, 0o600); err != nil {
			t.Fatal(err)
		}
		b.run(t, "open "+kind+".html", chromedp.Navigate("file://"+file))
		b.wait(t, kind+" drawn", `document.body.dataset.ready === 'true'`)
		if rows := eval[int](t, b, `document.querySelectorAll('table.grid tbody tr').length`); rows == 0 {
			t.Errorf("%s.html shows no rows", kind)
		}
		switch kind {
		case "top":
			checkSuspects(t, b, "top.html", cliSuspects(t, snaps[2]))
		case "leaks", "check":
			text := b.text(t, "main")
			for _, p := range cases[0].planted {
				if !strings.Contains(text, p) {
					t.Errorf("%s.html does not show %q", kind, p)
				}
			}
			if kind == "check" && !strings.Contains(text, "FAIL: 3 leak(s)") && !strings.Contains(text, "FAIL:") {
				t.Errorf("check.html does not say FAIL")
			}
		}
		if kind == "top" {
			// The JSON links each object to its dominator and to the
			// object before it on its path; the page spells both out.
			rows := `[...document.querySelectorAll('[data-table="top-objects"] tbody tr')]`
			if !eval[bool](t, b, rows+`.some(r => r.textContent.includes(' -> '))`) || !eval[bool](t, b, rows+`.some(r => r.cells[3].textContent !== '-')`) {
				t.Errorf("top.html shows no path or no dominator chain:\n%s", b.text(t, "main"))
			}
		}
		if kind != "check" {
			b.wait(t, kind+" chart", `document.querySelector('.chart canvas') !== null`)
		}
	}
	b.clean(t, "file://")
}

// TestScreenshots writes the README's pictures with -screenshots DIR,
// from the real Python program's snapshots.
func TestScreenshots(t *testing.T) {
	if *screenshots == "" {
		t.Skip("go test -run Screenshots -screenshots ../docs writes the README's pictures")
	}
	chromium(t)
	// The pictures show short names: the server runs where the
	// snapshots are.
	snaps := capture(t, cases[0])
	var names []string
	for _, s := range snaps {
		names = append(names, filepath.Base(s))
	}
	url := serveIn(t, filepath.Dir(snaps[0]), names)
	b := newBrowser(t)
	b.run(t, "open the page with its token", chromedp.Navigate(url))
	// The object of the pictures of one object: the first of the leaked
	// contexts.
	var objs struct {
		Rows []struct {
			ID string `json:"id"`
		} `json:"rows"`
	}
	getJSON(t, site(url)+"api/snapshots/2/objects?type=__main__.RequestContext&sort=id&limit=1&"+url[strings.Index(url, "?")+1:], &objs)
	if len(objs.Rows) == 0 {
		t.Fatal("no RequestContext to picture")
	}
	shots := []struct{ name, hash, ready string }{
		{"overview", "#/overview", `document.querySelectorAll('.card').length === 3`},
		{"tree", "#/tree?s=2&id=root", `document.getElementById('treemap').dataset.ready === 'true' && document.querySelectorAll('table.tree tr[data-depth="1"]').length > 0`},
		{"why", "#/why?s=2&type=__main__.RequestContext", `document.querySelector('[data-table="why"][data-total]') !== null`},
		{"object", "#/tree?s=2&id=" + objs.Rows[0].ID, `document.querySelector('[data-graph="retainers"][data-ready]') !== null && document.querySelector('[data-table="retainers"] tbody tr[data-depth="0"] button.toggle') !== null`},
		{"summary", "#/summary?s=2", `document.querySelector('[data-table="summary"][data-total]') !== null`},
		{"leaks", "#/leaks", `document.querySelector('[data-table="leaks"][data-total]') !== null`},
		{"trend", "#/trend", `Number(document.getElementById('trend-chart').dataset.series) > 0`},
	}
	for _, s := range shots {
		b.open(t, s.name, site(url)+s.hash)
		b.wait(t, s.name, s.ready)
		switch s.name {
		case "why":
			b.run(t, "open a path", chromedp.Click(chromedp.CSS(`[data-table="why"] details.path summary`)))
		case "object":
			// The retainers first: what holds the object, opened a level.
			b.run(t, "open a retainer", chromedp.Click(chromedp.CSS(`[data-table="retainers"] tbody tr[data-depth="0"] button.toggle`)))
			b.wait(t, "its holder", `document.querySelector('[data-table="retainers"] tbody tr[data-depth="1"]') !== null`)
			b.run(t, "scroll to the panes", chromedp.ScrollIntoView(chromedp.CSS(`.panes`)))
		case "summary":
			b.run(t, "open the leaked type", chromedp.Click(chromedp.CSS(`[data-table="summary"] button.expand[data-for="__main__.RequestContext"]`)))
			b.wait(t, "its objects", `document.querySelector('tr.sub [data-table="objects"][data-total]') !== null`)
		}
		b.run(t, "settle", chromedp.Sleep(300*time.Millisecond))
		png, err := chromedp.Run(b.ctx, chromedp.CaptureScreenshot())
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(*screenshots, "web-"+s.name+".png"), png, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// objectPanes follows a leaked object from why to its retainers and
// references, as a DevTools user does from a row to its Retainers pane:
// why draws its paths; the id the page prints, typed into the tree's
// "go to object" box, opens that object; its retainers pane shows the
// planted holder, and opening the row shows what holds the holder; the
// picture of its retainers is drawn; its references are listed; an id
// that names nothing says so.
func objectPanes(t *testing.T, b *browser, url string, c runtimeCase) {
	b.open(t, "why", site(url)+"#/why?s=2&type="+strings.ReplaceAll(c.leaked, "$", "%24"))
	b.wait(t, "the paths and their picture", `document.querySelector('[data-graph="why"][data-ready]') !== null`)
	if n := eval[int](t, b, `document.querySelectorAll('[data-graph="why"] svg g.node').length`); n < 3 {
		t.Errorf("the picture of why's paths has %d objects", n)
	}
	if n := eval[int](t, b, `document.querySelectorAll('[data-graph="why"] svg g.node.selected').length`); n < 1 {
		t.Error("the picture of why's paths marks no selected object")
	}
	// The printed id of the sample path's last object.
	printed := eval[string](t, b, `[...document.querySelectorAll('[data-table="why"] tbody tr:first-child ol.steps li')].pop().textContent`)
	id := regexp.MustCompile(`(@0x[0-9a-f]+|@\d+)`).FindString(printed)
	if id == "" {
		t.Fatalf("the last step %q prints no id", printed)
	}
	id = strings.TrimPrefix(id, "@0x")
	if !strings.HasPrefix(id, "@") {
		id = "0x" + id
	}
	b.open(t, "the tree", site(url)+"#/tree?s=2&id=root")
	b.wait(t, "the go-to box", `document.querySelector('input[name="object"]') !== null`)
	b.run(t, "type the id", chromedp.SendKeys(chromedp.CSS(`input[name="object"]`), id+kb.Enter))
	b.wait(t, "the object "+id, `/[?&]id=\d+/.test(location.hash) && document.getElementById('main').dataset.hash === location.hash && document.querySelector('[data-table="retainers"] tbody tr') !== null`)
	if crumb := b.text(t, ".crumbs b"); crumb != c.leaked {
		t.Errorf("go to %s opened a %s, want a %s", id, crumb, c.leaked)
	}
	b.wait(t, "its first retainer", fmt.Sprintf(`document.querySelector('[data-table="retainers"] tbody tr[data-depth="0"]').textContent.includes(%q)`, c.holders[0]))
	b.run(t, "open the first retainer", chromedp.Click(chromedp.CSS(`[data-table="retainers"] tbody tr[data-depth="0"] button.toggle`)))
	b.wait(t, "what holds the holder", fmt.Sprintf(`[...document.querySelectorAll('[data-table="retainers"] tbody tr[data-depth="1"]')].some(r => r.textContent.includes(%q))`, c.holders[1]))
	b.wait(t, "the picture of its retainers", `document.querySelector('[data-graph="retainers"][data-ready] svg g.node.selected') !== null && document.querySelectorAll('[data-graph="retainers"] svg g.node').length >= 3`)
	b.wait(t, "its references", `document.querySelectorAll('[data-table="refs"] tbody tr[data-depth="0"]').length > 0`)
	// An id that names nothing.
	b.run(t, "clear the box", chromedp.SetValue(chromedp.CSS(`input[name="object"]`), "@1"))
	b.run(t, "type a wrong id", chromedp.SendKeys(chromedp.CSS(`input[name="object"]`), "23456789"+kb.Enter))
	b.wait(t, "it says so", `document.querySelector('form.controls .error').textContent.includes('selects no object')`)
	// The same id in why's box selects the one object.
	b.open(t, "why by id", site(url)+"#/why?s=2")
	b.run(t, "type the id in why", chromedp.SendKeys(chromedp.CSS(`input[name="selector"]`), id+kb.Enter))
	b.wait(t, "why of the object", fmt.Sprintf(`document.querySelector('p.verdict').textContent.startsWith(%q)`, id+" selects 1 object held by"))
}

// summaryObjects opens the leaked type's row of the summary, which
// lists its objects, biggest first, as DevTools' Summary does; the row
// has its retained size.
func summaryObjects(t *testing.T, b *browser, url string, c runtimeCase) {
	b.open(t, "the summary", site(url)+"#/summary?q="+strings.ReplaceAll(c.leaked, "$", "%24"))
	row := fmt.Sprintf(`[...document.querySelectorAll('[data-table="summary"] tbody tr')].find(r => r.querySelector('td:last-child').textContent.trim() === %q)`, "▸"+c.leaked)
	b.wait(t, "the leaked type's row", row+` !== undefined`)
	if ret := eval[string](t, b, row+`.children[2].textContent`); !strings.Contains(ret, "B") {
		t.Errorf("the summary row of %s has no retained size: %q", c.leaked, ret)
	}
	b.run(t, "open the row", chromedp.Click(chromedp.CSS(`[data-table="summary"] button.expand`)))
	b.wait(t, "its objects", `document.querySelector('tr.sub [data-table="objects"][data-total]') !== null`)
	total := eval[int](t, b, `Number(document.querySelector('tr.sub [data-table="objects"]').dataset.total)`)
	rows := eval[int](t, b, `document.querySelectorAll('tr.sub [data-table="objects"] tbody tr').length`)
	if total < 100 || rows != 20 {
		t.Errorf("the row of %s lists %d objects on its first page, of %d", c.leaked, rows, total)
	}
}

// diffObjects lists the new objects of the leaked type's row of a V8
// diff: every one planted between the first and the last snapshot.
func diffObjects(t *testing.T, b *browser, url string, c runtimeCase) {
	b.open(t, "the diff", site(url)+"#/diff?q="+c.leaked)
	row := fmt.Sprintf(`[...document.querySelectorAll('[data-table="diff"] tbody tr')].find(r => r.querySelector('td:last-child').textContent.trim() === %q)`, c.leaked)
	b.wait(t, "the leaked type's row", row+` !== undefined`)
	b.run(t, "list the new objects", chromedp.Click(chromedp.CSS(`[data-table="diff"] tbody button.expand`)))
	b.wait(t, "the new objects", `document.querySelector('tr.sub [data-table="diff-objects"][data-total]') !== null`)
	if n := eval[int](t, b, `Number(document.querySelector('tr.sub [data-table="diff-objects"]').dataset.total)`); n != 600 {
		t.Errorf("the diff lists %d new %s, want the 600 made between the first snapshot and the last", n, c.leaked)
	}
}

// heapSnapshot takes a heap snapshot of the tab's page into file, as
// DevTools does: the tab's one session keeps V8's object ids from one
// snapshot to the next (a session that ends clears them).
func (b *browser) heapSnapshot(t *testing.T, file string) {
	t.Helper()
	b.mu.Lock()
	b.heap.Reset()
	b.mu.Unlock()
	if _, err := chromedp.Call(b.ctx, heapprofiler.TakeHeapSnapshot, heapprofiler.TakeHeapSnapshotParams{}); err != nil {
		t.Fatalf("take a heap snapshot: %v", err)
	}
	b.mu.Lock()
	data := b.heap.String()
	b.mu.Unlock()
	if err := os.WriteFile(file, []byte(data), 0o600); err != nil {
		t.Fatal(err)
	}
}

// leakPanelsPage leaks ten detached panels every 150 ms into a global
// list, and a record per round that holds its panels into another, and
// counts its rounds in its title.
const leakPanelsPage = `<!doctype html><html><body><div id=app></div><script>
const app = document.getElementById('app');
window.kept = [];
window.records = [];
let round = 0;
setInterval(() => {
  const panels = [];
  for (let i = 0; i < 10; i++) {
    const p = document.createElement('div');
    p.className = 'panel';
    p.id = 'p' + round + '-' + i;
    app.appendChild(p);
    app.removeChild(p);
    window.kept.push(p);
    panels.push(p);
  }
  window.records.push({ round, panels });
  round++;
  document.title = 'round ' + round;
}, 150);
</script></body></html>`

// TestDetachedDOM takes three snapshots of a real page that leaks
// detached DOM (through one session, as DevTools does): leaks names the
// panels by their tag and attributes, says of the records that hold
// them that they hold detached DOM, and the page marks both findings.
func TestDetachedDOM(t *testing.T) {
	chromium(t)
	dir := t.TempDir()
	page := filepath.Join(dir, "page.html")
	if err := os.WriteFile(page, []byte(leakPanelsPage), 0o600); err != nil {
		t.Fatal(err)
	}
	b := newBrowser(t)
	if _, err := chromedp.Call(b.ctx, heapprofiler.Enable, cdp.Empty{}); err != nil {
		t.Fatal(err)
	}
	b.run(t, "open the page", chromedp.Navigate("file://"+page))
	var snaps []string
	for _, round := range []int{2, 6, 10} {
		b.wait(t, fmt.Sprintf("round %d", round), fmt.Sprintf(`Number(document.title.split(' ')[1]) >= %d`, round))
		file := filepath.Join(dir, fmt.Sprintf("round%d.heapsnapshot", round))
		b.heapSnapshot(t, file)
		snaps = append(snaps, file)
	}
	out, err := exec.Command(heapscope(t), append([]string{"leaks", "--json", "--top", "0"}, snaps...)...).Output()
	if err != nil {
		t.Fatalf("leaks: %v", err)
	}
	var rep struct {
		Rows []struct {
			Text     string `json:"text"`
			Type     string `json:"type"`
			Detached bool   `json:"detached"`
		} `json:"rows"`
	}
	if err := json.Unmarshal(out, &rep); err != nil {
		t.Fatal(err)
	}
	var panels, records bool
	for _, r := range rep.Rows {
		switch {
		case r.Type == "Detached <div>":
			panels = r.Detached
		case strings.Contains(r.Text, "holds detached DOM"):
			records = r.Detached && r.Type == "Object"
		case r.Detached:
			t.Errorf("%s is marked detached", r.Text)
		}
	}
	if !panels || !records {
		t.Errorf("leaks: the panels found and marked %v, the records %v:\n%s", panels, records, out)
	}
	why, err := exec.Command(heapscope(t), "why", "--width", "0", snaps[2], "Detached <div>").Output()
	if err != nil || !regexp.MustCompile(`\[\d+\] Detached <div class="panel" id="p\d+-\d+">`).Match(why) {
		t.Errorf("why Detached <div> does not name a panel by its attributes and id (%v):\n%s", err, why)
	}
	// The page marks the findings.
	url := serve(t, snaps)
	b2 := newBrowser(t)
	b2.open(t, "leaks", url+"#/leaks")
	b2.wait(t, "the findings", `document.querySelector('[data-table="leaks"][data-total]') !== null`)
	tags := eval[int](t, b2, `[...document.querySelectorAll('[data-table="leaks"] tbody tr')].filter(r => [...r.querySelectorAll('.tag')].some(x => x.textContent === 'detached DOM')).length`)
	if tags < 2 {
		t.Errorf("the leaks view marks %d findings as detached DOM, want the panels and the records", tags)
	}
	b2.clean(t, site(url))
}

// shownTheProgram: the views show the program, not the runtime: they
// open on the latest snapshot; the treemap passes through chains of
// single children and groups many children by type; trend puts what
// grew in every snapshot first and the program's types before the
// runtime's; paths wrap between steps only; numbers have thousands
// separators; long C++ template names are shortened, whole on hover.
func shownTheProgram(t *testing.T, b *browser, url string, c runtimeCase) {
	b.open(t, "the summary of no snapshot in particular", site(url)+"#/summary")
	if v := eval[string](t, b, `document.querySelector('select[name="s"]').value`); v != "2" {
		t.Errorf("the summary opens on snapshot %s, want the latest (2)", v)
	}
	b.open(t, "the tree", site(url)+"#/tree?id=root")
	b.wait(t, "the treemap", `document.getElementById('treemap').dataset.ready === 'true'`)
	type tm struct {
		Top    int      `json:"top"`
		Groups []string `json:"groups"`
	}
	m := eval[tm](t, b, `(() => {
		const data = echarts.getInstanceByDom(document.getElementById('treemap')).getModel().getSeriesByIndex(0).getData();
		let top = 0; const groups = [];
		for (let i = 0; i < data.count(); i++) {
			const node = data.tree.getNodeByDataIndex(i);
			if (node.depth === 1) top++;
			if (/^[0-9][0-9,]* × /.test(node.name)) groups.push(node.name);
		}
		return { top, groups };
	})()`)
	if m.Top < 2 || len(m.Groups) == 0 {
		t.Errorf("the treemap draws %d rectangles at its top and groups %q: want several, and children grouped by type", m.Top, m.Groups)
	}
	// A click on the biggest group lists its objects: the summary,
	// filtered by their type. A rectangle's layout is within its
	// parent's.
	type spot struct {
		Type string  `json:"type"`
		X    float64 `json:"x"`
		Y    float64 `json:"y"`
	}
	g := eval[spot](t, b, `(() => {
		const data = echarts.getInstanceByDom(document.getElementById('treemap')).getModel().getSeriesByIndex(0).getData();
		const box = document.getElementById('treemap').getBoundingClientRect();
		let best = null;
		for (let i = 0; i < data.count(); i++) {
			const item = data.getRawDataItem(i);
			const l = data.getItemLayout(i);
			if (!item || !item.type || !l) continue;
			let x = l.x, y = l.y;
			for (let p = data.tree.getNodeByDataIndex(i).parentNode; p && p.depth > 0; p = p.parentNode) {
				const pl = p.getLayout();
				x += pl.x; y += pl.y;
			}
			if (!best || l.width * l.height > best.area) best = { type: item.type, area: l.width * l.height, x: box.left + x + l.width / 2, y: box.top + y + l.height / 2 };
		}
		return best || { type: '' };
	})()`)
	if g.Type == "" {
		t.Fatal("the treemap draws no group to click")
	}
	b.run(t, "click a group", chromedp.MouseClickXY(g.X, g.Y))
	b.wait(t, "the group's objects", fmt.Sprintf(`location.hash.startsWith('#/summary') && document.getElementById('main').dataset.hash === location.hash && document.querySelector('[data-table="summary"] input.filter').value === %q && document.querySelector('[data-table="summary"][data-total]') !== null`, g.Type))
	if !eval[bool](t, b, fmt.Sprintf(`[...document.querySelectorAll('[data-table="summary"] button.expand')].some(x => x.dataset.for === %q)`, g.Type)) {
		t.Errorf("the summary a group of %s opens has no row of that type", g.Type)
	}
	b.open(t, "trend", site(url)+"#/trend")
	b.wait(t, "the trend", `document.querySelector('[data-table="trend-collections"]') !== null && document.querySelector('[data-table="trend"][data-total]') !== null`)
	if !eval[bool](t, b, `(() => { const all = [...document.querySelectorAll('[data-table]')].map(x => x.dataset.table); return all.indexOf('trend-collections') < all.indexOf('trend') && all.indexOf('trend-paths') < all.indexOf('trend'); })()`) {
		t.Error("trend does not show what grew in every snapshot before its table of types")
	}
	if first := eval[string](t, b, `document.querySelector('[data-table="trend"] tbody tr').textContent`); strings.Contains(first, "runtime") {
		t.Errorf("trend's first type is the runtime's: %s", first)
	}
	b.open(t, "why", site(url)+"#/why?type="+strings.ReplaceAll(c.leaked, "$", "%24"))
	b.wait(t, "the paths", `document.querySelector('[data-table="why"] .path-text .step') !== null`)
	if !eval[bool](t, b, `[...document.querySelectorAll('[data-table="why"] .path-text .step')].every((x, i, all) => getComputedStyle(x).whiteSpace === 'nowrap' && (x.previousElementSibling === null || x.textContent.startsWith('-> ')))`) {
		t.Error("a path's steps may break inside a step or its arrow")
	}
	for js, want := range map[string]string{
		`HS.signedFloat(19436.5)`: "+19,436.5",
		`HS.count(27947)`:         "27,947",
		`HS.shortName('blink::HeapVectorBacking<cppgc::internal::BasicMember<blink::Node, cppgc::internal::StrongMemberTag, cppgc::internal::DijkstraWriteBarrierPolicy>>')`: "blink::HeapVectorBacking<…>",
		`HS.shortName('Detached <div class="panel wide" id="p1" data-kind="card" role="region">')`:                                                                           `Detached <div class="panel wide" id="p1" data-kind="card" role="region">`,
		`HS.nameEl('blink::HeapHashTableBacking<blink::HashTable<int, blink::KeyValuePair<int, cppgc::internal::BasicMember<blink::DOMTimer>>>>').title`:                     "blink::HeapHashTableBacking<blink::HashTable<int, blink::KeyValuePair<int, cppgc::internal::BasicMember<blink::DOMTimer>>>>",
	} {
		if got := eval[string](t, b, js); got != want {
			t.Errorf("%s = %q, want %q", js, got, want)
		}
	}
}
