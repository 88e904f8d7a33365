package main

import (
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/heapscope/heapscope/heap"
)

// origin is what a snapshot records of where and when it was taken. A
// fact the format does not record is left unknown, never guessed:
//
//	runtime  python, java, v8            every format
//	pid      the process                 Python (the agent's "pid")
//	time     when it was taken           Python (the agent's "time", to the
//	                                     microsecond), HPROF (its header, to
//	                                     the second as read)
type origin struct {
	path    string
	runtime string
	pid     string    // "" when unknown
	time    time.Time // zero when unknown
}

func originOf(path string, g *heap.Graph) origin {
	m := g.Meta()
	o := origin{path: path, runtime: m.Runtime}
	switch m.Runtime {
	case "python":
		if p, err := strconv.ParseUint(m.Attrs["pid"], 10, 64); err == nil {
			o.pid = strconv.FormatUint(p, 10)
		}
		if t, err := strconv.ParseFloat(m.Attrs["time"], 64); err == nil && t > 0 {
			sec := int64(t)
			o.time = time.Unix(sec, int64((t-float64(sec))*1e9)).UTC()
		}
	case "java":
		if t, err := time.Parse(time.RFC3339, m.Attrs["dump time"]); err == nil {
			o.time = t.UTC()
		}
	}
	return o
}

// when formats o's time for a message.
func (o origin) when() string {
	return o.time.Format("2006-01-02 15:04:05.000 UTC")
}

// mixedFlag is the flag of leaks, check and trend that accepts
// snapshots of different processes, or out of time order.
const mixedFlag = "allow-mixed"

const mixedUsage = "accept snapshots of different processes or out of time order (never of different runtimes)"

// series checks snapshots as a command loads them, one by one, so that
// a command refuses early what cannot be compared: snapshots of
// different runtimes always; for a command that follows one process
// over time (leaks, check, trend), snapshots of different processes or
// out of the order they were taken in, unless mixed.
type series struct {
	cmd     string // the command, for messages
	mixed   bool
	origins []origin
}

// add checks the snapshot at path, just loaded, against those before it.
func (s *series) add(path string, g *heap.Graph) error {
	o := originOf(path, g)
	s.origins = append(s.origins, o)
	first := s.origins[0]
	if err := sameRuntime(s.cmd, first, o); err != nil {
		return err
	}
	if s.mixed || o.pid == "" {
		return nil
	}
	for _, p := range s.origins {
		if p.pid != "" && p.pid != o.pid {
			return usagef("%s follows one process over time, but %s is of process %s and %s of process %s; "+
				"pass --%s if you mean to compare different processes", s.cmd, p.path, p.pid, o.path, o.pid, mixedFlag)
		}
	}
	return nil
}

// inOrder checks, once every snapshot is loaded, that those whose time
// is known were given in the order they were taken.
func (s *series) inOrder() error {
	if s.mixed {
		return nil
	}
	var last *origin
	for i := range s.origins {
		o := &s.origins[i]
		if o.time.IsZero() {
			continue
		}
		if last != nil && o.time.Before(last.time) {
			return usagef("%s wants snapshots in the order they were taken, but %s (%s) comes after %s (%s), which was taken later; "+
				"in time order: heapscope %s %s", s.cmd, o.path, o.when(), last.path, last.when(),
				s.cmd, strings.Join(timeOrder(s.origins), " "))
		}
		last = o
	}
	return nil
}

// distinctStart fails when the first two snapshots of the series are one
// snapshot (one file, or two copies of a capture: one process and one
// time): nothing can be new between them, so the three-snapshot rule
// would find nothing and say so, whatever the program does.
func (s *series) distinctStart() error {
	if len(s.origins) < 2 {
		return nil
	}
	a, b := s.origins[0], s.origins[1]
	same := a.path == b.path
	if fa, err := os.Stat(a.path); err == nil {
		if fb, err := os.Stat(b.path); err == nil {
			same = same || os.SameFile(fa, fb)
		}
	}
	same = same || !a.time.IsZero() && a.time.Equal(b.time) && a.pid == b.pid && a.pid != ""
	if same {
		return usagef("%s compares a baseline with a target taken later, but %s and %s are one snapshot: nothing can be new in it; "+
			"take the target after some work (heapscope %s BASELINE TARGET FINAL)", s.cmd, a.path, b.path, s.cmd)
	}
	return nil
}

// timeOrder returns the paths of os with those whose time is known
// sorted by it, in the places they hold; the others stay where they are.
func timeOrder(os []origin) []string {
	var known []origin
	for _, o := range os {
		if !o.time.IsZero() {
			known = append(known, o)
		}
	}
	slices.SortStableFunc(known, func(a, b origin) int { return a.time.Compare(b.time) })
	out := make([]string, len(os))
	k := 0
	for i, o := range os {
		if o.time.IsZero() {
			out[i] = o.path
			continue
		}
		out[i] = known[k].path
		k++
	}
	return out
}

// sameRuntime fails when a and b come from different runtimes: no
// command compares a Python heap with a Java one.
func sameRuntime(cmd string, a, b origin) error {
	if a.runtime == b.runtime {
		return nil
	}
	return usagef("%s is a %s snapshot and %s a %s one: %s compares snapshots of one runtime",
		a.path, a.runtime, b.path, b.runtime, cmd)
}

// diffWarning returns a warning when before was taken after after: diff
// compares any two snapshots of one runtime (before and after a change
// of code are two processes), but growth then reads as shrinking.
func diffWarning(before, after origin) string {
	if before.time.IsZero() || after.time.IsZero() || !after.time.Before(before.time) {
		return ""
	}
	return fmt.Sprintf("warning: BEFORE %s (%s) was taken after AFTER %s (%s): what grew shows as shrinking; swap them if that is not what you mean",
		before.path, before.when(), after.path, after.when())
}
