// Package metrics serves the latest census of a running program's heap
// (objects and bytes per type) for Prometheus to scrape, as heapscope
// run --metrics does: a census comes in (from a Python census snapshot,
// a JVM's class histogram, any snapshot's summary) and replaces the one
// before; a scrape of /metrics gets it in the OpenMetrics text format
// (or Prometheus's text format 0.0.4 to a scraper that asks for it).
//
// Cardinality is bounded: the types with the most bytes have a series of
// their own, the rest are summed as type="other". Heapscope keeps no
// history; Prometheus does.
package metrics

import (
	"cmp"
	"fmt"
	"io"
	"math"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Type is the objects of one type in a census.
type Type struct {
	Name         string
	Count, Bytes uint64
}

// Census is the objects and bytes per type of one heap at one time.
type Census struct {
	Time    time.Time // when it was taken
	Runtime string    // python, java, v8
	Types   []Type    // any order; one row per name
}

// Other is the type label of the types a census's top leaves out.
const Other = "other"

// Server holds the latest census and serves it. It is safe for
// concurrent use.
type Server struct {
	top int

	mu       sync.Mutex
	latest   *Census
	censuses uint64
	failures uint64
}

// NewServer returns a server that gives the top types with the most
// bytes a series each (at least 1).
func NewServer(top int) *Server { return &Server{top: max(top, 1)} }

// Update makes c the census served.
func (s *Server) Update(c Census) {
	c.Types = cutTypes(c.Types, s.top)
	s.mu.Lock()
	defer s.mu.Unlock()
	s.latest = &c
	s.censuses++
}

// Failed counts a census that could not be taken or read.
func (s *Server) Failed() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.failures++
}

// cutTypes returns the top types by bytes (then count, then name) and,
// when there are more, one row named Other with the sum of the rest.
func cutTypes(ts []Type, top int) []Type {
	ts = slices.Clone(ts)
	slices.SortFunc(ts, func(a, b Type) int {
		return cmp.Or(cmp.Compare(b.Bytes, a.Bytes), cmp.Compare(b.Count, a.Count), cmp.Compare(a.Name, b.Name))
	})
	if len(ts) <= top {
		return ts
	}
	rest := Type{Name: Other}
	for _, t := range ts[top:] {
		rest.Count += t.Count
		rest.Bytes += t.Bytes
	}
	return append(ts[:top:top], rest)
}

// openMetrics is the content type of the OpenMetrics text format.
const openMetrics = "application/openmetrics-text; version=1.0.0; charset=utf-8"

// textFormat is the content type of Prometheus's text format.
const textFormat = "text/plain; version=0.0.4; charset=utf-8"

// ServeHTTP answers GET /metrics with the latest census, in the
// OpenMetrics text format unless the scraper's Accept header asks for
// Prometheus's text format only.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path != "/metrics" {
		http.NotFound(w, r)
		return
	}
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		w.Header().Set("Allow", "GET, HEAD")
		http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
		return
	}
	om := wantsOpenMetrics(r.Header.Get("Accept"))
	if om {
		w.Header().Set("Content-Type", openMetrics)
	} else {
		w.Header().Set("Content-Type", textFormat)
	}
	s.Write(w, om)
}

// wantsOpenMetrics reports whether an Accept header takes OpenMetrics:
// when it names it, or names nothing (curl, a browser's */* aside).
func wantsOpenMetrics(accept string) bool {
	if accept == "" {
		return true
	}
	return strings.Contains(accept, "application/openmetrics-text")
}

// Write writes the exposition: OpenMetrics when om, else Prometheus's
// text format 0.0.4 (no UNIT lines, no # EOF).
func (s *Server) Write(w io.Writer, om bool) error {
	s.mu.Lock()
	c, n, failed := s.latest, s.censuses, s.failures
	s.mu.Unlock()
	var b strings.Builder
	family := func(name, typ, unit, help string) {
		sample := name
		if typ == "counter" && !om {
			sample = name + "_total"
		}
		fmt.Fprintf(&b, "# TYPE %s %s\n", sample, typ)
		if unit != "" && om {
			fmt.Fprintf(&b, "# UNIT %s %s\n", name, unit)
		}
		fmt.Fprintf(&b, "# HELP %s %s\n", sample, help)
	}
	if c != nil {
		family("heapscope_objects", "gauge", "", "Objects of each type in the latest census of the heap: the types with the most bytes, the rest summed as the type other.")
		for _, t := range c.Types {
			fmt.Fprintf(&b, "heapscope_objects{type=\"%s\"} %d\n", escape(t.Name), t.Count)
		}
		family("heapscope_bytes", "gauge", "bytes", "Shallow bytes of the objects of each type in the latest census of the heap: the types with the most bytes, the rest summed as the type other.")
		for _, t := range c.Types {
			fmt.Fprintf(&b, "heapscope_bytes{type=\"%s\"} %d\n", escape(t.Name), t.Bytes)
		}
		var objs, bytes uint64
		for _, t := range c.Types {
			objs += t.Count
			bytes += t.Bytes
		}
		family("heapscope_heap_objects", "gauge", "", "Objects in the latest census of the heap.")
		fmt.Fprintf(&b, "heapscope_heap_objects{runtime=\"%s\"} %d\n", escape(c.Runtime), objs)
		family("heapscope_heap_bytes", "gauge", "bytes", "Shallow bytes of the objects in the latest census of the heap.")
		fmt.Fprintf(&b, "heapscope_heap_bytes{runtime=\"%s\"} %d\n", escape(c.Runtime), bytes)
		if !c.Time.IsZero() {
			family("heapscope_census_timestamp_seconds", "gauge", "seconds", "When the latest census was taken, in seconds since the epoch.")
			fmt.Fprintf(&b, "heapscope_census_timestamp_seconds %s\n", float(float64(c.Time.UnixNano())/1e9))
		}
	}
	family("heapscope_censuses", "counter", "", "Censuses of the heap taken and read.")
	fmt.Fprintf(&b, "heapscope_censuses_total %d\n", n)
	family("heapscope_census_failures", "counter", "", "Censuses that could not be taken or read.")
	fmt.Fprintf(&b, "heapscope_census_failures_total %d\n", failed)
	if om {
		b.WriteString("# EOF\n")
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// escape writes a label value as both formats want: backslash, double
// quote and line feed escaped; bytes that are not UTF-8 replaced.
func escape(s string) string {
	s = strings.ToValidUTF8(s, "\uFFFD")
	return strings.NewReplacer(`\`, `\\`, `"`, `\"`, "\n", `\n`).Replace(s)
}

func float(f float64) string {
	if math.IsInf(f, 0) || math.IsNaN(f) {
		return "NaN"
	}
	return strconv.FormatFloat(f, 'f', 3, 64)
}
