// Command load puts heapscope web under the load a hostile page on the
// same machine can make (issue: one request for a path down a chain of
// 700,000 objects; hundreds of such requests at once, each different,
// whose clients go away), on loopback only, and reports what the server
// answered and what it cost:
//
//  1. one why?value= request for the last object of the chain: status,
//     bytes, time;
//
//  2. the same kind of request as a page of another server on this
//     machine makes it (the cookie only, Sec-Fetch-Site: same-site,
//     another Origin) and as heapscope's own page makes it (the token
//     header too): the statuses;
//
//  3. -clients concurrent requests, each for another object of the chain
//     (why?value=node-K, K spread along it), each client giving up after
//     -patience: statuses, the server's peak RSS while they run, and the
//     CPU time it spends in the -after seconds once every client has
//     gone (work it did not cancel);
//
//  4. once the server is idle, or -settle after the clients went, its
//     CPU time since they went and its peak RSS over the run, or that it
//     was killed for passing -maxrss (the machine is shared).
//
//     go run ./bench/web/load -bin ./heapscope [-clients 200] [-maxrss BYTES] SNAPSHOT
//
// SNAPSHOT is the V8 snapshot of bench/web/chain.js (node chain.js
// 700000 chain.heapsnapshot). The server runs as heapscope web SNAPSHOT
// on a free port of 127.0.0.1; the requests carry the token in the
// address (the servers before the token header know no other way)
// unless said otherwise.
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"log"
	"net/http"
	"os"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/heapscope/heapscope/bench/web/server"
)

func main() {
	bin := flag.String("bin", "./heapscope", "the heapscope `binary`")
	clients := flag.Int("clients", 200, "concurrent requests")
	patience := flag.Duration("patience", 2*time.Second, "how long each client waits before it goes")
	after := flag.Duration("after", 10*time.Second, "how long the server's CPU is watched once the clients have gone")
	settle := flag.Duration("settle", 3*time.Minute, "how long to wait, once the clients have gone, for the server to be idle")
	chain := flag.Int("chain", 700000, "objects in the chain (values node-0 ... node-N-1)")
	maxRSS := flag.Int64("maxrss", 8<<30, "stop the server (SIGKILL) when its RSS passes `BYTES`: the machine is shared")
	flag.Parse()
	if flag.NArg() != 1 {
		log.Fatal("usage: load -bin heapscope SNAPSHOT")
	}
	log.SetFlags(0)
	srv, err := server.Start(*bin, flag.Arg(0))
	if err != nil {
		log.Fatal(err)
	}
	defer srv.Stop()
	base, token := srv.Base, srv.Token
	// The machine is shared: the server's memory is watched from here on,
	// and the server killed past -maxrss.
	var peak atomic.Int64
	var killed atomic.Bool
	go func(pid int) {
		for {
			time.Sleep(100 * time.Millisecond)
			r := rss(pid, "VmRSS")
			if r > peak.Load() {
				peak.Store(r)
			}
			if r > *maxRSS {
				killed.Store(true)
				syscall.Kill(pid, syscall.SIGKILL)
				return
			}
		}
	}(serverPID(srv.Cmd.Process.Pid))
	// heapscope runs the command in a child process of its own (see
	// cmd/heapscope's supervise): that child is the server to watch.
	pid := serverPID(srv.Cmd.Process.Pid)
	fmt.Printf("server pid %d, %s\n", pid, base)

	// The analysis (dominators, paths) once, so that what follows
	// measures the requests.
	t := time.Now()
	code, n := get(context.Background(), base+"api/snapshots/0/children/root?limit=1&token="+token, nil)
	fmt.Printf("warm-up (the dominator tree and the paths): %d, %d bytes, %.1f s; RSS %s\n", code, n, time.Since(t).Seconds(), mb(rss(pid, "VmRSS")))

	// 1. One request for the end of the chain.
	t = time.Now()
	cpu0 := cpu(pid)
	code, n = get(context.Background(), fmt.Sprintf("%sapi/snapshots/0/why?value=node-%d&limit=1&token=%s", base, *chain-1, token), nil)
	fmt.Printf("1. why?value=node-%d (a path of %d steps): %d, %s, %.1f s wall, %.1f s CPU; RSS %s\n",
		*chain-1, *chain, code, mb(int64(n)), time.Since(t).Seconds(), cpu(pid)-cpu0, mb(rss(pid, "VmRSS")))

	// 2. As a page of another server on this machine asks.
	h := http.Header{}
	h.Set("Sec-Fetch-Site", "same-site")
	h.Set("Origin", "http://127.0.0.1:1")
	h.Set("Cookie", "heapscope-"+strings.TrimSuffix(base[strings.LastIndex(base, ":")+1:], "/")+"="+token)
	ctx2, cancel2 := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel2()
	code, n = get(ctx2, fmt.Sprintf("%sapi/snapshots/0/why?value=node-1", base), h)
	fmt.Printf("2. the same, as a page of another port of 127.0.0.1 asks (cookie only, Sec-Fetch-Site: same-site): %d, %d bytes", code, n)
	// and as heapscope's own page asks (the cookie, the token header).
	h.Set("Sec-Fetch-Site", "same-origin")
	h.Set("Origin", strings.TrimSuffix(base, "/"))
	h.Set("X-Heapscope-Token", token)
	code, n = get(ctx2, fmt.Sprintf("%sapi/snapshots/0/why?value=node-1", base), h)
	fmt.Printf("; as its own page asks (the token header too): %d, %d bytes\n", code, n)

	// 3. Many at once, each different, each client leaving early.
	var mu sync.Mutex
	statuses := map[string]int{}
	var bytes int64
	var wg sync.WaitGroup
	t = time.Now()
	cpu0 = cpu(pid)
	for i := range *clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			k := (i + 1) * (*chain - 1) / *clients
			ctx, cancel := context.WithTimeout(context.Background(), *patience)
			defer cancel()
			code, n := get(ctx, fmt.Sprintf("%sapi/snapshots/0/why?value=node-%d&limit=1&token=%s", base, k, token), nil)
			mu.Lock()
			defer mu.Unlock()
			s := strconv.Itoa(code)
			if code == 0 {
				s = "gone"
			}
			statuses[s]++
			bytes += int64(n)
		}()
	}
	wg.Wait()
	gone := time.Now()
	cpuGone := cpu(pid)
	time.Sleep(*after)
	cpuAfter := cpu(pid)
	fmt.Printf("3. %d clients, each for another object, each gone after %s: %v, %s received, %.1f s wall, %.1f s CPU while they waited; peak RSS %s; RSS %s; CPU in the %s after the last had gone: %.2f s\n",
		*clients, *patience, statuses, mb(bytes), gone.Sub(t).Seconds(), cpuGone-cpu0, mb(peak.Load()), mb(rss(pid, "VmRSS")), *after, cpuAfter-cpuGone)

	// 4. Until the server is idle (under 5% of a CPU for a second), or
	// -settle has passed: what the requests cost in all.
	idle := false
	for end := gone.Add(*settle); !idle && !killed.Load() && time.Now().Before(end); {
		c := cpu(pid)
		time.Sleep(time.Second)
		idle = cpu(pid)-c < 0.05
	}
	state := "idle"
	switch {
	case killed.Load():
		state = "killed: its RSS passed " + mb(*maxRSS)
	case !idle:
		state = "still computing"
	}
	fmt.Printf("4. %.0f s after the last client had gone the server is %s; CPU since they went %.2f s; peak RSS over the run %s\n",
		time.Since(gone).Seconds(), state, cpu(pid)-cpuGone, mb(peak.Load()))
}

