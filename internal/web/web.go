package web

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/subtle"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"html/template"
	"io/fs"
	"net"
	"net/http"
	"runtime"
	"strings"
	"sync"

	"github.com/heapscope/heapscope/analyze"
	"github.com/heapscope/heapscope/heap"
	"github.com/heapscope/heapscope/internal/web/static"
)

// Snapshot is one snapshot the page shows.
type Snapshot struct {
	Path  string
	Graph *heap.Graph
	// Analyze computes the analyses that need the snapshot's references
	// (the dominator tree and shortest paths), as the command line does.
	// It is called once, on first need, and may fail (a census has no
	// references).
	Analyze func() (*Analysis, error)

	once  sync.Once
	start sync.Once
	ready chan struct{} // closed when once has run
	an    *Analysis
	err   error
}

// Analysis is what [Snapshot.Analyze] computes.
type Analysis struct {
	Tree  *analyze.DomTree
	Paths *analyze.Retainers
	// Held are the objects held outside the heap, which Tree and Paths
	// have as extra roots.
	Held []analyze.NativeObject
}

func (s *Snapshot) analysis() (*Analysis, error) {
	s.once.Do(func() {
		if s.Analyze == nil {
			s.err = errors.New("no analysis for this snapshot")
			return
		}
		s.an, s.err = s.Analyze()
	})
	return s.an, s.err
}

// analysisCtx is analysis for a request: it gives up waiting when ctx
// ends (the client went), while the analysis goes on for the next
// request.
func (s *Snapshot) analysisCtx(ctx context.Context) (*Analysis, error) {
	s.start.Do(func() {
		s.ready = make(chan struct{})
		go func() {
			defer close(s.ready)
			s.analysis()
		}()
	})
	select {
	case <-s.ready:
		return s.an, s.err
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// Options adjusts [Handler].
type Options struct {
	// Leaks is what the leaks view applies (noise rules, scaling).
	Leaks analyze.LeakOptions
	// AnyHost accepts requests whatever their Host header says. Leave it
	// false for a server on a loopback address: a request naming another
	// host then comes through DNS rebinding and is refused.
	AnyHost bool
	// Token, when not empty, is a secret every request must carry: as
	// the token query parameter (the address heapscope web prints) or in
	// the cookie the server sets when it sees that parameter. The port is
	// open to every user of the machine; the token keeps the snapshots to
	// whoever was given the address. See [NewToken]. The JSON endpoints
	// want more than the cookie, which the browser also sends with
	// requests that pages of other servers on this machine make (they
	// are the same site): the token in the X-Heapscope-Token header,
	// which heapscope's own page sets, or as the query parameter.
	Token string
	// CacheBytes bounds the memory the results kept for later requests
	// hold, estimated (0: 256 MiB).
	CacheBytes int64
	// Workers bounds the analyses that run at once for requests (0: one
	// per CPU); the others wait, and give up when their client goes.
	Workers int
	// MaxResponse bounds the bytes of one answer (0: 16 MiB); a larger
	// one is refused with an error that says to ask for less.
	MaxResponse int
}

// TokenHeader is the request header that carries the token from
// heapscope's own page (see [Options].Token).
const TokenHeader = "X-Heapscope-Token"

// Defaults of [Options].
const (
	defaultCacheBytes  = 256 << 20
	defaultMaxResponse = 16 << 20
)

// NewToken returns a fresh secret for [Options.Token]: 128 random bits
// in hexadecimal.
func NewToken() (string, error) {
	var b [16]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", fmt.Errorf("making the web token: %w", err)
	}
	return hex.EncodeToString(b[:]), nil
}

// server is the handler's state: the snapshots and the analyses computed
// so far, each once.
type server struct {
	snaps []*Snapshot
	opt   Options
	page  *template.Template

	results *cache // by kind and arguments
}

// cached returns the value fn computes for key, for request r: kept from
// before, or computed now (see [cache.get]); fn may give up when stop
// says that every client waiting for it has gone.
func (s *server) cached(r *http.Request, key string, fn func(stop func() bool) (any, error)) (any, error) {
	return s.results.get(r.Context(), key, fn)
}

// ContentSecurityPolicy is the policy every response carries: the page
// may load scripts, styles, images and data from its own server only.
// Inline styles are allowed (the chart library styles its tooltips
// inline); inline scripts and eval are not.
const ContentSecurityPolicy = "default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'; " +
	"img-src 'self' data:; connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"

// Handler returns the web UI for snaps: the page at /, its files under
// /static/, and the JSON endpoints under /api/ (see the package doc).
func Handler(snaps []*Snapshot, opt Options) http.Handler {
	if opt.CacheBytes <= 0 {
		opt.CacheBytes = defaultCacheBytes
	}
	if opt.Workers <= 0 {
		opt.Workers = runtime.GOMAXPROCS(0)
	}
	if opt.MaxResponse <= 0 {
		opt.MaxResponse = defaultMaxResponse
	}
	s := &server{
		snaps:   snaps,
		opt:     opt,
		page:    template.Must(template.ParseFS(static.FS(), "templates/index.html")),
		results: newCache(opt.CacheBytes, opt.Workers),
	}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /{$}", s.indexPage)
	mux.HandleFunc("GET /static/{name...}", s.file)
	mux.HandleFunc("GET /api/snapshots", s.api(s.snapshots))
	mux.HandleFunc("GET /api/snapshots/{s}/summary", s.api(s.summary))
	mux.HandleFunc("GET /api/diff", s.api(s.diff))
	mux.HandleFunc("GET /api/diff/objects", s.api(s.diffObjects))
	mux.HandleFunc("GET /api/snapshots/{s}/object/{id}", s.api(s.object))
	mux.HandleFunc("GET /api/snapshots/{s}/children/{id}", s.api(s.children))
	mux.HandleFunc("GET /api/snapshots/{s}/treemap/{id}", s.api(s.treemap))
	mux.HandleFunc("GET /api/snapshots/{s}/why", s.api(s.why))
	mux.HandleFunc("GET /api/snapshots/{s}/retainers", s.api(s.neighbors(false)))
	mux.HandleFunc("GET /api/snapshots/{s}/refs", s.api(s.neighbors(true)))
	mux.HandleFunc("GET /api/snapshots/{s}/objects", s.api(s.objects))
	mux.HandleFunc("GET /api/snapshots/{s}/top", s.api(s.top))
	mux.HandleFunc("GET /api/snapshots/{s}/types", s.api(s.types))
	mux.HandleFunc("GET /api/snapshots/{s}/duplicates", s.api(s.duplicates))
	mux.HandleFunc("GET /api/leaks", s.api(s.leaks))
	mux.HandleFunc("GET /api/trend", s.api(s.trend))
	return s.guard(mux)
}

// guard refuses requests for another host (DNS rebinding) and sets the
// security headers of every response.
func (s *server) guard(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !s.opt.AnyHost && !LoopbackHost(r.Host) {
			http.Error(w, "heapscope serves loopback host names only (127.0.0.1, [::1], localhost); this request names "+fmt.Sprintf("%q", r.Host), http.StatusForbidden)
			return
		}
		if !s.admit(w, r) {
			http.Error(w, "heapscope web wants its token: open the address it printed, with ?token=", http.StatusForbidden)
			return
		}
		if strings.HasPrefix(r.URL.Path, "/api/") {
			if why := s.fromPage(r); why != "" {
				http.Error(w, "heapscope web answers its own page only: "+why, http.StatusForbidden)
				return
			}
		}
		h := w.Header()
		h.Set("Content-Security-Policy", ContentSecurityPolicy)
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("Referrer-Policy", "no-referrer")
		h.Set("X-Frame-Options", "DENY")
		h.Set("Cross-Origin-Resource-Policy", "same-origin")
		next.ServeHTTP(w, r)
	})
}

