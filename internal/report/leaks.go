package report

import (
	"fmt"
	"io"
	"strings"

	"github.com/heapscope/heapscope/analyze"
	"github.com/heapscope/heapscope/heap"
)

// findingJSON is one leak finding as JSON shows it.
type findingJSON struct {
	Text      string   `json:"text"`
	Type      string   `json:"type"`
	Element   string   `json:"element,omitempty"`
	Holder    string   `json:"holder,omitempty"`
	Place     string   `json:"place,omitempty"`
	Classes   string   `json:"classes,omitempty"`
	Types     int      `json:"types,omitempty"`
	Where     string   `json:"where,omitempty"`
	Count     int      `json:"count"`
	Retained  uint64   `json:"retained_bytes"`
	Bytes     uint64   `json:"shallow_bytes"`
	Growth    int      `json:"growth,omitempty"`
	Noise     string   `json:"noise,omitempty"`
	Counts    []int    `json:"counts,omitempty"`
	Path      string   `json:"path"`
	Sample    pathJSON `json:"sample_path"`
	Signature []string `json:"signature"`
	Detached  bool     `json:"detached,omitempty"` // the objects are or hold detached DOM nodes
	// Allocated says where the finding's objects were allocated, when
	// the snapshot records it.
	Allocated *allocJSON `json:"allocated,omitempty"`
}

func findingsJSON(g *heap.Graph, fs []analyze.LeakFinding) []findingJSON {
	out := []findingJSON{}
	for _, f := range fs {
		j := findingJSON{
			Text: FindingText(f), Type: f.Type, Classes: f.Classes, Types: f.Types, Element: f.Element, Where: f.Where, Count: f.Count, Retained: f.Retained, Bytes: f.Bytes,
			Growth: f.Growth, Noise: f.Noise, Counts: f.Counts, Path: SignatureText(f.PathGroup),
			Sample: pathToJSON(g, f.Sample), Allocated: allocToJSON(f.Alloc), Detached: f.Detached,
		}
		if f.Holder >= 0 && f.Holder < len(f.Sample.Steps) {
			st := f.Sample.Steps[f.Holder]
			j.Holder = stepLabel(st.Type, st.Name)
			if st.Name == "" {
				j.Place = PlaceText(holderPath(f))
			}
		} else {
			j.Place = PlaceText(groupEdge(f.PathGroup, f.Sample))
		}
		for _, s := range f.Signature {
			j.Signature = append(j.Signature, s.Edge+" "+stepLabel(s.Type, s.Name))
		}
		out = append(out, j)
	}
	return out
}

// holderPath is the part of a finding's sample path that leads to its
// holder.
func holderPath(f analyze.LeakFinding) analyze.Path {
	p := f.Sample
	p.Steps = p.Steps[:f.Holder+1]
	return groupEdge(f.PathGroup, p)
}

// groupEdge returns p, a prefix of grp's sample path, with its last
// step's edge as the group's signature has it when that edge is "[*]":
// the objects of one group sit at many indices or keys (1,771 strings in
// the arrays at java.lang.Object[][*], not all at the sample's [2007]).
// A prefix that cannot be matched to the signature (a run of steps was
// folded after it) is returned as it is.
func groupEdge(grp analyze.PathGroup, p analyze.Path) analyze.Path {
	n, sig := len(p.Steps), grp.Signature
	j := len(sig) - 1 - (len(grp.Sample.Steps) - n)
	if n == 0 || j < 0 || j >= len(sig) {
		return p
	}
	for _, s := range sig[j:] {
		if s.Repeated {
			return p
		}
	}
	last := p.Steps[n-1]
	if sig[j].Edge != "[*]" || last.Edge == "[*]" || sig[j].Type != last.Type {
		return p
	}
	p.Steps = append(p.Steps[:n-1:n-1], last)
	p.Steps[n-1].Edge = "[*]"
	return p
}

// LeakLabel names what a finding's objects are: their type, the family
// of classes they are, or the pattern of the types they are instances
// of ("f_* (instances of 60 classes)").
func LeakLabel(f analyze.LeakFinding) string {
	if f.Types > 0 {
		return fmt.Sprintf("%s (instances of %s classes)", f.Type, Count(f.Types))
	}
	return TypeLabel(f.Type, f.Classes)
}

// FindingText says in one line what leaked and where, in the program's
// terms: "900 app.Session in java.util.HashMap at class
// app.Cache.SESSIONS" (the elements of a container's entries, the
// container and where it is), or "1 list at module app.log"; a finding
// whose objects hold detached DOM nodes says so ("(holds detached
// DOM)"; detached nodes themselves are named "Detached <li>").
func FindingText(f analyze.LeakFinding) string {
	s := findingText(f)
	if f.Detached && !strings.HasPrefix(f.Type, "Detached ") {
		s += " (holds detached DOM)"
	}
	return s
}

func findingText(f analyze.LeakFinding) string {
	what := LeakLabel(f)
	if f.Element != "" {
		what = f.Element
	}
	s := Count(f.Count) + " " + what
	if f.Holder >= 0 && f.Holder < len(f.Sample.Steps) {
		st := f.Sample.Steps[f.Holder]
		s += " in " + stepLabel(st.Type, st.Name)
		if place := PlaceText(holderPath(f)); place != "" && st.Name == "" {
			s += " at " + place
		}
		return s
	}
	if place := PlaceText(groupEdge(f.PathGroup, f.Sample)); place != "" {
		s += " at " + place
	}
	return s
}

