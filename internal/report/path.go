package report

import (
	"slices"
	"strings"

	"github.com/heapscope/heapscope/analyze"
	"github.com/heapscope/heapscope/heap"
)

// rootText describes where a path starts: "module app", "stack thread
// MainThread", "held outside the heap"; a name that already says its kind
// stands alone ("sticky class", not "class sticky class").
func rootText(kind heap.RootKind, name string) string {
	if name == analyze.NativeRootName {
		return name
	}
	if name == "" {
		return kind.String() + " root"
	}
	if slices.Contains(strings.Fields(name), kind.String()) {
		return name
	}
	return kind.String() + " " + name
}

// skipNamespace reports whether step i is a namespace dict (a module's or
// an instance's __dict__) whose entries are named as attributes: the path
// reads better as "module app -> .cache dict" than through the dict.
func skipNamespace(edges []string, types []string, i int) bool {
	return edges[i] == "__dict__" && strings.HasPrefix(types[i], "dict") &&
		i+1 < len(edges) && strings.HasPrefix(edges[i+1], ".")
}

// pathSep joins the steps of a path.
const pathSep = " -> "

// formatSteps returns the steps "ROOT", "EDGE TYPE", "EDGE TYPE"... of a
// path, where the first type is the root object's.
func formatSteps(root string, edges, types []string, repeated []bool) []string {
	steps := []string{root}
	for i := range types {
		if i > 0 && skipNamespace(edges, types, i) {
			continue
		}
		if i == 0 && strings.HasPrefix(root, types[0]+" ") {
			continue // "module app", not "module app -> module"
		}
		var b strings.Builder
		if i > 0 && edges[i] != "" {
			b.WriteString(edges[i])
			b.WriteByte(' ')
		}
		b.WriteString(types[i])
		if repeated != nil && repeated[i] {
			b.WriteString(" (repeated)")
		}
		steps = append(steps, b.String())
	}
	return steps
}

// PathText formats a retainer path on one line, for example
// "module app -> .cache dict -> ['k1'] app.Item".
func PathText(p analyze.Path) string { return strings.Join(pathSteps(p), pathSep) }

func pathSteps(p analyze.Path) []string {
	edges := make([]string, len(p.Steps))
	types := make([]string, len(p.Steps))
	for i, s := range p.Steps {
		edges[i], types[i] = s.Edge, stepLabel(s.Type, s.Name)
		if s.Kind == heap.Weak && i > 0 {
			edges[i] = "(weak) " + edges[i]
		}
	}
	return formatSteps(rootText(p.RootKind, p.RootName), edges, types, nil)
}

// SignatureText formats a merged-path signature on one line, for example
// "module app -> .cache dict -> [*] app.Item".
func SignatureText(g analyze.PathGroup) string {
	return strings.Join(signatureSteps(g), pathSep)
}

func signatureSteps(g analyze.PathGroup) []string {
	edges := make([]string, len(g.Signature))
	types := make([]string, len(g.Signature))
	rep := make([]bool, len(g.Signature))
	for i, s := range g.Signature {
		edges[i], types[i], rep[i] = s.Edge, stepLabel(s.Type, s.Name), s.Repeated
	}
	return formatSteps(rootText(g.RootKind, g.RootName), edges, types, rep)
}

// pathJSON is a path as JSON shows it.
type pathJSON struct {
	Root  string     `json:"root"`
	Text  string     `json:"text"`
	Steps []stepJSON `json:"steps"`
}

type stepJSON struct {
	Edge string `json:"edge,omitempty"`
	Kind string `json:"kind,omitempty"`
	Type string `json:"type"`
	Name string `json:"name,omitempty"`
	Addr string `json:"addr,omitempty"`
}

func pathToJSON(g *heap.Graph, p analyze.Path) pathJSON {
	out := pathJSON{Root: rootText(p.RootKind, p.RootName), Text: PathText(p)}
	for i, s := range p.Steps {
		st := stepJSON{Edge: s.Edge, Type: s.Type, Name: s.Name}
		if i > 0 {
			st.Kind = s.Kind.String()
		}
		if g != nil {
			st.Addr = addrText(g.Addr(s.Object))
		}
		out.Steps = append(out.Steps, st)
	}
	return out
}

// addrText formats a runtime address or id as hex.
func addrText(a uint64) string {
	const digits = "0123456789abcdef"
	if a == 0 {
		return "0x0"
	}
	var buf [18]byte
	i := len(buf)
	for a > 0 {
		i--
		buf[i] = digits[a&15]
		a >>= 4
	}
	i--
	buf[i] = 'x'
	i--
	buf[i] = '0'
	return string(buf[i:])
}
