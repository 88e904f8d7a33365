package web

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/heapscope/heapscope/analyze"
	"github.com/heapscope/heapscope/heap"
	"github.com/heapscope/heapscope/internal/heaptest"
)

// snapshot reads testdata/NAME.heap as a snapshot whose analysis is the
// command line's: objects held outside the heap are extra roots of the
// dominator tree and of the paths.
func snapshot(t *testing.T, name string) *Snapshot {
	t.Helper()
	src, err := os.ReadFile(filepath.Join("testdata", name+".heap"))
	if err != nil {
		t.Fatal(err)
	}
	g := heaptest.MustParse(t, string(src))
	return &Snapshot{Path: name + ".heap", Graph: g, Analyze: func() (*Analysis, error) {
		held := analyze.NativeHeld(g)
		extra := analyze.NativeRoots(held)
		return &Analysis{
			Tree:  analyze.Dominators(g, analyze.DomOptions{ExtraRoots: extra}),
			Paths: analyze.ShortestPaths(g, analyze.PathOptions{ExtraRoots: extra}),
			Held:  held,
		}, nil
	}}
}

func newServer(t *testing.T, names ...string) *httptest.Server {
	t.Helper()
	var snaps []*Snapshot
	for _, n := range names {
		snaps = append(snaps, snapshot(t, n))
	}
	srv := httptest.NewServer(Handler(snaps, Options{}))
	t.Cleanup(srv.Close)
	return srv
}

// get fetches path and returns the status and body.
func get(t *testing.T, srv *httptest.Server, path string) (int, http.Header, []byte) {
	t.Helper()
	res, err := srv.Client().Get(srv.URL + path)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	body, err := io.ReadAll(res.Body)
	if err != nil {
		t.Fatal(err)
	}
	return res.StatusCode, res.Header, body
}

// TestEndpoints compares what each JSON endpoint answers, status and
// body, with testdata/NAME.golden (go test -update rewrites them).
func TestEndpoints(t *testing.T) {
	srv := newServer(t, "first", "second", "third")
	tests := []struct{ name, path string }{
		{"snapshots", "/api/snapshots"},
		{"summary", "/api/snapshots/2/summary"},
		{"summary-page", "/api/snapshots/2/summary?sort=count&desc=1&offset=1&limit=2"},
		{"summary-filter", "/api/snapshots/2/summary?q=SESS"},
		{"summary-bad-sort", "/api/snapshots/2/summary?sort=nope"},
		{"summary-bad-limit", "/api/snapshots/2/summary?limit=100000"},
		{"summary-no-snapshot", "/api/snapshots/7/summary"},
		{"summary-retained", "/api/snapshots/2/summary?retained=1&sort=retained_bytes&desc=1&limit=4"},
		{"diff-objects-python", "/api/diff/objects?a=0&b=2&type=svc.Session&which=new"},
		{"diff", "/api/diff?a=0&b=2"},
		{"diff-sorted", "/api/diff?a=0&b=2&sort=type"},
		{"object-root", "/api/snapshots/2/object/root"},
		{"object", "/api/snapshots/2/object/12"},
		{"object-unreachable", "/api/snapshots/2/object/19"},
		{"object-bad", "/api/snapshots/2/object/999"},
		{"children-root", "/api/snapshots/2/children/root"},
		{"children-page", "/api/snapshots/2/children/2?offset=1&limit=2"},
		{"treemap-root", "/api/snapshots/2/treemap/root"},
		{"treemap-unreachable", "/api/snapshots/2/treemap/19"},
		{"why-type", "/api/snapshots/2/why?type=svc.Session"},
		{"why-id", "/api/snapshots/2/why?id=9"},
		{"why-addr", "/api/snapshots/2/why?addr=0x4400"},
		{"why-value", "/api/snapshots/2/why?value=region"},
		{"why-nothing", "/api/snapshots/2/why"},
		{"why-sel-id", "/api/snapshots/2/why?sel=@17408"},
		{"why-sel-nearest", "/api/snapshots/2/why?sel=svc.Sesion"},
		{"retainers", "/api/snapshots/2/retainers?sel=0x3400"},
		{"retainers-path", "/api/snapshots/2/retainers?sel=0x3400&path=0"},
		{"retainers-depth", "/api/snapshots/2/retainers?type=svc.Session&depth=3"},
		{"retainers-bad-path", "/api/snapshots/2/retainers?sel=0x3400&path=7.1"},
		{"refs", "/api/snapshots/2/refs?sel=0x1200&limit=2&offset=1"},
		{"objects", "/api/snapshots/2/objects?type=svc.Session&limit=3"},
		{"objects-sorted", "/api/snapshots/2/objects?type=str&sort=distance"},
		{"top", "/api/snapshots/2/top"},
		{"types", "/api/snapshots/2/types?limit=4"},
		{"duplicates", "/api/snapshots/2/duplicates"},
		{"leaks", "/api/leaks"},
		{"leaks-same", "/api/leaks?baseline=1&target=1"},
		{"trend", "/api/trend"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			code, h, body := get(t, srv, tc.path)
			if ct := h.Get("Content-Type"); ct != "application/json" {
				t.Errorf("Content-Type = %q, want application/json", ct)
			}
			if !json.Valid(body) {
				t.Errorf("body is not JSON:\n%s", body)
			}
			got := fmt.Sprintf("GET %s\n%d %s\n%s", tc.path, code, http.StatusText(code), body)
			heaptest.Golden(t, filepath.Join("testdata", tc.name+".golden"), []byte(got))
		})
	}
}