// Leaks renders the verdict of the three-snapshot rule. final is the
// graph the findings' paths come from; shown is a prefix of rep.Findings.
func Leaks(w io.Writer, f Format, srcs []Source, final *heap.Graph, rep analyze.LeakReport, shown []analyze.LeakFinding) error {
	if f == HTML {
		return htmlReport(w, "leaks", srcs, func(w io.Writer) error { return Leaks(w, JSON, srcs, final, rep, shown) })
	}
	if f == JSON {
		return WriteJSON(w, struct {
			Snapshots   []Source             `json:"snapshots"`
			Runtime     string               `json:"runtime"`
			Identity    analyze.IdentityMode `json:"identity"`
			New         int                  `json:"new"`
			Leaked      int                  `json:"leaked"`
			LeakedBytes uint64               `json:"leaked_bytes"`
			Unreached   int                  `json:"unreached"`
			Suppressed  int                  `json:"suppressed"`
			SuppObjects int                  `json:"suppressed_objects"`
			Findings    int                  `json:"findings"`
			Truncated   bool                 `json:"truncated"`
			Rows        []findingJSON        `json:"rows"`
		}{srcs, rep.Runtime, rep.Mode, rep.New, rep.Leaked, rep.LeakedBytes, rep.Unreached,
			rep.Suppressed, rep.SuppressedObjects, len(rep.Findings), len(shown) < len(rep.Findings), findingsJSON(final, shown)})
	}
	if err := header(w, f, srcs...); err != nil {
		return err
	}
	var line string
	if rep.Mode == analyze.IdentityNone {
		line = fmt.Sprintf("objects cannot be matched across these snapshots (identity: %s): findings are the paths that held more objects in target than in baseline, and no fewer in final; they hold %s objects (%s)",
			rep.Mode, Count(rep.Leaked), Bytes(rep.LeakedBytes))
	} else {
		line = fmt.Sprintf("identity: %s; %s objects new in target, %s of them still alive in final (%s)",
			rep.Mode, Count(rep.New), Count(rep.Leaked), Bytes(rep.LeakedBytes))
	}
	if rep.Suppressed > 0 {
		line += fmt.Sprintf("; %s of them, in %s groups, set aside as known noise", Count(rep.SuppressedObjects), Count(rep.Suppressed))
	}
	if f == Markdown {
		line = mdLine(line) + "\n"
	}
	if _, err := fmt.Fprintln(w, line); err != nil {
		return err
	}
	if len(rep.Findings) == 0 {
		_, err := fmt.Fprintln(w, "no leak found")
		return err
	}
	if f == Markdown {
		t := Table{Columns: []Column{{"#", true}, {"retained", true}, {"leaked", false}, {"held by", false}}}
		if final.HasSites() {
			t.Columns = append(t.Columns, Column{"allocated at", false})
		}
		for i, x := range shown {
			row := []string{fmt.Sprint(i + 1), Bytes(x.Retained), FindingText(x) + noiseMark(x), SignatureText(x.PathGroup)}
			if final.HasSites() {
				row = append(row, SitesLine(x.Alloc))
			}
			t.Add(row...)
		}
		if err := t.Write(w, f); err != nil {
			return err
		}
		return more(w, f, len(shown), len(rep.Findings), "findings")
	}
	for i, x := range shown {
		grew := ""
		if x.Growth > 0 {
			grew = fmt.Sprintf(", grew by %s", Count(x.Growth))
		}
		entries := ""
		if x.Element != "" {
			entries = Count(x.Count) + " " + x.Type + ", "
		}
		fmt.Fprintf(w, "\n#%d  %s  retained %s  (%sshallow %s%s)%s\n", i+1, FindingText(x),
			Bytes(x.Retained), entries, Bytes(x.Bytes), grew, noiseMark(x))
		io.WriteString(w, wrapSteps("    held by  ", signatureSteps(x.PathGroup), widthOf(w)))
		if _, err := io.WriteString(w, wrapSteps("    e.g.     ", pathSteps(x.Sample), widthOf(w))); err != nil {
			return err
		}
		if err := writeSites(w, x.Alloc, "    ", "allocated at"); err != nil {
			return err
		}
	}
	return more(w, f, len(shown), len(rep.Findings), "findings")
}

func noiseMark(x analyze.LeakFinding) string {
	if x.Noise == "" {
		return ""
	}
	return " [noise: " + x.Noise + "]"
}

// Noise lists noise rules.
func Noise(w io.Writer, f Format, rules []analyze.NoiseRule) error {
	if f == JSON {
		return WriteJSON(w, struct {
			Rules []analyze.NoiseRule `json:"rules"`
		}{nonNil(rules)})
	}
	t := Table{Columns: []Column{{"name", false}, {"runtime", false}, {"matches", false}, {"why it is not a leak", false}}}
	for _, r := range rules {
		t.Add(r.Name, r.Runtime, ruleText(r), r.Reason)
	}
	return t.Write(w, f)
}

func ruleText(r analyze.NoiseRule) string {
	s := ""
	add := func(x string) {
		if s != "" {
			s += ", "
		}
		s += x
	}
	if r.Root != "" {
		add("root " + r.Root)
	}
	for _, e := range r.Through {
		add("through " + e)
	}
	for _, t := range r.ThroughType {
		add("through type " + t)
	}
	if r.Type != "" {
		add("type " + r.Type)
	}
	if r.Owner != "" {
		add("owner " + r.Owner)
	}
	if r.Within != "" {
		add("within " + r.Within + "*")
	}
	return s
}
