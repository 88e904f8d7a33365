// Package dask takes a snapshot of every worker of a running Dask
// cluster (heapscope snapshot --dask ADDRESS) through the cluster's own
// client: a small driver (driver.py, embedded) runs in the Python that
// has distributed, connects to the scheduler and has each worker run
// heapscope's agent in-process, as snapshot --python does, through
// Client.run; the files come back through the client and land in the
// output directory under a directory per worker, numbered as one
// capture of the whole cluster, the series layout package
// internal/fleet reads:
//
//	DIR/worker-0/0001-4242-dask.pysnap
//	DIR/worker-1/0001-4243-dask.pysnap
//	DIR/worker-0/0002-4242-dask.pysnap   (the next snapshot --dask)
//
// A worker that fails or is gone is reported with why; the others are
// still written.
package dask

import (
	"bufio"
	"bytes"
	"context"
	"crypto/rand"
	_ "embed"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/heapscope/heapscope/agent"
	"github.com/heapscope/heapscope/internal/fleet"
	"github.com/heapscope/heapscope/pysnap"
)

//go:embed driver.py
var driver []byte

// Options says which cluster to take snapshots of, and how.
type Options struct {
	Address string // the scheduler's address, tcp://host:8786
	Dir     string // the output directory; made if need be
	// Python is the interpreter whose distributed is the cluster's
	// client ("python3" if empty).
	Python string
	// The agent's options, as for snapshot --python.
	NoValues    bool
	MaxValueLen int
	NoCollect   bool
	Census      bool
	// ConnectTimeout bounds the connection to the scheduler (30 s if 0);
	// Timeout bounds the workers' captures (10 min if 0).
	ConnectTimeout, Timeout time.Duration
	// Progress, when not nil, is told of each worker as it is done.
	Progress func(Worker)
}

// Worker is one worker's outcome.
type Worker struct {
	Name    string // its name in the cluster
	Address string
	Dir     string // its directory's name under the output directory
	Path    string // the snapshot written; "" when Err is set
	PID     int
	Seconds float64
	// Messages are what the agent said (warnings of a capture that
	// succeeded, or why it failed).
	Messages []string
	Err      error
}

// event is one line the driver writes.
type event struct {
	Event    string   `json:"event"`
	Error    string   `json:"error"`
	Workers  []Worker `json:"workers"`
	Address  string   `json:"address"`
	Name     string   `json:"name"`
	PID      int      `json:"pid"`
	File     string   `json:"file"`
	Size     int64    `json:"size"`
	Seconds  float64  `json:"seconds"`
	Messages []string `json:"messages"`
}

// Snapshot takes a snapshot of every worker the scheduler at o.Address
// lists and returns each worker's outcome, in the order of their
// addresses. It fails as a whole only when no worker could be asked (no
// Python with distributed, no scheduler, no worker); a worker that
// fails has its Err set.
func Snapshot(ctx context.Context, o Options) ([]Worker, error) {
	if o.Python == "" {
		o.Python = "python3"
	}
	if o.ConnectTimeout <= 0 {
		o.ConnectTimeout = 30 * time.Second
	}
	if o.Timeout <= 0 {
		o.Timeout = 10 * time.Minute
	}
	if o.MaxValueLen <= 0 {
		o.MaxValueLen = 64
	}
	dir, err := filepath.Abs(o.Dir)
	if err != nil {
		return nil, err
	}
	// Snapshots can hold secrets: a directory made here is the user's
	// alone, and so are the files.
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, err
	}
	pkg, err := agent.Dir()
	if err != nil {
		return nil, err
	}
	stage, err := os.MkdirTemp(dir, ".heapscope-dask-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(stage)
	script := filepath.Join(stage, "driver.py")
	if err := os.WriteFile(script, driver, 0o600); err != nil {
		return nil, err
	}
	var nonce [6]byte
	rand.Read(nonce[:])
	cfg, _ := json.Marshal(map[string]any{
		"address": o.Address, "agent": filepath.Join(pkg, "heapscope"), "stage": stage,
		"name":   "_heapscope_dask_" + hex.EncodeToString(nonce[:]),
		"values": !o.NoValues, "max_value_len": o.MaxValueLen, "collect": !o.NoCollect, "edges": !o.Census,
		"connect_timeout": o.ConnectTimeout.Seconds(), "timeout": o.Timeout.Seconds(),
	})
	cmd := exec.CommandContext(ctx, o.Python, "-B", script)
	cmd.Stdin = bytes.NewReader(cfg)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("cannot run %s, the Python of the cluster's client: %w", o.Python, err)
	}
	workers, ferr := follow(out, dir, stage, o)
	io.Copy(io.Discard, out)
	werr := cmd.Wait()
	if ferr != nil {
		return workers, ferr
	}
	if workers == nil {
		why := strings.TrimSpace(lastLines(stderr.String(), 5))
		if werr != nil {
			why = werr.Error() + ": " + why
		}
		return nil, fmt.Errorf("the Dask client (%s) ended before it listed the workers: %s", o.Python, why)
	}
	if len(workers) == 0 {
		return nil, fmt.Errorf("the Dask scheduler at %s has no worker", o.Address)
	}
	for i := range workers {
		if workers[i].Path == "" && workers[i].Err == nil {
			workers[i].Err = fmt.Errorf("the Dask client ended before this worker answered")
		}
	}
	return workers, nil
}