// TestTreeWalk walks the whole dominator tree of a snapshot through the
// children endpoint, a page of one at a time, and checks it against the
// analysis: every reachable object once, under its immediate dominator,
// with its retained size.
func TestTreeWalk(t *testing.T) {
	snap := snapshot(t, "third")
	srv := httptest.NewServer(Handler([]*Snapshot{snap}, Options{}))
	defer srv.Close()
	an, err := snap.analysis()
	if err != nil {
		t.Fatal(err)
	}
	seen := 0
	var walk func(id string, parent heap.ObjectID)
	walk = func(id string, parent heap.ObjectID) {
		for off := 0; ; off++ {
			code, _, body := get(t, srv, fmt.Sprintf("/api/snapshots/0/children/%s?offset=%d&limit=1", id, off))
			if code != http.StatusOK {
				t.Fatalf("children of %s: %d %s", id, code, body)
			}
			var page paged[objectJSON]
			if err := json.Unmarshal(body, &page); err != nil {
				t.Fatal(err)
			}
			if len(page.Rows) == 0 {
				if off != page.Total {
					t.Errorf("children of %s: %d pages for %d children", id, off, page.Total)
				}
				return
			}
			var kid heap.ObjectID
			fmt.Sscan(page.Rows[0].ID, &kid)
			if d := an.Tree.Idom(kid); d != parent {
				t.Errorf("object %d is under %d, but its immediate dominator is %d", kid, parent, d)
			}
			if r := an.Tree.Retained(kid); page.Rows[0].Retained != r {
				t.Errorf("object %d retains %d, want %d", kid, page.Rows[0].Retained, r)
			}
			seen++
			walk(page.Rows[0].ID, kid)
		}
	}
	walk("root", analyze.SuperRoot)
	if want := an.Tree.NumReachable(); seen != want {
		t.Errorf("walked %d objects, the tree has %d", seen, want)
	}
}

