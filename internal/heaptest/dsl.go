// Package heaptest builds small heap graphs from a text description and
// compares command output with golden files, for tests of analyses and
// renderers that must not depend on any snapshot format.
package heaptest

import (
	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/heapscope/heapscope/heap"
)

// Parse builds a graph from lines of the form
//
//	# a comment
//	NAME TYPE SIZE [-> EDGE ...]
//	root KIND NAME [DESCRIPTION]
//	value NAME TEXT...
//	name NAME TEXT...           (the object's own name, see heap.Graph.Name)
//	refcount NAME N
//	digest NAME N
//	limit NAME N                (the most entries it holds, see heap.Graph.Limit)
//	flags NAME FLAG[,FLAG...]   (gctracked, immortal, opaque, synthetic, transient, interned, whole)
//	site NAME FRAME [FRAME...]  (the allocation stack, innermost first)
//	runtime NAME
//	live                        (every object was alive: heap.Meta.Live)
//
// where a TYPE holds no spaces but may write one as + (system+/+Context,
// as a URL query does), FRAME is [FUNCTION@]FILE:LINE[:COLUMN], and
// EDGE is TARGET, LABEL=TARGET, [I]=TARGET (I a number: an index), or any of these prefixed
// by an edge kind and a colon (weak:cache=b, internal:[0]=c). Objects get
// IDs in the order they are declared and address 0x1000+16*ID, unless the
// name is written NAME@HEXADDR; edges may name objects declared later.
func Parse(src string) (*heap.Graph, error) {
	b := heap.NewBuilder(heap.ByID)
	ids := map[string]heap.ObjectID{}
	lines := strings.Split(src, "\n")
	type objLine struct {
		id    heap.ObjectID
		edges []string
		line  int
	}
	var objs []objLine
	meta := heap.Meta{Runtime: "test"}
	for n, line := range lines {
		f := strings.Fields(line)
		if len(f) == 0 || strings.HasPrefix(f[0], "#") {
			continue
		}
		switch f[0] {
		case "root", "value", "name", "refcount", "digest", "limit", "flags", "site":
			continue // second pass
		case "live":
			meta.Live = true
			continue
		case "runtime":
			if len(f) != 2 {
				return nil, fmt.Errorf("line %d: runtime takes one word", n+1)
			}
			meta.Runtime = f[1]
			continue
		}
		if len(f) < 3 {
			return nil, fmt.Errorf("line %d: want NAME TYPE SIZE [-> EDGES]", n+1)
		}
		size, err := strconv.ParseUint(f[2], 10, 64)
		if err != nil {
			return nil, fmt.Errorf("line %d: size: %v", n+1, err)
		}
		name, addrText, hasAddr := strings.Cut(f[0], "@")
		if _, dup := ids[name]; dup {
			return nil, fmt.Errorf("line %d: %s declared twice", n+1, name)
		}
		addr := 0x1000 + 16*uint64(len(ids))
		if hasAddr {
			a, err := strconv.ParseUint(strings.TrimPrefix(addrText, "0x"), 16, 64)
			if err != nil {
				return nil, fmt.Errorf("line %d: address: %v", n+1, err)
			}
			addr = a
		}
		id := b.Object(addr, b.Type(strings.ReplaceAll(f[1], "+", " ")), size)
		ids[name] = id
		var edges []string
		if len(f) > 3 {
			if f[3] != "->" {
				return nil, fmt.Errorf("line %d: want -> after the size", n+1)
			}
			edges = f[4:]
		}
		objs = append(objs, objLine{id, edges, n + 1})
	}
	for _, o := range objs {
		for _, e := range o.edges {
			kind := heap.Strong
			if k, rest, ok := strings.Cut(e, ":"); ok {
				switch k {
				case "strong":
				case "weak":
					kind = heap.Weak
				case "internal":
					kind = heap.Internal
				case "shortcut":
					kind = heap.Shortcut
				default:
					return nil, fmt.Errorf("line %d: unknown edge kind %q", o.line, k)
				}
				e = rest
			}
			label := heap.NamedLabel(kind, 0)
			target := e
			if name, t, ok := strings.Cut(e, "="); ok {
				target = t
				if i, err := strconv.ParseUint(strings.TrimSuffix(strings.TrimPrefix(name, "["), "]"), 10, 32); err == nil &&
					strings.HasPrefix(name, "[") && strings.HasSuffix(name, "]") {
					label = heap.IndexLabel(kind, i)
				} else {
					label = heap.NamedLabel(kind, b.String(name))
				}
			}
			to, ok := ids[target]
			if !ok {
				return nil, fmt.Errorf("line %d: no object %s", o.line, target)
			}
			b.Edge(o.id, uint64(to), label)
		}
	}
	sites := map[string]heap.SiteID{}
	for n, line := range lines {
		f := strings.Fields(line)
		if len(f) == 0 {
			continue
		}
		switch f[0] {
		case "site":
			id, ok := ids[f[1]]
			if !ok || len(f) < 3 {
				return nil, fmt.Errorf("line %d: want site NAME FRAME...", n+1)
			}
			s := heap.NoSite
			for i := len(f) - 1; i >= 2; i-- {
				key := strings.Join(f[i:], " ")
				if known, ok := sites[key]; ok {
					s = known
					continue
				}
				fr, err := parseFrame(b, f[i])
				if err != nil {
					return nil, fmt.Errorf("line %d: %v", n+1, err)
				}
				s = b.AddSite(s, fr)
				sites[key] = s
			}
			b.SetSite(id, s)
		case "root":
			if len(f) < 3 {
				return nil, fmt.Errorf("line %d: want root KIND NAME", n+1)
			}
			kind, ok := rootKinds[f[1]]
			if !ok {
				return nil, fmt.Errorf("line %d: unknown root kind %q", n+1, f[1])
			}
			id, ok := ids[f[2]]
			if !ok {
				return nil, fmt.Errorf("line %d: no object %s", n+1, f[2])
			}
			b.Root(kind, uint64(id), b.String(strings.Join(f[3:], " ")))
		case "value":
			id, ok := ids[f[1]]
			if !ok || len(f) < 2 {
				return nil, fmt.Errorf("line %d: want value NAME TEXT", n+1)
			}
			b.SetValue(id, strings.Join(f[2:], " "))
		case "name":
			id, ok := ids[f[1]]
			if !ok || len(f) < 3 {
				return nil, fmt.Errorf("line %d: want name NAME TEXT", n+1)
			}
			b.SetName(id, b.String(strings.Join(f[2:], " ")))
		case "digest":
			id, ok := ids[f[1]]
			if !ok || len(f) != 3 {
				return nil, fmt.Errorf("line %d: want digest NAME N", n+1)
			}
			d, err := strconv.ParseUint(f[2], 0, 64)
			if err != nil {
				return nil, fmt.Errorf("line %d: %v", n+1, err)
			}
			b.SetDigest(id, d)
		case "limit":
			id, ok := ids[f[1]]
			if !ok || len(f) != 3 {
				return nil, fmt.Errorf("line %d: want limit NAME N", n+1)
			}
			l, err := strconv.ParseUint(f[2], 10, 64)
			if err != nil {
				return nil, fmt.Errorf("line %d: %v", n+1, err)
			}
			b.SetLimit(id, l)
		case "flags":
			id, ok := ids[f[1]]
			if !ok || len(f) != 3 {
				return nil, fmt.Errorf("line %d: want flags NAME FLAG,...", n+1)
			}
			var fl heap.Flags
			for _, name := range strings.Split(f[2], ",") {
				switch name {
				case "gctracked":
					fl |= heap.FlagGCTracked
				case "immortal":
					fl |= heap.FlagImmortal
				case "opaque":
					fl |= heap.FlagOpaque
				case "synthetic":
					fl |= heap.FlagSynthetic
				case "transient":
					fl |= heap.FlagTransient
				case "interned":
					fl |= heap.FlagInterned
				case "whole":
					fl |= heap.FlagWhole
				default:
					return nil, fmt.Errorf("line %d: unknown flag %q", n+1, name)
				}
			}
			b.SetFlags(id, fl)
		case "refcount":
			id, ok := ids[f[1]]
			if !ok || len(f) != 3 {
				return nil, fmt.Errorf("line %d: want refcount NAME N", n+1)
			}
			c, err := strconv.ParseUint(f[2], 10, 32)
			if err != nil {
				return nil, fmt.Errorf("line %d: %v", n+1, err)
			}
			b.SetRefcount(id, uint32(c))
		}
	}
	b.SetMeta(meta)
	return b.Build()
}

