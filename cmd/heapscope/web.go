package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/heapscope/heapscope/analyze"
	"github.com/heapscope/heapscope/internal/web"
)

func runWeb(args []string, stdout, stderr io.Writer) error {
	fs := flagSet("web", "SNAPSHOT...", stderr)
	addr := fs.String("http", "127.0.0.1:0", "serve on `host:port`: a loopback address unless --allow-remote (port 0: a free port)")
	remote := fs.Bool("allow-remote", false, "allow an --http address other than loopback: whoever reaches it and has the printed address can read the snapshots")
	verbose := fs.Bool("v", false, "list the snapshots' warnings on stderr")
	suppress := fs.String("suppress", "", "JSON `file` of extra noise rules (and disable_noise) for the leaks view")
	var inflate inflateFlag
	inflate.register(fs)
	registerProfileFlags(fs, stderr)
	pos, err := parse(fs, args, 1, -1)
	if err != nil {
		return err
	}
	if err := checkListen(*addr, *remote); err != nil {
		return err
	}
	cfg, err := readConfig(*suppress)
	if err != nil {
		return err
	}
	var snaps []*web.Snapshot
	for i, p := range pos {
		g, _, err := loadNth(p, i+1, len(pos), stderr, *verbose, inflate)
		if err != nil {
			return err
		}
		p := p
		snaps = append(snaps, &web.Snapshot{Path: p, Graph: g, Analyze: func() (*web.Analysis, error) {
			if err := needReferences(g, p, "the dominator tree"); err != nil {
				return nil, err
			}
			a := analyzeGraph(g, stderr, false)
			return &web.Analysis{Tree: a.tree, Paths: a.paths, Held: a.held}, nil
		}})
	}
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		return err
	}
	token, err := web.NewToken()
	if err != nil {
		ln.Close()
		return err
	}
	h := web.Handler(snaps, web.Options{Leaks: analyze.LeakOptions{Noise: cfg.noiseRules()}, AnyHost: *remote, Token: token})
	srv := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	fmt.Fprintf(stdout, "heapscope: serving %d snapshot(s) at http://%s/?token=%s (Ctrl-C to stop)\n", len(snaps), ln.Addr(), token)
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ln) }()
	select {
	case err := <-done:
		return err
	case <-ctx.Done():
	}
	shut, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	if err := srv.Shutdown(shut); err != nil && !errors.Is(err, context.DeadlineExceeded) {
		return err
	}
	return nil
}

// checkListen refuses a listen address that is not loopback unless
// remote: snapshots can hold secrets. It resolves no name: "localhost"
// is loopback, other names are not.
func checkListen(addr string, remote bool) error {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return usagef("--http wants host:port, such as 127.0.0.1:8080: %v", err)
	}
	if !remote && !web.LoopbackHost(host) {
		return usagef("--http %s is not a loopback address: snapshots can hold secrets, so heapscope serves 127.0.0.1 (or [::1], localhost) only; add --allow-remote to serve %s anyway", addr, host)
	}
	return nil
}
