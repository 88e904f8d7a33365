package main

import (
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"time"

	"github.com/heapscope/heapscope/analyze"
	"github.com/heapscope/heapscope/capture/jvm"
	"github.com/heapscope/heapscope/capture/metrics"
	"github.com/heapscope/heapscope/capture/mpi"
	"github.com/heapscope/heapscope/heapfile"
	"github.com/heapscope/heapscope/internal/fleet"
	"github.com/heapscope/heapscope/internal/web"
)

// metricsServe is run --metrics: the latest census of the program's heap
// served for Prometheus, fed by the snapshots run takes (read as they
// land in the snapshot directory, and removed when heapscope keeps no
// directory of its own) or, for a JVM with --census, by its class
// histograms.
type metricsServe struct {
	srv    *metrics.Server
	http   *http.Server
	dir    string
	keep   bool // the snapshots stay: -o was given
	stderr io.Writer

	stop chan struct{}
	done chan struct{}
	seen map[string]bool
}

// metricsAddr checks --metrics: a loopback address unless remote. In an
// MPI job, each rank on a host adds its local rank to the port, so that
// the ranks of one host do not clash.
func metricsAddr(addr string, remote bool) (string, error) {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return "", usagef("--metrics %s: want host:port (127.0.0.1:9464): %v", addr, err)
	}
	if !remote && !web.LoopbackHost(host) {
		return "", usagef("--metrics %s is not a loopback address: heapscope serves 127.0.0.1 (or [::1], localhost) only; add --metrics-allow-remote to serve %s anyway (the types and counts of the program's heap, no values)", addr, host)
	}
	if job, ok := mpi.Detect(os.Getenv); ok && job.LocalRank > 0 {
		p, err := strconv.Atoi(port)
		if err == nil && p > 0 {
			port = strconv.Itoa(p + job.LocalRank)
		}
	}
	return net.JoinHostPort(host, port), nil
}

// startMetrics listens on addr and starts to follow dir.
func startMetrics(addr string, top int, dir string, keep bool, stderr io.Writer) (*metricsServe, error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("--metrics: %w", err)
	}
	m := &metricsServe{
		srv: metrics.NewServer(top), dir: dir, keep: keep, stderr: stderr,
		stop: make(chan struct{}), done: make(chan struct{}), seen: map[string]bool{},
	}
	m.http = &http.Server{Handler: m.srv, ReadHeaderTimeout: 10 * time.Second}
	go m.http.Serve(ln)
	fmt.Fprintf(stderr, "heapscope: the heap's latest census at http://%s/metrics\n", ln.Addr())
	go m.follow()
	return m, nil
}

// javaCensus hands a JVM's class histogram to the server.
func (m *metricsServe) javaCensus(rows []jvm.ClassCount, taken time.Time, err error) {
	if err != nil {
		m.srv.Failed()
		fmt.Fprintf(m.stderr, "heapscope: no census: %v\n", err)
		return
	}
	c := metrics.Census{Time: taken, Runtime: "java", Types: make([]metrics.Type, len(rows))}
	for i, r := range rows {
		c.Types[i] = metrics.Type{Name: r.Name, Count: r.Count, Bytes: r.Bytes}
	}
	m.srv.Update(c)
}

// follow reads each new snapshot in the directory, oldest first, until
// finish; then the last ones.
func (m *metricsServe) follow() {
	defer close(m.done)
	t := time.NewTicker(250 * time.Millisecond)
	defer t.Stop()
	for {
		select {
		case <-m.stop:
			m.scan()
			return
		case <-t.C:
			m.scan()
		}
	}
}

// scan reads the snapshots not read yet.
func (m *metricsServe) scan() {
	entries, err := os.ReadDir(m.dir)
	if err != nil {
		return
	}
	var names []string
	for _, e := range entries {
		if e.Type().IsRegular() && fleet.IsSnapshotName(e.Name()) && !m.seen[e.Name()] {
			names = append(names, e.Name())
		}
	}
	slices.Sort(names) // NNNN-PID-REASON: in the order taken
	for _, n := range names {
		m.seen[n] = true
		m.read(filepath.Join(m.dir, n))
	}
}

// read makes the snapshot at path the census served.
func (m *metricsServe) read(path string) {
	if !m.keep {
		defer os.Remove(path)
	}
	g, err := heapfile.Open(path)
	if err != nil {
		m.srv.Failed()
		fmt.Fprintf(m.stderr, "heapscope: no census from %s: %v\n", filepath.Base(path), err)
		return
	}
	c := metrics.Census{Time: originOf(path, g).time, Runtime: g.Meta().Runtime}
	if c.Time.IsZero() {
		if fi, err := os.Stat(path); err == nil {
			c.Time = fi.ModTime()
		}
	}
	for _, r := range analyze.Summary(g) {
		c.Types = append(c.Types, metrics.Type{Name: r.Type, Count: uint64(r.Count), Bytes: r.Bytes})
	}
	m.srv.Update(c)
}

// finish reads what the program wrote last and stops serving.
func (m *metricsServe) finish() {
	close(m.stop)
	<-m.done
	if err := m.http.Close(); err != nil && !errors.Is(err, http.ErrServerClosed) {
		fmt.Fprintf(m.stderr, "heapscope: --metrics: %v\n", err)
	}
}
