package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"syscall"
	"testing"
	"time"
)

// TestPrometheusRules checks the recording rules and the alert that
// docs/prometheus/heapscope.rules.yml gives, with Prometheus's own
// promtool: the file loads, and on four replicas' series a type that
// grows on three of them alerts, one that grows on one replica or fills
// once does not.
func TestPrometheusRules(t *testing.T) {
	promtool, err := exec.LookPath("promtool")
	if err != nil {
		t.Skip("promtool is not installed (Debian: prometheus)")
	}
	for _, args := range [][]string{
		{"check", "rules", filepath.Join("..", "..", "docs", "prometheus", "heapscope.rules.yml")},
		{"test", "rules", "heapscope.rules_test.yml"},
	} {
		cmd := exec.Command(promtool, args...)
		if args[0] == "test" {
			cmd.Dir = "testdata"
		}
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Errorf("promtool %v: %v\n%s", args, err, out)
		}
	}
}

// freePort returns a loopback port no one listens on now.
func freePort(t *testing.T) int {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port
}

// startStopped starts cmd in a process group of its own and stops the
// group with SIGTERM, then SIGKILL, when the test ends.
func startStopped(t *testing.T, cmd *exec.Cmd) {
	t.Helper()
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() { cmd.Wait(); close(done) }()
	t.Cleanup(func() {
		syscall.Kill(-cmd.Process.Pid, syscall.SIGTERM)
		select {
		case <-done:
		case <-time.After(20 * time.Second):
			syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
			<-done
		}
	})
}

// promQuery runs an instant query through Prometheus's HTTP API and
// returns the values of its samples by their type label.
func promQuery(t *testing.T, base, query string) (map[string][]float64, error) {
	resp, err := http.Get(base + "/api/v1/query?query=" + url.QueryEscape(query))
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	var r struct {
		Status string `json:"status"`
		Error  string `json:"error"`
		Data   struct {
			ResultType string `json:"resultType"`
			Result     []struct {
				Metric map[string]string `json:"metric"`
				Value  []any             `json:"value"`
				Values [][]any           `json:"values"`
			} `json:"result"`
		} `json:"data"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&r); err != nil {
		return nil, err
	}
	if r.Status != "success" {
		return nil, fmt.Errorf("%s: %s", query, r.Error)
	}
	out := map[string][]float64{}
	num := func(v any) float64 {
		s, _ := v.(string)
		f, _ := strconv.ParseFloat(s, 64)
		return f
	}
	for _, s := range r.Data.Result {
		k := s.Metric["type"]
		if s.Value != nil {
			out[k] = append(out[k], num(s.Value[1]))
		}
		for _, v := range s.Values {
			out[k] = append(out[k], num(v[1]))
		}
	}
	return out, nil
}

// TestPrometheus runs testdata/promleak.py under heapscope run --every
// 1s --census --metrics on loopback and a real Prometheus server that
// scrapes it every second with the rules of docs/prometheus: through
// Prometheus's HTTP API, the series of the leaking type rises, the
// configuration's stays, and the recording rule has the leaking type
// growing on its one replica.
func TestPrometheus(t *testing.T) {
	prom, err := exec.LookPath("prometheus")
	if err != nil {
		t.Skip("prometheus is not installed (Debian: prometheus)")
	}
	bin := heapscopeBinary(t)
	dir := t.TempDir()

	// heapscope serves on a port it chooses and says which.
	run := exec.Command(bin, "run", "--every", "1s", "--census", "--metrics", "127.0.0.1:0", "--",
		"/usr/bin/python3", filepath.Join("testdata", "promleak.py"), "120")
	stderr, err := run.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	startStopped(t, run)
	served := make(chan string, 1)
	var said bytes.Buffer
	go func() {
		sc := bufio.NewScanner(stderr)
		re := regexp.MustCompile(`census at http://(\S+)/metrics`)
		for sc.Scan() {
			said.WriteString(sc.Text() + "\n")
			if m := re.FindStringSubmatch(sc.Text()); m != nil {
				served <- m[1]
			}
		}
		io.Copy(io.Discard, stderr)
	}()
	var target string
	select {
	case target = <-served:
	case <-time.After(60 * time.Second):
		t.Fatalf("heapscope run did not say where it serves:\n%s", said.String())
	}

	cfg := filepath.Join(dir, "prometheus.yml")
	rules, _ := filepath.Abs(filepath.Join("..", "..", "docs", "prometheus", "heapscope.rules.yml"))
	os.WriteFile(cfg, []byte(fmt.Sprintf(`global:
  scrape_interval: 1s
  evaluation_interval: 1s
rule_files:
  - %s
scrape_configs:
  - job_name: app
    static_configs:
      - targets: ['%s']
`, rules, target)), 0o600)
	web := fmt.Sprintf("127.0.0.1:%d", freePort(t))
	var plog bytes.Buffer
	p := exec.Command(prom, "--config.file="+cfg, "--storage.tsdb.path="+filepath.Join(dir, "data"),
		"--web.listen-address="+web, "--log.level=warn")
	p.Stdout, p.Stderr = &plog, &plog
	startStopped(t, p)
	base := "http://" + web

	// Wait (a loaded machine is slow) until Prometheus holds 4 censuses
	// of the leaking type: scrapes come every second, censuses as fast as
	// the machine takes them, and a census scraped twice repeats its
	// value.
	const leak = `heapscope_objects{job="app",type="__main__.Session"}[5m]`
	var series map[string][]float64
	deadline := time.Now().Add(150 * time.Second)
	for {
		series, err = promQuery(t, base, leak)
		if err == nil && len(slices.Compact(slices.Clone(series["__main__.Session"]))) >= 4 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("Prometheus has %v of the leaking type after 150 s (%v)\nheapscope:\n%s\nprometheus:\n%s", series, err, said.String(), plog.String())
		}
		time.Sleep(time.Second)
	}
	s := series["__main__.Session"]
	rises := 0
	for i := 1; i < len(s); i++ {
		if s[i] < s[i-1] {
			t.Errorf("the leaking type's series fell: %v", s)
		}
		if s[i] > s[i-1] {
			rises++
		}
	}
	if rises < 3 {
		t.Errorf("the leaking type's series rose %d times, want at least 3: %v", rises, s)
	}
	cfgs, err := promQuery(t, base, `heapscope_objects{job="app",type="__main__.Config"}[5m]`)
	if c := cfgs["__main__.Config"]; err != nil || len(c) == 0 || c[0] != 100 || c[len(c)-1] != 100 {
		t.Errorf("the configuration's series: %v (%v), want 100 throughout", c, err)
	}
	ratio, err := promQuery(t, base, `heapscope:type_growing:ratio{job="app",type="__main__.Session"}`)
	if r := ratio["__main__.Session"]; err != nil || len(r) != 1 || r[0] != 1 {
		t.Errorf("the recording rule gives %v (%v) for the leaking type, want 1 (its one replica)", r, err)
	}
}