// tokenCookie is the name of the cookie that carries the token for the
// server on host's port: servers on other ports of the same host are
// sent each other's cookies, and must not overwrite them.
func tokenCookie(host string) string {
	name := "heapscope"
	if _, port, err := net.SplitHostPort(host); err == nil && port != "" {
		name += "-" + port
	}
	return name
}

// admit reports whether r carries the token (always, when there is none):
// in the cookie, the header or the address.
// A request that brings it as a query parameter gets it back as a cookie,
// so that the page's own requests carry it without putting it in every
// address.
func (s *server) admit(w http.ResponseWriter, r *http.Request) bool {
	if s.opt.Token == "" {
		return true
	}
	want := []byte(s.opt.Token)
	name := tokenCookie(r.Host)
	if c, err := r.Cookie(name); err == nil && subtle.ConstantTimeCompare([]byte(c.Value), want) == 1 {
		return true
	}
	if subtle.ConstantTimeCompare([]byte(r.Header.Get(TokenHeader)), want) == 1 {
		return true
	}
	if subtle.ConstantTimeCompare([]byte(r.URL.Query().Get("token")), want) != 1 {
		return false
	}
	http.SetCookie(w, &http.Cookie{Name: name, Value: s.opt.Token, Path: "/", HttpOnly: true, SameSite: http.SameSiteStrictMode})
	return true
}