// TestHostCheck refuses requests that name a host other than loopback:
// a page elsewhere that rebinds its own name to 127.0.0.1 gets nothing.
func TestHostCheck(t *testing.T) {
	srv := newServer(t, "first")
	for _, tc := range []struct {
		host string
		want int
	}{
		{"127.0.0.1:8080", http.StatusOK},
		{"localhost:8080", http.StatusOK},
		{"LOCALHOST", http.StatusOK},
		{"[::1]:8080", http.StatusOK},
		{"127.3.4.5", http.StatusOK},
		{"evil.example:8080", http.StatusForbidden},
		{"127.0.0.1.evil.example", http.StatusForbidden},
		{"localhost.evil.example", http.StatusForbidden},
		{"10.0.0.1:8080", http.StatusForbidden},
	} {
		req, _ := http.NewRequest("GET", srv.URL+"/api/snapshots", nil)
		req.Host = tc.host
		res, err := srv.Client().Do(req)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(res.Body)
		res.Body.Close()
		if res.StatusCode != tc.want {
			t.Errorf("Host %q: %d, want %d", tc.host, res.StatusCode, tc.want)
		}
		if tc.want == http.StatusForbidden && bytes.Contains(body, []byte("first.heap")) {
			t.Errorf("Host %q: the refusal shows snapshot data", tc.host)
		}
	}
	any := httptest.NewServer(Handler([]*Snapshot{snapshot(t, "first")}, Options{AnyHost: true}))
	defer any.Close()
	req, _ := http.NewRequest("GET", any.URL+"/api/snapshots", nil)
	req.Host = "heap.example:8080"
	res, err := any.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusOK {
		t.Errorf("AnyHost: %d, want 200", res.StatusCode)
	}
}

// TestToken: with a token, a request without it gets nothing (the page,
// its files and the API alike); the token as a query parameter admits
// the request and comes back as a cookie scoped to the port, which then
// admits the page's own requests; a wrong token or another port's cookie
// does not.
func TestToken(t *testing.T) {
	token, err := NewToken()
	if err != nil {
		t.Fatal(err)
	}
	if other, _ := NewToken(); len(token) != 32 || other == token {
		t.Fatalf("NewToken: %q then %q, want two different 128-bit hex strings", token, other)
	}
	srv := httptest.NewServer(Handler([]*Snapshot{snapshot(t, "first")}, Options{Token: token}))
	defer srv.Close()
	header := http.Header{}
	get := func(path string, cookies ...*http.Cookie) (*http.Response, string) {
		t.Helper()
		req, _ := http.NewRequest("GET", srv.URL+path, nil)
		for _, c := range cookies {
			req.AddCookie(c)
		}
		for k, v := range header {
			req.Header[k] = v
		}
		res, err := srv.Client().Do(req)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(res.Body)
		res.Body.Close()
		return res, string(body)
	}
	for _, path := range []string{"/", "/api/snapshots", "/static/app.js", "/?token=" + token[:31], "/api/snapshots?token=" + strings.ToUpper(token)} {
		res, body := get(path)
		if res.StatusCode != http.StatusForbidden || strings.Contains(body, "first.heap") || len(res.Cookies()) > 0 {
			t.Errorf("GET %s without the token: %d, cookies %v, body %.80q", path, res.StatusCode, res.Cookies(), body)
		}
	}
	res, body := get("/?token=" + token)
	if res.StatusCode != http.StatusOK || !strings.Contains(body, "<html") {
		t.Fatalf("GET /?token=: %d %.80q", res.StatusCode, body)
	}
	_, port, _ := net.SplitHostPort(srv.Listener.Addr().String())
	var cookie *http.Cookie
	for _, c := range res.Cookies() {
		if c.Name == "heapscope-"+port {
			cookie = c
		}
	}
	if cookie == nil || cookie.Value != token || !cookie.HttpOnly || cookie.SameSite != http.SameSiteStrictMode || cookie.Path != "/" {
		t.Fatalf("GET /?token= set %v, want an HttpOnly, SameSite=Strict cookie heapscope-%s with the token", res.Cookies(), port)
	}
	// The page hands the token back in a header: the cookie alone, which
	// a page of another server on this machine makes the browser send,
	// is not enough for the API.
	if !strings.Contains(body, `<meta name="heapscope-token" content="`+token+`">`) {
		t.Errorf("the page does not carry its token for its requests:\n%.400s", body)
	}
	if res, body := get("/api/snapshots", cookie); res.StatusCode != http.StatusForbidden || strings.Contains(body, "first.heap") {
		t.Errorf("GET /api/snapshots with the cookie alone: %d %.80q, want 403", res.StatusCode, body)
	}
	if res, body := get("/static/app.js", cookie); res.StatusCode != http.StatusOK {
		t.Errorf("GET /static/app.js with the cookie: %d %.80q", res.StatusCode, body)
	}
	header.Set(TokenHeader, token)
	if res, body := get("/api/snapshots", cookie); res.StatusCode != http.StatusOK || !strings.Contains(body, "first.heap") {
		t.Errorf("GET /api/snapshots with the cookie and the header: %d %.80q", res.StatusCode, body)
	}
	// What the browser says of a request from elsewhere.
	for k, v := range map[string]string{"Sec-Fetch-Site": "same-site", "Origin": "http://127.0.0.1:1"} {
		header.Set(k, v)
		if res, body := get("/api/snapshots", cookie); res.StatusCode != http.StatusForbidden || !strings.Contains(body, "own page only") {
			t.Errorf("GET /api/snapshots with %s: %s: %d %.80q, want 403", k, v, res.StatusCode, body)
		}
		header.Del(k)
	}
	header.Set("Sec-Fetch-Site", "same-origin")
	header.Set("Origin", srv.URL)
	if res, body := get("/api/snapshots", cookie); res.StatusCode != http.StatusOK {
		t.Errorf("GET /api/snapshots from the page itself: %d %.80q", res.StatusCode, body)
	}
	header = http.Header{}
	header.Set(TokenHeader, token)
	if res, body := get("/api/snapshots"); res.StatusCode != http.StatusOK {
		t.Errorf("GET /api/snapshots with the header alone: %d %.80q", res.StatusCode, body)
	}
	header = http.Header{}
	if res, body := get("/api/snapshots?token=" + token); res.StatusCode != http.StatusOK {
		t.Errorf("GET /api/snapshots?token=: %d %.80q", res.StatusCode, body)
	}
	header.Set(TokenHeader, token[:31]+"x")
	if res, _ := get("/api/snapshots", &http.Cookie{Name: cookie.Name, Value: token[:31] + "x"}); res.StatusCode != http.StatusForbidden {
		t.Errorf("a wrong cookie: %d, want 403", res.StatusCode)
	}
	if res, _ := get("/api/snapshots", &http.Cookie{Name: "heapscope-1", Value: token}); res.StatusCode != http.StatusForbidden {
		t.Errorf("the token in another port's cookie: %d, want 403", res.StatusCode)
	}
}