// scrape gets the exposition heapscope serves at addr, as Prometheus
// asks for it, and returns heapscope_objects by type.
func scrape(t *testing.T, addr string) (map[string]float64, string) {
	t.Helper()
	req, _ := http.NewRequest("GET", "http://"+addr+"/metrics", nil)
	req.Header.Set("Accept", "application/openmetrics-text;version=1.0.0,text/plain;version=0.0.4;q=0.5")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, err.Error()
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	out := map[string]float64{}
	re := regexp.MustCompile(`(?m)^heapscope_objects\{type="([^"]*)"\} (\d+)$`)
	for _, m := range re.FindAllStringSubmatch(string(b), -1) {
		out[m[1]], _ = strconv.ParseFloat(m[2], 64)
	}
	return out, string(b)
}

// TestMetricsJava runs testdata/PromLeak.java under heapscope run
// --every 1s --census --metrics: each census is the JVM's class
// histogram (jcmd GC.class_histogram, no dump written), served with
// classes named as heapscope names them in dumps; the leaking class's
// count rises, the configuration's is its 100 entries.
func TestMetricsJava(t *testing.T) {
	if _, err := exec.LookPath("jcmd"); err != nil {
		t.Skip("jcmd is not installed")
	}
	bin := heapscopeBinary(t)
	port := freePort(t)
	out := t.TempDir()
	run := exec.Command(bin, "run", "-o", out, "--every", "1s", "--census", "--metrics", fmt.Sprintf("127.0.0.1:%d", port), "--metrics-types", "5000", "--",
		"java", "-Xmx128m", filepath.Join("testdata", "PromLeak.java"), "120")
	var said bytes.Buffer
	run.Stderr = &said
	startStopped(t, run)
	addr := fmt.Sprintf("127.0.0.1:%d", port)
	var seen []float64
	var last string
	deadline := time.Now().Add(150 * time.Second)
	for len(slices.Compact(slices.Clone(seen))) < 3 {
		if time.Now().After(deadline) {
			t.Fatalf("3 censuses of the JVM did not come in 150 s: %v\n%s\nheapscope:\n%s", seen, last, said.String())
		}
		time.Sleep(time.Second)
		var objs map[string]float64
		objs, last = scrape(t, addr)
		if n, ok := objs["PromLeak$Session"]; ok {
			seen = append(seen, n)
			if c := objs["PromLeak$Config"]; c != 100 {
				t.Fatalf("PromLeak$Config: %v objects, want 100\n%s", c, last)
			}
			if objs["byte[]"] == 0 {
				t.Fatalf("no byte[] among the JVM's classes: arrays are not named as in dumps\n%s", last)
			}
		}
	}
	for i := 1; i < len(seen); i++ {
		if seen[i] < seen[i-1] {
			t.Errorf("PromLeak$Session fell: %v", seen)
		}
	}
	if m, _ := filepath.Glob(filepath.Join(out, "*")); len(m) != 0 {
		t.Errorf("a census of a JVM wrote files: %v", m)
	}
}

// TestMetricsMisuse checks what run --metrics refuses.
func TestMetricsMisuse(t *testing.T) {
	for _, tc := range []struct {
		name string
		args []string
	}{
		{"metrics-remote", []string{"run", "--every", "1s", "--metrics", "0.0.0.0:9464", "--", "true"}},
		{"metrics-no-interval", []string{"run", "--metrics", "127.0.0.1:9464", "--", "true"}},
		{"metrics-java-census", []string{"run", "-o", t.TempDir(), "--every", "1s", "--census", "--", "java", "-version"}},
	} {
		t.Run(tc.name, func(t *testing.T) { golden(t, tc.name, tc.args...) })
	}
}