// fromPage returns why an API request does not come from heapscope's
// own page, or "" when it may. A page served elsewhere on this machine
// (another port of 127.0.0.1 is the same site to the browser, which
// sends it the token cookie) is told apart three ways: the browser says
// where a request comes from (Sec-Fetch-Site: same-origin, or none for
// an address typed in), its Origin header names another server, and it
// cannot set the token header without the server's consent (a
// preflight this server never gives) nor know the token to put in the
// address.
func (s *server) fromPage(r *http.Request) string {
	switch site := r.Header.Get("Sec-Fetch-Site"); site {
	case "", "same-origin", "none":
	default:
		return fmt.Sprintf("this request comes from another site (Sec-Fetch-Site: %s)", site)
	}
	if o := r.Header.Get("Origin"); o != "" && o != "http://"+r.Host && o != "https://"+r.Host {
		return fmt.Sprintf("this request comes from %q", o)
	}
	if s.opt.Token == "" {
		return ""
	}
	want := []byte(s.opt.Token)
	if subtle.ConstantTimeCompare([]byte(r.Header.Get(TokenHeader)), want) == 1 ||
		subtle.ConstantTimeCompare([]byte(r.URL.Query().Get("token")), want) == 1 {
		return ""
	}
	return "the token is missing (the " + TokenHeader + " header, or ?token=)"
}

// LoopbackHost reports whether host (a Host header or a listen address,
// with or without a port) names the loopback interface: localhost, an
// address in 127.0.0.0/8, or ::1. It resolves no name.
func LoopbackHost(host string) bool {
	if h, _, err := net.SplitHostPort(host); err == nil {
		host = h
	}
	host = strings.TrimSuffix(strings.TrimPrefix(host, "["), "]")
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

func (s *server) indexPage(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	// The page hands the token back in a header (see fromPage); only a
	// request that already carries it gets this far, and only a page of
	// this server can read the answer.
	if err := s.page.Execute(w, s.opt.Token); err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
	}
}

func (s *server) file(w http.ResponseWriter, r *http.Request) {
	name := r.PathValue("name")
	if !static.Public(name) {
		http.NotFound(w, r)
		return
	}
	if _, err := fs.Stat(static.FS(), name); err != nil {
		http.NotFound(w, r)
		return
	}
	if strings.HasPrefix(name, "echarts/LICENSE") || strings.HasPrefix(name, "echarts/NOTICE") {
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	}
	http.ServeFileFS(w, r, static.FS(), name)
}

// httpError is an error with the status it answers.
type httpError struct {
	code int
	msg  string
}

func (e *httpError) Error() string { return e.msg }

func badRequest(format string, args ...any) error {
	return &httpError{http.StatusBadRequest, fmt.Sprintf(format, args...)}
}

func notFound(format string, args ...any) error {
	return &httpError{http.StatusNotFound, fmt.Sprintf(format, args...)}
}

// api adapts an endpoint that returns a value to an http.HandlerFunc
// that writes it as JSON, or the error as {"error": "..."}. An answer
// over Options.MaxResponse bytes is refused with an error, and nothing
// is written to a client that has gone.
func (s *server) api(fn func(r *http.Request) (any, error)) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Cache-Control", "no-store")
		v, err := fn(r)
		if r.Context().Err() != nil {
			return // the client went: no one reads the answer
		}
		code := http.StatusOK
		var body []byte
		if err == nil {
			if body, err = encodeJSON(v, s.opt.MaxResponse); err != nil {
				err = &httpError{http.StatusInternalServerError, fmt.Sprintf("the answer is over %d MiB: ask for less (a smaller page, a narrower selector)", s.opt.MaxResponse>>20)}
			}
		}
		if err != nil {
			code = http.StatusUnprocessableEntity
			var he *httpError
			if errors.As(err, &he) {
				code = he.code
			}
			body, _ = encodeJSON(struct {
				Error string `json:"error"`
			}{shorten(err.Error())}, s.opt.MaxResponse)
		}
		w.WriteHeader(code)
		w.Write(body)
	}
}

// encodeJSON encodes v as the endpoints do, failing once the encoding
// passes max bytes.
func encodeJSON(v any, max int) ([]byte, error) {
	lw := &limitedBuffer{max: max}
	enc := json.NewEncoder(lw)
	enc.SetIndent("", " ")
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return lw.buf.Bytes(), nil
}

// errTooLarge is what a limitedBuffer says when it is full.
var errTooLarge = errors.New("answer too large")

// limitedBuffer is a buffer that refuses to grow past max bytes.
type limitedBuffer struct {
	buf bytes.Buffer
	max int
}

func (b *limitedBuffer) Write(p []byte) (int, error) {
	if b.buf.Len()+len(p) > b.max {
		return 0, errTooLarge
	}
	return b.buf.Write(p)
}