// follow reads the driver's events and puts each snapshot in its place.
// It returns nil workers when the driver listed none.
func follow(out io.Reader, dir, stage string, o Options) ([]Worker, error) {
	var workers []Worker
	seq := ""
	sc := bufio.NewScanner(out)
	sc.Buffer(make([]byte, 64<<10), 16<<20)
	for sc.Scan() {
		var ev event
		if json.Unmarshal(sc.Bytes(), &ev) != nil {
			continue // a line a library printed
		}
		switch ev.Event {
		case "error":
			return nil, errors.New(ev.Error)
		case "workers":
			workers = ev.Workers
			if workers == nil {
				workers = []Worker{}
			}
			names := make([]string, len(workers))
			for i := range workers {
				names[i] = workers[i].Name
			}
			for i, d := range dirNames(names) {
				workers[i].Dir = d
			}
			var err error
			if seq, err = nextSeq(dir); err != nil {
				return workers, err
			}
		case "done", "failed":
			i := indexOf(workers, ev.Address)
			if i < 0 || workers[i].Path != "" || workers[i].Err != nil {
				continue // told already
			}
			w := &workers[i]
			w.PID, w.Seconds, w.Messages = ev.PID, ev.Seconds, ev.Messages
			if ev.Event == "failed" {
				w.Err = errors.New(ev.Error)
			} else {
				w.Path, w.Err = place(stage, ev.File, ev.Size, filepath.Join(dir, w.Dir), fmt.Sprintf("%s-%d-dask.pysnap", seq, ev.PID))
			}
			if o.Progress != nil {
				o.Progress(*w)
			}
		}
	}
	return workers, sc.Err()
}

func indexOf(ws []Worker, addr string) int {
	for i, w := range ws {
		if w.Address == addr {
			return i
		}
	}
	return -1
}

// place checks the file the driver wrote (in stage, a Python snapshot
// of the size the worker said) and renames it to dir/name, 0600.
func place(stage, file string, size int64, dir, name string) (string, error) {
	if filepath.Dir(file) != stage {
		return "", fmt.Errorf("the Dask client wrote the snapshot outside its stage directory")
	}
	f, err := os.Open(file)
	if err != nil {
		return "", fmt.Errorf("the snapshot did not arrive: %w", err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return "", err
	}
	if !fi.Mode().IsRegular() || fi.Size() != size {
		return "", fmt.Errorf("the snapshot arrived with %d of its %d bytes", fi.Size(), size)
	}
	var head [len(pysnap.Magic)]byte
	if _, err := io.ReadFull(f, head[:]); err != nil || !pysnap.Match(head[:]) {
		return "", fmt.Errorf("the worker sent something that is not a Python snapshot")
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", err
	}
	if err := f.Chmod(0o600); err != nil {
		return "", err
	}
	out := filepath.Join(dir, name)
	if _, err := os.Lstat(out); err == nil {
		return "", fmt.Errorf("%s exists already", out)
	}
	return out, os.Rename(file, out)
}

// nextSeq returns the number of this capture: one more than the highest
// any worker's directory under dir holds, so that the snapshots of one
// capture have one number whichever workers came or went.
func nextSeq(dir string) (string, error) {
	high := 0
	entries, err := os.ReadDir(dir)
	if err != nil {
		return "", err
	}
	for _, e := range entries {
		if !e.IsDir() || strings.HasPrefix(e.Name(), ".") {
			continue
		}
		files, _ := os.ReadDir(filepath.Join(dir, e.Name()))
		for _, f := range files {
			n, _, _ := strings.Cut(f.Name(), "-")
			if k, err := strconv.Atoi(n); err == nil && k > high && fleet.IsSnapshotName(f.Name()) {
				high = k
			}
		}
	}
	return fmt.Sprintf("%04d", high+1), nil
}

// dirNames names each worker's directory: worker-NAME, its name made
// safe for a file name (a worker named by its address, as dask-worker
// names them by default, by its host and port), unique.
func dirNames(names []string) []string {
	out := make([]string, len(names))
	seen := map[string]bool{}
	for i, n := range names {
		if _, rest, ok := strings.Cut(n, "://"); ok {
			n = rest
		}
		d := "worker-" + safeName(n)
		for k := 2; seen[d]; k++ {
			d = fmt.Sprintf("worker-%s-%d", safeName(n), k)
		}
		seen[d] = true
		out[i] = d
	}
	return out
}

// safeName keeps letters, digits, '.', '_' and '-' and writes anything
// else as '-', in at most 100 bytes.
func safeName(s string) string {
	b := []byte(s)
	for i, c := range b {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '.' || c == '_' || c == '-') {
			b[i] = '-'
		}
	}
	switch {
	case len(b) == 0:
		return "unnamed"
	case len(b) > 100:
		b = b[:100]
	}
	return string(b)
}

func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, " | ")
}