// TestPageAndFiles checks the page, its files and the headers that keep
// it from loading anything from elsewhere.
func TestPageAndFiles(t *testing.T) {
	srv := newServer(t, "first")
	for _, tc := range []struct {
		path, contentType, contains string
		code                        int
	}{
		{"/", "text/html; charset=utf-8", `<script src="/static/app.js">`, 200},
		{"/static/app.js", "text/javascript; charset=utf-8", "heapscope web", 200},
		{"/static/common.js", "text/javascript; charset=utf-8", "class Table", 200},
		{"/static/style.css", "text/css; charset=utf-8", "table.grid", 200},
		{"/static/echarts/echarts.min.js", "text/javascript; charset=utf-8", "Apache Software Foundation", 200},
		{"/static/echarts/LICENSE", "text/plain; charset=utf-8", "Apache License", 200},
		{"/static/echarts/NOTICE", "text/plain; charset=utf-8", "Apache ECharts", 200},
		{"/static/templates/index.html", "", "", 404},
		{"/static/static.go", "", "", 404},
		{"/static/../web.go", "", "", 404},
		{"/nothing", "", "", 404},
	} {
		code, h, body := get(t, srv, tc.path)
		if code != tc.code {
			t.Errorf("GET %s: %d, want %d", tc.path, code, tc.code)
			continue
		}
		if csp := h.Get("Content-Security-Policy"); csp != ContentSecurityPolicy {
			t.Errorf("GET %s: Content-Security-Policy %q", tc.path, csp)
		}
		if code != 200 {
			continue
		}
		if ct := h.Get("Content-Type"); ct != tc.contentType {
			t.Errorf("GET %s: Content-Type %q, want %q", tc.path, ct, tc.contentType)
		}
		if !bytes.Contains(body, []byte(tc.contains)) {
			t.Errorf("GET %s: no %q in the body", tc.path, tc.contains)
		}
		if h.Get("X-Content-Type-Options") != "nosniff" {
			t.Errorf("GET %s: no nosniff", tc.path)
		}
	}
	// The page refers to no other host: every src and href is local.
	_, _, page := get(t, srv, "/")
	for _, attr := range []string{`src="`, `href="`} {
		for _, part := range strings.Split(string(page), attr)[1:] {
			if !strings.HasPrefix(part, "/") && !strings.HasPrefix(part, "#") {
				t.Errorf("the page refers to %s%s", attr, part[:min(len(part), 40)])
			}
		}
	}
	code, _, _ := get(t, srv, "/api/snapshots")
	req, _ := http.NewRequest("POST", srv.URL+"/api/snapshots", nil)
	res, err := srv.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if code != 200 || res.StatusCode != http.StatusMethodNotAllowed {
		t.Errorf("GET /api/snapshots %d, POST %d; want 200 and 405", code, res.StatusCode)
	}
}

