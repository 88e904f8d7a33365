package report

import (
	"fmt"
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
// path, where the first type is the root object's. An edge named as the
// closure it leads to is left out: "onRequest (closure)", not "onRequest
// onRequest (closure)".
func formatSteps(root string, edges, types []string, repeated []bool) []string {
	steps := []string{root}
	for i := range types {
		if i > 0 && skipNamespace(edges, types, i) {
			continue
		}
		if i == 0 && (root == types[0] || strings.HasPrefix(root, types[0]+" ") || strings.HasSuffix(root, " "+types[0])) {
			continue // "module app", not "module app -> module" (or "-> module app"); "vm (root)", not "vm (root) -> (root)"
		}
		if i == 0 && strings.HasPrefix(types[0], root+" ") {
			steps[0] = types[0] // "thread main", not "thread -> thread main"
			continue
		}
		var b strings.Builder
		if i > 0 && edges[i] != "" && types[i] != edges[i]+" (closure)" {
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
// "module app -> .cache dict -> ['k1'] app.Item". A run of equal steps
// (one edge name, one type and object name: a linked list, a chain of
// object shapes) or of steps down a rope (analyze.RopeStep) is one step:
// "first/second (concatenated string) (706 steps)".
func PathText(p analyze.Path) string { return strings.Join(pathSteps(p), pathSep) }

// pathSteps returns the steps of p as PathText shows them, runs folded,
// for tables and wrapping to fit.
func pathSteps(p analyze.Path) []string {
	steps, runs := foldRuns(p.Steps)
	edges := make([]string, len(steps))
	types := make([]string, len(steps))
	for i, s := range steps {
		edges[i], types[i] = s.Edge, stepLabel(s.Type, s.Name)
		if s.Kind == heap.Weak && i > 0 {
			edges[i] = "(weak) " + edges[i]
		}
		if runs[i] > 1 {
			types[i] += fmt.Sprintf(" (%s steps)", Count(runs[i]))
		}
	}
	return formatSteps(rootText(p.RootKind, p.RootName), edges, types, nil)
}

// PathTextMax is [PathText] with at most max steps: a longer path
// (after its runs are folded) keeps its first and last max/2 steps and
// says how many it leaves out between them ("… 576,504 steps …"), so
// that a path down a chain of a million objects stays a line.
func PathTextMax(p analyze.Path, max int) string {
	steps := pathSteps(p)
	if len(steps) <= max {
		return strings.Join(steps, pathSep)
	}
	head, tail := steps[:max/2], steps[len(steps)-max/2:]
	gap := fmt.Sprintf("… %s steps …", Count(len(steps)-len(head)-len(tail)))
	return strings.Join(head, pathSep) + pathSep + gap + pathSep + strings.Join(tail, pathSep)
}

// FoldSteps returns the steps of a path as [PathText] shows them: each
// run of equal steps, and each run down a rope, made one step (the
// first object of the run), and how many steps each stands for.
func FoldSteps(steps []analyze.Step) ([]analyze.Step, []int) { return foldRuns(steps) }

// foldRuns returns steps with each run of equal steps, and each run of
// rope steps (its edge analyze.RopeEdge), made one step (the first
// object of the run), and how many steps each stands for.
func foldRuns(steps []analyze.Step) ([]analyze.Step, []int) {
	out := make([]analyze.Step, 0, len(steps))
	runs := make([]int, 0, len(steps))
	for i, s := range steps {
		if k := len(out) - 1; i > 0 && k > 0 {
			prev := &out[k]
			if analyze.RopeStep(s.Type, s.Edge) && analyze.RopeStep(prev.Type, prev.Edge) {
				prev.Edge = analyze.RopeEdge
				runs[k]++
				continue
			}
			if s.Type == prev.Type && s.Name == prev.Name && s.Edge == prev.Edge && s.Kind == prev.Kind {
				runs[k]++
				continue
			}
		}
		out = append(out, s)
		runs = append(runs, 1)
	}
	return out, runs
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
	// Steps is how many steps down a rope this one stands for, when more
	// than one (Addr is then the first object's).
	Steps int `json:"steps,omitempty"`
}

func pathToJSON(g *heap.Graph, p analyze.Path) pathJSON {
	out := pathJSON{Root: rootText(p.RootKind, p.RootName), Text: PathText(p)}
	steps, runs := foldRuns(p.Steps)
	for i, s := range steps {
		st := stepJSON{Edge: s.Edge, Type: s.Type, Name: s.Name}
		if runs[i] > 1 {
			st.Steps = runs[i]
		}
		if i > 0 {
			st.Kind = s.Kind.String()
		}
		if g != nil {
			st.Addr = analyze.IDText(g, s.Object)
		}
		out.Steps = append(out.Steps, st)
	}
	return out
}
