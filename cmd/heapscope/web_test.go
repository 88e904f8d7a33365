package main

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"html"
	"io"
	"net/http"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/heapscope/heapscope/internal/heaptest"
)

// TestWebRefusesRemote: heapscope web serves loopback addresses only,
// unless --allow-remote says otherwise; a name other than localhost is
// not resolved, it is refused.
func TestWebRefusesRemote(t *testing.T) {
	for _, addr := range []string{"0.0.0.0:0", ":0", "[::]:0", "192.0.2.1:8080", "example.com:80", "localhost.example.com:0", "[::ffff:192.0.2.1]:0"} {
		var stdout, stderr bytes.Buffer
		err := run([]string{"web", "--http", addr, "testdata/before.pysnap"}, &stdout, &stderr)
		var ue *usageError
		if !errors.As(err, &ue) || !strings.Contains(err.Error(), "--allow-remote") {
			t.Errorf("web --http %s: %v, want a usage error that names --allow-remote", addr, err)
		}
		if stdout.Len() > 0 {
			t.Errorf("web --http %s printed %q", addr, stdout.String())
		}
	}
	for _, tc := range []struct {
		addr   string
		remote bool
		ok     bool
	}{
		{"127.0.0.1:0", false, true}, {"localhost:8080", false, true}, {"[::1]:0", false, true}, {"127.0.0.2:0", false, true},
		{"0.0.0.0:0", true, true}, {"192.0.2.1:80", true, true}, {"0.0.0.0:0", false, false},
		{"127.0.0.1", false, false}, // no port
	} {
		err := checkListen(tc.addr, tc.remote)
		if (err == nil) != tc.ok {
			t.Errorf("checkListen(%q, %v) = %v, want ok %v", tc.addr, tc.remote, err, tc.ok)
		}
	}
}