// TestAnalysisError: a snapshot whose analysis fails (a census has no
// references) still has its overview and summary; the views that need
// the tree say why they cannot.
func TestAnalysisError(t *testing.T) {
	snap := snapshot(t, "first")
	snap.Analyze = func() (*Analysis, error) { return nil, errors.New("first.heap is a census: it has no references") }
	srv := httptest.NewServer(Handler([]*Snapshot{snap}, Options{}))
	defer srv.Close()
	for path, want := range map[string]int{
		"/api/snapshots":                  200,
		"/api/snapshots/0/summary":        200,
		"/api/snapshots/0/children/root":  422,
		"/api/snapshots/0/why?type=bytes": 422,
		"/api/snapshots/0/top":            422,
		"/api/leaks":                      400,
		"/api/trend":                      400,
	} {
		code, _, body := get(t, srv, path)
		if code != want {
			t.Errorf("GET %s: %d %s, want %d", path, code, body, want)
		}
		if code == 422 && !bytes.Contains(body, []byte("census")) {
			t.Errorf("GET %s: %s does not say why", path, body)
		}
	}
	calls := 0
	snap2 := snapshot(t, "first")
	inner := snap2.Analyze
	snap2.Analyze = func() (*Analysis, error) { calls++; return inner() }
	srv2 := httptest.NewServer(Handler([]*Snapshot{snap2}, Options{}))
	defer srv2.Close()
	for range 3 {
		get(t, srv2, "/api/snapshots/0/children/root")
		get(t, srv2, "/api/snapshots/0/top")
	}
	if calls != 1 {
		t.Errorf("the analysis ran %d times, want once", calls)
	}
}

func TestLoopbackHost(t *testing.T) {
	for host, want := range map[string]bool{
		"127.0.0.1": true, "127.0.0.1:0": true, "localhost:80": true, "[::1]:0": true, "::1": true,
		"127.255.255.254": true, "0.0.0.0:80": false, "[::]:80": false, "": false, "192.168.1.2": false,
		"example.com": false, "localhost.example.com": false, "::ffff:127.0.0.1": true,
	} {
		if got := LoopbackHost(host); got != want {
			t.Errorf("LoopbackHost(%q) = %v, want %v", host, got, want)
		}
	}
}

func TestLeakDefaults(t *testing.T) {
	for n, want := range map[int][3]int{3: {0, 1, 2}, 4: {0, 1, 3}, 5: {0, 2, 4}, 10: {0, 4, 9}} {
		if got := leakDefaults(n); got != want {
			t.Errorf("leakDefaults(%d) = %v, want %v", n, got, want)
		}
	}
}