// get requests url and returns the status (0 when the client gave up
// or failed) and the bytes of the body read.
func get(ctx context.Context, url string, h http.Header) (int, int) {
	req, err := http.NewRequestWithContext(ctx, "GET", url, nil)
	if err != nil {
		log.Fatal(err)
	}
	for k, v := range h {
		req.Header[k] = v
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		return 0, 0
	}
	defer res.Body.Close()
	n, err := io.Copy(io.Discard, res.Body)
	if err != nil {
		return 0, int(n)
	}
	return res.StatusCode, int(n)
}

// serverPID returns the child of process pid (heapscope's supervised
// command), or pid when it has none.
func serverPID(pid int) int {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/task/%d/children", pid, pid))
	if err != nil {
		return pid
	}
	if f := strings.Fields(string(b)); len(f) > 0 {
		if c, err := strconv.Atoi(f[0]); err == nil {
			return c
		}
	}
	return pid
}

// rss returns a memory figure of process pid from /proc (VmRSS,
// VmHWM), in bytes.
func rss(pid int, field string) int64 {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, field+":"); ok {
			kb, _ := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
			return kb << 10
		}
	}
	return 0
}

// cpu returns the CPU time (user + system) process pid has used, in
// seconds.
func cpu(pid int) float64 {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0
	}
	s := string(b)
	f := strings.Fields(s[strings.LastIndexByte(s, ')')+2:])
	ut, _ := strconv.ParseFloat(f[11], 64)
	st, _ := strconv.ParseFloat(f[12], 64)
	return (ut + st) / 100 // clock ticks: 100 a second on Linux
}

// mb formats bytes in MB, or kB below one MB.
func mb(n int64) string {
	if n < 1e6 {
		return fmt.Sprintf("%.1f kB", float64(n)/1e3)
	}
	return fmt.Sprintf("%.1f MB", float64(n)/1e6)
}