// TestWebServes runs heapscope web in-process on a free loopback port,
// reads the address it prints, asks it for the overview and a page of
// the dominator tree, and stops it as Ctrl-C does.
func TestWebServes(t *testing.T) {
	pr, pw := io.Pipe()
	done := make(chan error, 1)
	var stderr bytes.Buffer
	go func() {
		done <- run([]string{"web", "testdata/before.pysnap", "testdata/mid.pysnap", "testdata/after.pysnap"}, pw, &stderr)
		pw.Close()
	}()
	line, err := bufio.NewReader(pr).ReadString('\n')
	if err != nil {
		t.Fatalf("web printed no address: %v (%s)", err, stderr.String())
	}
	go io.Copy(io.Discard, pr)
	m := regexp.MustCompile(`(http://127\.0\.0\.1:\d+/)\?token=([0-9a-f]{32}) `).FindStringSubmatch(line)
	if m == nil {
		t.Fatalf("web printed %q, no loopback address with a token", line)
	}
	url, token := m[1], m[2]
	res, err := http.Get(url + "api/snapshots")
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusForbidden {
		t.Errorf("GET api/snapshots without the token: %s, want 403 Forbidden", res.Status)
	}
	var snaps struct {
		Snapshots []struct {
			Path     string `json:"path"`
			Overview struct {
				Runtime string `json:"runtime"`
				Objects int    `json:"objects"`
			} `json:"overview"`
		} `json:"snapshots"`
		Leaks []int `json:"leaks"`
	}
	getJSON(t, url+"api/snapshots?token="+token, &snaps)
	if len(snaps.Snapshots) != 3 || snaps.Snapshots[2].Path != "testdata/after.pysnap" || snaps.Snapshots[2].Overview.Runtime != "python" || snaps.Snapshots[2].Overview.Objects != 19 || len(snaps.Leaks) != 3 {
		t.Errorf("overview = %+v", snaps)
	}
	var kids struct {
		Total int `json:"total"`
		Rows  []struct {
			Type string `json:"type"`
		} `json:"rows"`
	}
	getJSON(t, url+"api/snapshots/2/children/root?token="+token, &kids)
	if kids.Total == 0 || kids.Rows[0].Type != "module" {
		t.Errorf("top of the dominator tree = %+v, want the app module first", kids)
	}
	if err := syscall.Kill(syscall.Getpid(), syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("web ended with %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("web did not stop on SIGINT")
	}
}

func getJSON(t *testing.T, url string, v any) {
	t.Helper()
	res, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	if res.StatusCode != 200 {
		t.Fatalf("GET %s: %s", url, res.Status)
	}
	if err := json.NewDecoder(res.Body).Decode(v); err != nil {
		t.Fatal(err)
	}
}

var (
	inlineScript = regexp.MustCompile(`(?s)<script>(.*?)</script>`)
	dataScript   = regexp.MustCompile(`(?s)<script type="application/json" id="heapscope-data">(.*?)</script>`)
	policyMeta   = regexp.MustCompile(`<meta http-equiv="Content-Security-Policy" content="([^"]*)">`)
)

// TestHTMLReports checks the self-contained reports: the data in the page
// is the --json output byte for byte, every inline script is allowed by
// its hash in the page's policy and nothing else is, and the page around
// them is the golden one (scripts and hashes left out).
func TestHTMLReports(t *testing.T) {
	const before, mid, after = "testdata/before.pysnap", "testdata/mid.pysnap", "testdata/after.pysnap"
	for _, tc := range []struct {
		name string
		args []string
	}{
		{"leaks-html", []string{"leaks", before, mid, after}},
		{"check-html", []string{"check", before, mid, after}},
		{"top-html", []string{"top", "testdata/rich.pysnap"}},
		{"trend-html", []string{"trend", before, mid, after}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var page, js, stderr bytes.Buffer
			errHTML := run(append([]string{tc.args[0], "--format", "html"}, tc.args[1:]...), &page, &stderr)
			errJSON := run(append([]string{tc.args[0], "--json"}, tc.args[1:]...), &js, &stderr)
			if (errHTML == nil) != (errJSON == nil) {
				t.Fatalf("html: %v; json: %v", errHTML, errJSON)
			}
			m := dataScript.FindStringSubmatch(page.String())
			if m == nil {
				t.Fatal("no data in the page")
			}
			if strings.Contains(m[1], "<") {
				t.Error("the inlined JSON holds a '<'")
			}
			if got, want := strings.ReplaceAll(m[1], `\u003c`, "<"), strings.TrimSpace(js.String()); got != want {
				t.Errorf("the page's data differs from --json:\n%s\nwant\n%s", got, want)
			}
			pm := policyMeta.FindStringSubmatch(page.String())
			if pm == nil {
				t.Fatal("no Content-Security-Policy in the page")
			}
			scripts := inlineScript.FindAllStringSubmatch(page.String(), -1)
			if len(scripts) != 3 {
				t.Fatalf("%d inline scripts, want 3 (chart library, common.js, report.js)", len(scripts))
			}
			var hashes []string
			skeleton := page.String()
			for i, s := range scripts {
				sum := sha256.Sum256([]byte(s[1]))
				hashes = append(hashes, "'sha256-"+base64.StdEncoding.EncodeToString(sum[:])+"'")
				skeleton = strings.Replace(skeleton, s[0], "<script>(script "+string(rune('1'+i))+")</script>", 1)
			}
			want := "default-src 'none'; style-src 'unsafe-inline'; img-src data:; base-uri 'none'; form-action 'none'; script-src " + strings.Join(hashes, " ")
			if got := html.UnescapeString(pm[1]); got != want {
				t.Errorf("policy %q, want %q", got, want)
			}
			skeleton = strings.Replace(skeleton, pm[1], "(policy)", 1)
			skeleton = regexp.MustCompile(`(?s)<style>.*?</style>`).ReplaceAllString(skeleton, "<style>(style.css)</style>")
			for _, attr := range []string{"src=", "href=", "url(", "@import"} {
				if strings.Contains(skeleton, attr) {
					t.Errorf("the page refers to something with %s", attr)
				}
			}
			heaptest.Golden(t, filepath.Join("testdata", tc.name+".golden"), []byte(skeleton))
		})
	}
	var stdout, stderr bytes.Buffer
	err := run([]string{"summary", "--format", "html", before}, &stdout, &stderr)
	var ue *usageError
	if !errors.As(err, &ue) {
		t.Errorf("summary --format html: %v, want a usage error", err)
	}
}