// TestNames: an object with a name of its own (a JVM class object) carries
// it beside its type, in the tree, in an object's description and in
// the steps of a path, for the page to show "class app.SessionCache" where it
// would show java.lang.Class.
func TestNames(t *testing.T) {
	srv := httptest.NewServer(Handler([]*Snapshot{snapshot(t, "named")}, Options{}))
	defer srv.Close()
	get := func(path string, v any) {
		t.Helper()
		res, err := srv.Client().Get(srv.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		if err := json.NewDecoder(res.Body).Decode(v); err != nil {
			t.Fatalf("GET %s: %v", path, err)
		}
	}
	type obj struct {
		ID   string `json:"id"`
		Type string `json:"type"`
		Name string `json:"name"`
	}
	var kids struct {
		Rows []obj `json:"rows"`
	}
	get("/api/snapshots/0/children/root", &kids)
	if len(kids.Rows) != 1 || kids.Rows[0].Type != "java.lang.Class" || kids.Rows[0].Name != "class app.SessionCache" {
		t.Fatalf("the top of the tree: %+v, want the class object with its name", kids.Rows)
	}
	var why struct {
		Rows []struct {
			Sample struct {
				Steps []obj `json:"steps"`
			} `json:"sample"`
		} `json:"rows"`
	}
	get("/api/snapshots/0/why?type=app.Session", &why)
	if len(why.Rows) == 0 || len(why.Rows[0].Sample.Steps) == 0 || why.Rows[0].Sample.Steps[0].Name != "class app.SessionCache" {
		t.Errorf("why app.Session: %+v, want the path's first step named", why.Rows)
	}
	var node struct {
		Object obj `json:"object"`
	}
	get("/api/snapshots/0/object/"+kids.Rows[0].ID, &node)
	if node.Object.Name != "class app.SessionCache" {
		t.Errorf("object %s: %+v, want its name", kids.Rows[0].ID, node.Object)
	}
}

// TestDiffObjects: the new and deleted objects of a diff row of two V8
// snapshots, matched by id and type.
func TestDiffObjects(t *testing.T) {
	snap := func(src string) *Snapshot {
		g := heaptest.MustParse(t, src)
		return &Snapshot{Path: "v8", Graph: g, Analyze: func() (*Analysis, error) {
			return &Analysis{Tree: analyze.Dominators(g, analyze.DomOptions{}), Paths: analyze.ShortestPaths(g, analyze.PathOptions{})}, nil
		}}
	}
	before := snap("runtime v8\nroot vm r (root)\nr@0x1 (root) 0 -> [1]=m\nm@0x3 Map 40 -> [0]=a [1]=b\na@0x5 Item 10\nb@0x7 Item 10\n")
	after := snap("runtime v8\nroot vm r (root)\nr@0x1 (root) 0 -> [1]=m\nm@0x3 Map 40 -> [0]=a [1]=c [2]=d\na@0x5 Item 10\nc@0x9 Item 30\nd@0xb Item 20\n")
	srv := httptest.NewServer(Handler([]*Snapshot{before, after}, Options{}))
	defer srv.Close()
	for which, want := range map[string]string{"new": "@9 @11", "deleted": "@7"} {
		_, _, body := get(t, srv, "/api/diff/objects?a=0&b=1&type=Item&which="+which)
		var res struct {
			Snapshot int          `json:"snapshot"`
			Rows     []objectJSON `json:"rows"`
		}
		if err := json.Unmarshal(body, &res); err != nil {
			t.Fatalf("%s: %v %s", which, err, body)
		}
		var got []string
		for _, o := range res.Rows {
			got = append(got, o.Addr)
		}
		if strings.Join(got, " ") != want || res.Snapshot != map[string]int{"new": 1, "deleted": 0}[which] {
			t.Errorf("%s Item objects: %v in snapshot %d, want %s", which, got, res.Snapshot, want)
		}
	}
	_, _, body := get(t, srv, "/api/diff?a=0&b=1")
	if !strings.Contains(string(body), `"deleted": 1`) || !strings.Contains(string(body), `"new": 2`) {
		t.Errorf("the diff does not count 2 new Items and 1 deleted: %s", body)
	}
}