// parseFrame reads [FUNCTION@]FILE:LINE[:COLUMN].
func parseFrame(b *heap.Builder, s string) (heap.Frame, error) {
	var fr heap.Frame
	if fn, rest, ok := strings.Cut(s, "@"); ok {
		fr.Function, s = b.String(fn), rest
	}
	parts := strings.Split(s, ":")
	if len(parts) < 2 || len(parts) > 3 {
		return fr, fmt.Errorf("frame %q: want [FUNCTION@]FILE:LINE[:COLUMN]", s)
	}
	fr.File = b.String(parts[0])
	for i, dst := range []*uint32{&fr.Line, &fr.Column}[:len(parts)-1] {
		v, err := strconv.ParseUint(parts[i+1], 10, 32)
		if err != nil {
			return fr, fmt.Errorf("frame %q: %v", s, err)
		}
		*dst = uint32(v)
	}
	return fr, nil
}

var rootKinds = map[string]heap.RootKind{}

func init() {
	for k := heap.RootOther; k <= heap.RootVM; k++ {
		rootKinds[k.String()] = k
	}
}

// MustParse is Parse for tests: it fails the test on error.
func MustParse(t testing.TB, src string) *heap.Graph {
	t.Helper()
	g, err := Parse(src)
	if err != nil {
		t.Fatalf("heaptest.Parse: %v", err)
	}
	if err := g.Validate(); err != nil {
		t.Fatalf("Validate: %v", err)
	}
	return g
}
