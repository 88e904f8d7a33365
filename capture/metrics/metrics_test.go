package metrics

import (
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"
)

var census = Census{
	Time:    time.Unix(1700000000, 250e6),
	Runtime: "python",
	Types: []Type{
		{"str", 1000, 60000},
		{"app.Session", 40, 90000},
		{"dict", 300, 60000},
		{`we"ird\type` + "\n", 1, 10},
		{"int", 5, 140},
	},
}

func exposition(t *testing.T, s *Server, om bool) string {
	t.Helper()
	var b strings.Builder
	if err := s.Write(&b, om); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// TestWrite checks both formats against golden files, with the top 3
// types and the rest as other.
func TestWrite(t *testing.T) {
	s := NewServer(3)
	if got := exposition(t, s, true); got != "# TYPE heapscope_censuses counter\n# HELP heapscope_censuses Censuses of the heap taken and read.\nheapscope_censuses_total 0\n"+
		"# TYPE heapscope_census_failures counter\n# HELP heapscope_census_failures Censuses that could not be taken or read.\nheapscope_census_failures_total 0\n# EOF\n" {
		t.Errorf("before any census:\n%s", got)
	}
	s.Update(census)
	s.Failed()
	for _, tc := range []struct {
		file string
		om   bool
	}{{"testdata/openmetrics.txt", true}, {"testdata/text004.txt", false}} {
		got := exposition(t, s, tc.om)
		if os.Getenv("UPDATE") != "" {
			os.WriteFile(tc.file, []byte(got), 0o644)
		}
		want, err := os.ReadFile(tc.file)
		if err != nil || got != string(want) {
			t.Errorf("%s: got\n%s\nwant\n%s", tc.file, got, want)
		}
	}
}

// TestCut checks the cardinality bound: top by bytes, then count, then
// name; the rest summed as other; nothing summed when all fit.
func TestCut(t *testing.T) {
	got := cutTypes(census.Types, 2)
	want := []Type{{"app.Session", 40, 90000}, {"str", 1000, 60000}, {Other, 306, 60150}}
	if len(got) != len(want) {
		t.Fatalf("cut = %v, want %v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("cut[%d] = %v, want %v", i, got[i], want[i])
		}
	}
	if got := cutTypes(census.Types, 5); len(got) != 5 || got[4].Name == Other {
		t.Errorf("cut to 5 of 5 = %v", got)
	}
}

// TestServe checks the HTTP side: the content type follows the Accept
// header as Prometheus sends it, other paths are not found, and only GET
// and HEAD are answered.
func TestServe(t *testing.T) {
	s := NewServer(10)
	s.Update(census)
	srv := httptest.NewServer(s)
	defer srv.Close()
	get := func(path, accept string) (*http.Response, string) {
		req, _ := http.NewRequest("GET", srv.URL+path, nil)
		if accept != "" {
			req.Header.Set("Accept", accept)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp, string(b)
	}
	prom := "application/openmetrics-text;version=1.0.0,application/openmetrics-text;version=0.0.1;q=0.75,text/plain;version=0.0.4;q=0.5,*/*;q=0.1"
	if r, body := get("/metrics", prom); r.Header.Get("Content-Type") != openMetrics || !strings.HasSuffix(body, "# EOF\n") {
		t.Errorf("Prometheus's Accept: %s\n%s", r.Header.Get("Content-Type"), body)
	}
	if r, body := get("/metrics", "text/plain;version=0.0.4"); r.Header.Get("Content-Type") != textFormat || strings.Contains(body, "# EOF") {
		t.Errorf("text format: %s\n%s", r.Header.Get("Content-Type"), body)
	}
	if r, _ := get("/", ""); r.StatusCode != http.StatusNotFound {
		t.Errorf("/: %s", r.Status)
	}
	resp, err := http.Post(srv.URL+"/metrics", "text/plain", nil)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusMethodNotAllowed {
		t.Errorf("POST: %s", resp.Status)
	}
}

func TestEscape(t *testing.T) {
	if got, want := escape(`we"ird\type`+"\n\xff"), `we\"ird\\type\n`+"\uFFFD"; got != want {
		t.Errorf("escape = %q, want %q", got, want)
	}
}

// TestPromtool has Prometheus's own checker read the text format, when
// it is installed (Debian: prometheus).
func TestPromtool(t *testing.T) {
	p, err := exec.LookPath("promtool")
	if err != nil {
		t.Skip("promtool is not installed (Debian: prometheus)")
	}
	s := NewServer(100)
	s.Update(census)
	cmd := exec.Command(p, "check", "metrics")
	cmd.Stdin = strings.NewReader(exposition(t, s, false))
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Errorf("promtool check metrics: %v\n%s", err, out)
	}
}
