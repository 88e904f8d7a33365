package report

import (
	"fmt"
	"io"
	"path/filepath"
	"time"

	"github.com/google/pprof/profile"

	"github.com/heapscope/heapscope/analyze"
)

// Pprof is --format pprof: a gzipped profile.proto, the format of Go's
// pprof, which flame graph viewers read. It is for top and summary
// only (see [PprofTop] and [PprofSummary]); [ParseFormat] accepts it.
const Pprof Format = 103

// Sample types of the profiles: every sample has the two values.
var pprofTypes = []*profile.ValueType{{Type: "objects", Unit: "count"}, {Type: "space", Unit: "bytes"}}

// PprofTop writes the dominator chains c of the snapshot src as a
// profile whose samples are the frames of c: the stack of a sample is
// its frame and the frames above it, innermost first, as profile.proto
// orders a stack, and its values are the objects counted in the frame
// and their shallow bytes. A viewer that sums a frame's samples and
// those below it (a flame graph, "cum" in pprof) shows what the frame's
// objects retain. Each label is one function and one location; taken
// is when the snapshot was taken (zero: unknown).
func PprofTop(w io.Writer, src Source, taken time.Time, c analyze.DomChains) error {
	p := newPprof(src, taken)
	p.Comments = append(p.Comments,
		"stacks are dominator chains from the roots: a frame's total is what its objects retain",
		fmt.Sprintf("a frame whose objects retain less than %s bytes is a leaf named by their type, with what was below it (%s objects counted so)", Count(int(c.MinRetained)), Count(c.Folded)))
	locs := make([]*profile.Location, len(c.Frames))
	for i, f := range c.Frames {
		locs[i] = p.location(f.Label)
		if f.Count == 0 {
			continue
		}
		stack := make([]*profile.Location, 0, f.Depth+1)
		for k := int32(i); k >= 0; k = c.Frames[k].Parent {
			stack = append(stack, locs[k])
		}
		p.Sample = append(p.Sample, &profile.Sample{Location: stack, Value: []int64{int64(f.Count), clampInt64(f.Bytes)}})
	}
	return p.Write(w)
}

// PprofSummary writes the rows of a summary as a profile with one
// sample per type, whose stack is the type alone: what a viewer of
// profiles compares between two snapshots of a census.
func PprofSummary(w io.Writer, src Source, taken time.Time, rows []analyze.TypeSummary) error {
	p := newPprof(src, taken)
	p.Comments = append(p.Comments, "one sample per type: its objects and their shallow bytes")
	for _, r := range rows {
		p.Sample = append(p.Sample, &profile.Sample{
			Location: []*profile.Location{p.location(r.Type)},
			Value:    []int64{int64(r.Count), clampInt64(r.Bytes)},
		})
	}
	return p.Write(w)
}

// pprofBuilder is a profile with a location per distinct label.
// Its one mapping, named after the snapshot, says that locations carry
// their functions, so that viewers look for no binary to read symbols
// from.
type pprofBuilder struct {
	*profile.Profile
	locs map[string]*profile.Location
}

func newPprof(src Source, taken time.Time) *pprofBuilder {
	p := &pprofBuilder{Profile: &profile.Profile{
		SampleType:        pprofTypes,
		DefaultSampleType: "space",
		PeriodType:        pprofTypes[1],
		Period:            1,
		Comments:          []string{"heapscope: " + Header(src)},
		Mapping:           []*profile.Mapping{{ID: 1, File: filepath.Base(src.Path), HasFunctions: true}},
	}, locs: map[string]*profile.Location{}}
	if !taken.IsZero() {
		p.TimeNanos = taken.UnixNano()
	}
	return p
}

// location returns the location whose one line is the function label.
func (p *pprofBuilder) location(label string) *profile.Location {
	if l, ok := p.locs[label]; ok {
		return l
	}
	id := uint64(len(p.Location) + 1)
	fn := &profile.Function{ID: id, Name: label, SystemName: label}
	l := &profile.Location{ID: id, Mapping: p.Mapping[0], Line: []profile.Line{{Function: fn}}}
	p.Function = append(p.Function, fn)
	p.Location = append(p.Location, l)
	p.locs[label] = l
	return l
}

func clampInt64(v uint64) int64 {
	if v > 1<<63-1 {
		return 1<<63 - 1
	}
	return int64(v)
}
