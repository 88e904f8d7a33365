package report

import (
	"cmp"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/heapscope/heapscope/analyze"
	"github.com/heapscope/heapscope/heap"
)

// findingJSON is one leak finding as JSON shows it.
type findingJSON struct {
	Text string `json:"text"`
	// Type is what the finding mostly is: its biggest part's elements,
	// or type.
	Type     string          `json:"type"`
	Where    string          `json:"where,omitempty"`
	Verdict  analyze.Verdict `json:"verdict"`
	Growth   string          `json:"growth"`
	Count    int             `json:"count"`
	Retained uint64          `json:"retained_bytes"`
	Bytes    uint64          `json:"shallow_bytes"`
	Gains    analyze.Gains   `json:"gains"`
	Bound    *analyze.Bound  `json:"bound,omitempty"`
	Noise    string          `json:"noise,omitempty"`
	Detached bool            `json:"detached,omitempty"` // the objects are or hold detached DOM nodes
	// Copies says that the finding's objects are copies of a few values
	// (see analyze.Copies).
	Copies *CopiesJSON `json:"copies,omitempty"`
	Place  placeJSON   `json:"place"`
	Parts  []partJSON  `json:"parts"`
	// HeldBy says in one line what holds the finding's objects.
	HeldBy  string       `json:"held_by"`
	Holders []holderJSON `json:"holders"`
	// Path, Sample and Allocated are the biggest part's: its merged path,
	// the path of its biggest object, and where its objects were
	// allocated (when the snapshot records it).
	Path      string     `json:"path"`
	Sample    pathJSON   `json:"sample_path"`
	Allocated *allocJSON `json:"allocated,omitempty"`
}

type placeJSON struct {
	Text  string   `json:"text"`
	Edge  string   `json:"edge,omitempty"`
	Where string   `json:"where,omitempty"`
	Path  pathJSON `json:"path"`
}

type partJSON struct {
	Text      string   `json:"text"`
	Type      string   `json:"type"`
	Element   string   `json:"element,omitempty"`
	Classes   string   `json:"classes,omitempty"`
	Types     int      `json:"types,omitempty"`
	Count     int      `json:"count"`
	Retained  uint64   `json:"retained_bytes"`
	Bytes     uint64   `json:"shallow_bytes"`
	Path      string   `json:"path"`
	Signature []string `json:"signature"`
	Sample    pathJSON `json:"sample_path"`
	// Allocated says where the part's objects were allocated, when the
	// snapshot records it.
	Allocated *allocJSON `json:"allocated,omitempty"`
}

type holderJSON struct {
	Text       string   `json:"text"`
	Path       pathJSON `json:"path"`
	Referrers  int      `json:"referrers"`
	Holds      int      `json:"holds"`
	Frees      int      `json:"frees"`
	FreesBytes uint64   `json:"frees_bytes"`
	// Group is the number (from 1) of the other finding (or path group)
	// whose objects hold these; 0 when the holder is none.
	Group int `json:"group,omitempty"`
	// Bound is the holding object's limit (see analyze.Holder), and
	// Bounded says it as text does ("bounded, full and evicting:
	// lru_cache maxsize 1,000, 1,000 filled").
	Bound   *analyze.Bound `json:"bound,omitempty"`
	Bounded string         `json:"bounded,omitempty"`
}

func findingsJSON(g *heap.Graph, fs []analyze.LeakFinding) []findingJSON {
	out := []findingJSON{}
	for _, f := range fs {
		j := findingJSON{
			Text: FindingText(f), Type: mainType(f), Where: f.Place.Where, Verdict: f.Verdict, Growth: GrowthText(f),
			Count: f.Count, Retained: f.Retained, Bytes: f.Shallow, Gains: f.Gains, Bound: f.Bound, Noise: f.Noise, Detached: f.Detached(),
			Place:  placeJSON{Text: placeText(f), Edge: f.Place.Edge, Where: f.Place.Where, Path: pathToJSON(g, f.Place.Path)},
			HeldBy: HeldByLine(f),
		}
		if len(f.Parts) > 0 {
			big := f.Parts[0]
			j.Path, j.Sample, j.Allocated = SignatureText(big.PathGroup), pathToJSON(g, big.Sample), allocToJSON(big.Alloc)
		}
		for _, p := range f.Parts {
			pj := partJSON{
				Text: Count(p.Count) + " " + PartLabel(p), Type: p.Type, Element: p.Element, Classes: p.Classes, Types: p.Types,
				Count: p.Count, Retained: p.Retained, Bytes: p.Shallow, Path: SignatureText(p.PathGroup),
				Sample: pathToJSON(g, p.Sample), Allocated: allocToJSON(p.Alloc),
			}
			for _, s := range p.Signature {
				pj.Signature = append(pj.Signature, s.Edge+" "+stepLabel(s.Type, s.Name))
			}
			j.Parts = append(j.Parts, pj)
		}
		j.Holders = holdersJSON(g, f.Holders, "finding")
		j.Copies = CopiesToJSON(f.Copies)
		out = append(out, j)
	}
	return out
}

// mainType is what a finding mostly is: its biggest part's elements, or
// its type.
func mainType(f analyze.LeakFinding) string {
	if len(f.Parts) == 0 {
		return ""
	}
	if p := f.Parts[0]; p.Element != "" {
		return p.Element
	}
	return f.Parts[0].Type
}

// PartLabel names what a part's objects are: the elements they hold for
// the program (the Session of a HashMap$Node), their type, the family of
// classes they are, or the pattern of the types they are instances of
// ("f_* (instances of 60 classes)").
func PartLabel(p analyze.LeakPart) string {
	switch {
	case p.Element != "":
		return p.Element
	case p.Types > 0:
		return fmt.Sprintf("%s (instances of %s classes)", p.Type, Count(p.Types))
	}
	return TypeLabel(p.Type, p.Classes)
}

// whatText says what a finding's objects are, by kind, the kinds that
// retain the most first: "500 Session", "300 classes (app.u_*,
// app.m_*)" (the classes of factories are one kind), "2,010 Node, 1,860
// Position and 300 more of 3 other types". Kinds that retain less than a
// tenth of the finding after the first (a Map's keys) are left to its
// list of parts.
func whatText(f analyze.LeakFinding) string {
	type kind struct {
		label    string
		n        int
		retained uint64
		families []string
	}
	var kinds []*kind
	at := map[string]*kind{}
	add := func(key, label string, p analyze.LeakPart) *kind {
		k := at[key]
		if k == nil {
			k = &kind{label: label}
			at[key] = k
			kinds = append(kinds, k)
		}
		k.n += p.Count
		k.retained += p.Retained
		return k
	}
	for _, p := range f.Parts {
		if p.Classes != "" && p.Element == "" {
			k := add("\x00classes", "classes", p)
			if !slices.Contains(k.families, p.Classes) {
				k.families = append(k.families, p.Classes)
			}
			continue
		}
		if p.Types > 0 && p.Element == "" {
			// Instances of the classes of factories: "300 instances of
			// classes app.u_*, app.m_*".
			k := add("\x00instances", "instances", p)
			if !slices.Contains(k.families, p.Type) {
				k.families = append(k.families, p.Type)
			}
			continue
		}
		l := PartLabel(p)
		add(l, l, p)
	}
	slices.SortStableFunc(kinds, func(a, b *kind) int {
		if c := cmp.Compare(b.retained, a.retained); c != 0 {
			return c
		}
		return cmp.Compare(b.n, a.n)
	})
	// The kinds that retain little beside the first (a dict's keys)
	// are left to the list of parts.
	shown := 1
	for shown < min(3, len(kinds)) && 10*kinds[shown].retained >= f.Retained {
		shown++
	}
	var parts []string
	for _, k := range kinds[:shown] {
		switch {
		case k.families == nil:
			parts = append(parts, Count(k.n)+" "+k.label)
		case k.label == "instances":
			parts = append(parts, Count(k.n)+" instances of classes "+strings.Join(k.families[:min(4, len(k.families))], ", ")+moreOf(len(k.families)-4, "families"))
		case len(k.families) == 1:
			parts = append(parts, Count(k.n)+" "+TypeLabel(f.Parts[0].Type, k.families[0]))
		default:
			parts = append(parts, Count(k.n)+" classes ("+strings.Join(k.families[:min(4, len(k.families))], ", ")+moreOf(len(k.families)-4, "families")+")")
		}
	}
	if len(kinds) > shown && shown == 3 {
		rest := 0
		for _, k := range kinds[3:] {
			rest += k.n
		}
		parts = append(parts, fmt.Sprintf("%s more of %s", Count(rest), counted(len(kinds)-3, "other type")))
	}
	return joinAnd(parts)
}

// moreOf is ", and N more WHAT" when n > 0.
func moreOf(n int, what string) string {
	if n <= 0 {
		return ""
	}
	return fmt.Sprintf(" and %s more %s", Count(n), what)
}

func sumFrom[T any](xs []T, n func(T) int) int {
	s := 0
	for _, x := range xs {
		s += n(x)
	}
	return s
}

// placeText says where a finding's place is: "dict at module app.cache"
// for a container's entries, "module app.log" for a field.
func placeText(f analyze.LeakFinding) string {
	p := f.Place.Path
	n := len(p.Steps)
	if n == 0 {
		return ""
	}
	if f.Place.Name != "" {
		// One field of every class of a family: "class Gen*.T".
		p.Steps = slices.Clone(p.Steps)
		p.Steps[n-1].Name = f.Place.Name
	}
	last := p.Steps[n-1]
	if f.Place.Edge != "" {
		q := p
		q.Steps = append(slices.Clone(p.Steps), analyze.Step{Edge: f.Place.Edge})
		return PlaceText(q)
	}
	label := stepLabel(last.Type, last.Name)
	if last.Name != "" {
		return label
	}
	if at := PlaceText(p); at != "" {
		return label + " at " + at
	}
	if n == 1 {
		return label + " (" + rootText(p.RootKind, p.RootName) + ")"
	}
	return label
}

// FindingText says in one line what leaked and where, in the program's
// terms: "900 app.Session in java.util.HashMap at class
// app.Cache.SESSIONS" (the elements of a container's entries, the
// container and where it is), "1 list at module app.log" (a field), or
// for a finding of several kinds of objects "300 classes (app.u_*,
// app.m_*) in dict at module app._cache"; a finding whose objects hold
// detached DOM nodes says so ("(holds detached DOM)"; detached nodes
// themselves are named "Detached <li>").
func FindingText(f analyze.LeakFinding) string {
	s := placedText(f)
	if f.Detached() && !strings.HasPrefix(mainType(f), "Detached ") {
		s += " (holds detached DOM)"
	}
	return s
}

func placedText(f analyze.LeakFinding) string {
	return whatText(f) + placeSuffix(f)
}

// placeSuffix says where a finding's objects are, after what they are:
// " in dict at module app.cache", " at module app.log"; "" when the
// place has no name.
func placeSuffix(f analyze.LeakFinding) string {
	switch place := placeText(f); {
	case place == "":
		if len(f.Parts) > 0 {
			if at := PlaceText(f.Parts[0].Sample); at != "" {
				return " at " + at
			}
		}
		return ""
	case f.Place.Edge != "":
		return " at " + place
	default:
		return " in " + place
	}
}

// FindingKey names a finding by what it mostly is and where, without
// counts: "app.Session in dict at module app.sessions", "classes
// app.u_* in dict at module app._cache". The same leak in two processes
// (whose object ids have nothing in common) has the same key, so that
// findings of many processes can be told apart and summed by it.
func FindingKey(f analyze.LeakFinding) string {
	label, _ := FindingMain(f)
	return label + placeSuffix(f)
}

// FindingMain says what a finding mostly is (its biggest part's
// elements, type, or family of classes) and how many of its objects are
// that: the 50 entries of a leaked dict, not its 50 keys besides.
func FindingMain(f analyze.LeakFinding) (string, int) {
	label := func(p analyze.LeakPart) string {
		if p.Element == "" && p.Classes != "" {
			return TypeLabel(p.Type, p.Classes)
		}
		return cmp.Or(p.Element, p.Type)
	}
	if len(f.Parts) == 0 {
		return "", 0
	}
	main, n := label(f.Parts[0]), 0
	for _, p := range f.Parts {
		if label(p) == main {
			n += p.Count
		}
	}
	return main, n
}

// GrowthText says how a finding's place grew and what that means:
// "grew by 500, then 500: in proportion to the work", "bounded:
// lru_cache maxsize 1000, 600 filled", "bounded, full and evicting:
// deque maxlen 100, 100 filled" (see [analyze.Bound].Full), "grew by
// 40, then stopped",
// "grew by 13, then 60, held 246 in target and 246 in final: stopped
// growing (what it gained after target took the place of what it
// lost)" (turnover at reused addresses; see [analyze.Gains].Held),
// "grew by 25, then 0; what they hold grew: 50 __main__.Record more,
// held 25 in target and 75 in final: still growing" (lists set once,
// appended to; see [analyze.Gains].Inside).
func GrowthText(f analyze.LeakFinding) string {
	g := f.Gains
	grew := fmt.Sprintf("grew by %s, then %s", Count(g.New[0]), Count(g.New[1]))
	if g.Counts != nil {
		grew = fmt.Sprintf("held %s, %s, %s", Count(g.Counts[0]), Count(g.Counts[1]), Count(g.Counts[2]))
	}
	if in := g.Inside; in != nil {
		grew += fmt.Sprintf("; what they hold grew: %s %s more, held %s in target and %s in final",
			Count(in.New), in.Type, Count(in.Held[0]), Count(in.Held[1]))
	}
	switch f.Verdict {
	case analyze.Bounded:
		return boundedText(f.Bound) + "; " + grew
	case analyze.Stopped:
		if g.Held != nil {
			// Identity's gains that the counts overruled (turnover).
			return fmt.Sprintf("%s, held %s in target and %s in final: stopped growing (what it gained after target took the place of what it lost)",
				grew, Count(g.Held[0]), Count(g.Held[1]))
		}
		return grew + ": stopped growing (a cache that filled once, or warm-up)"
	}
	if g.InProportion() {
		return grew + ": growing in proportion to the work"
	}
	return grew + ": still growing"
}

// BoundText says what limits a place: "lru_cache maxsize 1000, 600
// filled", "deque maxlen 100, 60 filled", "evicts: 120 entries of
// target gone by final, 500 held".
func BoundText(b *analyze.Bound) string {
	switch b.Kind {
	case "lru_cache":
		return fmt.Sprintf("lru_cache maxsize %s, %s filled", Count(b.Max), Count(b.Filled))
	case "maxlen":
		return fmt.Sprintf("deque maxlen %s, %s filled", Count(b.Max), Count(b.Filled))
	case "evicts":
		return fmt.Sprintf("evicts (%s entries of target gone by final), %s held", Count(b.Evicted), Count(b.Filled))
	case "per-object":
		return fmt.Sprintf("set once on objects the baseline had, %s of %s", Count(b.Filled), Count(b.Max))
	}
	return b.Kind
}

// HolderBoundText says a holder's limit, when it has one: "bounded,
// full and evicting: lru_cache maxsize 1,000, 1,000 filled" (it lets
// go of what it holds as it evicts), "bounded: deque maxlen 500, 20
// filled"; "" otherwise.
func HolderBoundText(h analyze.Holder) string {
	if h.Bound == nil {
		return ""
	}
	return boundedText(h.Bound)
}

// boundedText says a limit as a place's growth and a holder do:
// "bounded, full and evicting: ..." when b is full, else "bounded: ...".
func boundedText(b *analyze.Bound) string {
	if b.Full() {
		return "bounded, full and evicting: " + BoundText(b)
	}
	return "bounded: " + BoundText(b)
}

// HolderText names a holder: the object that refers into the finding
// and where it is ("set at module sympy.core.core.all_classes", "class
// app.Registry"), how many such objects, or the other group (finding,
// path) whose objects refer here ("the objects of finding #4").
func HolderText(h analyze.Holder, group string) string {
	if h.Group >= 0 {
		return fmt.Sprintf("the objects of %s #%d", group, h.Group+1)
	}
	p := h.Path
	if h.At < 0 || h.At >= len(p.Steps) {
		return "(nothing)"
	}
	if n := len(p.Steps); h.At == n-2 && h.Field != "" {
		// A field holds: "module app.log", "class app.Cache.SESSIONS".
		if at := PlaceText(p); at != "" {
			return at
		}
	}
	q := p
	q.Steps = p.Steps[:h.At+1]
	r := q.Steps[h.At]
	s := stepLabel(r.Type, r.Name)
	if r.Name == "" {
		if at := PlaceText(q); at != "" {
			s += " at " + at
		} else if h.At == 0 {
			s += " (" + rootText(q.RootKind, q.RootName) + ")"
		}
	}
	if h.Referrers > 1 {
		s += fmt.Sprintf(" (%s of them)", Count(h.Referrers))
	}
	return s
}

// HeldByText says in one line what holds a finding's objects: "held by
// dict at module app.cache", or for several holders "held by 2 holders:
// dict at module app._cache and set at module sympy.core.core.all_classes;
// removing one alone frees nothing".
func HeldByText(hs []analyze.Holder, group string) string {
	return heldByNamed(hs, func(h analyze.Holder) string { return HolderText(h, group) })
}

// heldByNamed is [HeldByText] with each holder named by name.
func heldByNamed(hs []analyze.Holder, name func(analyze.Holder) string) string {
	switch len(hs) {
	case 0:
		return "held only through other leaked objects"
	case 1:
		return "held by " + name(hs[0])
	}
	var names []string
	for _, h := range hs {
		names = append(names, name(h))
	}
	return fmt.Sprintf("held by %d holders: %s%s", len(hs), joinAnd(names), freesNothing(hs))
}

// freesNothing is "; removing one alone frees nothing" when none of
// several holders frees anything alone; when some of them are bounded
// (an lru_cache's maxsize, a deque's maxlen), it says that they let go
// of what they hold in time: "; removing any one alone frees nothing
// now (2 of them are bounded, and let go of what they hold as they
// evict)".
func freesNothing(hs []analyze.Holder) string {
	bounded := 0
	for _, h := range hs {
		if h.Frees > 0 {
			return ""
		}
		if h.Bound != nil {
			bounded++
		}
	}
	var s string
	switch len(hs) {
	case 0, 1:
		return ""
	case 2:
		s = "; removing one alone frees nothing"
	default:
		s = "; removing any one alone frees nothing"
	}
	switch {
	case bounded == 1:
		s += " now (1 of them is bounded, and lets go of what it holds as it evicts)"
	case bounded > 1:
		s += fmt.Sprintf(" now (%s of them are bounded, and let go of what they hold as they evict)", Count(bounded))
	}
	return s
}

// holdersHead says how many holders there are and what removing one
// does: "2, and removing one alone frees nothing".
func holdersHead(hs []analyze.Holder) string {
	if s := freesNothing(hs); s != "" {
		return fmt.Sprintf("%d, and %s", len(hs), strings.TrimPrefix(s, "; "))
	}
	return fmt.Sprintf("%d", len(hs))
}

// joinAnd joins names as a list in a sentence: "a, b and c".
func joinAnd(names []string) string {
	if len(names) < 2 {
		return strings.Join(names, "")
	}
	return strings.Join(names[:len(names)-1], ", ") + " and " + names[len(names)-1]
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
			SitesFrom   int                  `json:"sites_from"`
			SitesNote   string               `json:"sites_note,omitempty"`
			Rows        []findingJSON        `json:"rows"`
		}{srcs, rep.Runtime, rep.Mode, rep.New, rep.Leaked, rep.LeakedBytes, rep.Unreached,
			rep.Suppressed, rep.SuppressedObjects, len(rep.Findings), len(shown) < len(rep.Findings),
			rep.SitesFrom, sitesNote(rep, srcs), findingsJSON(final, shown)})
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
	if note := sitesNote(rep, srcs); note != "" {
		if f == Markdown {
			note = mdLine(note) + "\n"
		}
		if _, err := fmt.Fprintln(w, note); err != nil {
			return err
		}
	}
	if len(rep.Findings) == 0 {
		_, err := fmt.Fprintln(w, "no leak found")
		return err
	}
	if f == Markdown {
		t := Table{Columns: []Column{{"#", true}, {"retained", true}, {"leaked", false}, {"growth", false}, {"held by", false}}}
		if final.HasSites() {
			t.Columns = append(t.Columns, Column{"allocated at", false})
		}
		for i, x := range shown {
			row := []string{fmt.Sprint(i + 1), Bytes(x.Retained), FindingText(x) + noiseMark(x), GrowthText(x), strings.TrimPrefix(HeldByLine(x), "held by ")}
			if final.HasSites() {
				row = append(row, SitesLine(x.Parts[0].Alloc))
			}
			t.Add(row...)
			if x.Copies != nil {
				t.Add("", "", "copies: "+CopiesText(*x.Copies), "", "")
			}
			if len(x.Parts) == 1 {
				continue
			}
			// A row per part: what it is, and its merged path.
			for _, p := range x.Parts {
				row := []string{"", Bytes(p.Retained), "part: " + Count(p.Count) + " " + PartLabel(p), "", SignatureText(p.PathGroup)}
				if final.HasSites() {
					row = append(row, SitesLine(p.Alloc))
				}
				t.Add(row...)
			}
		}
		if err := t.Write(w, f); err != nil {
			return err
		}
		return more(w, f, len(shown), len(rep.Findings), "findings")
	}
	for i, x := range shown {
		if err := findingText(w, i+1, x); err != nil {
			return err
		}
	}
	return more(w, f, len(shown), len(rep.Findings), "findings")
}

// findingText writes one finding as text: what leaked where, how it
// grew, its parts when it has several, its holders, and the path of its
// biggest part.
func findingText(w io.Writer, n int, x analyze.LeakFinding) error {
	width := widthOf(w)
	entries := ""
	if p := x.Parts[0]; len(x.Parts) == 1 && p.Element != "" {
		entries = Count(p.Count) + " " + p.Type + ", " // the HashMap$Nodes of 900 Sessions
	}
	fmt.Fprintf(w, "\n#%d  %s  retained %s  (%sshallow %s)%s\n", n, FindingText(x), Bytes(x.Retained), entries, Bytes(x.Shallow), noiseMark(x))
	fmt.Fprintf(w, "    growth   %s\n", GrowthText(x))
	if len(x.Parts) > 1 {
		t := Table{Columns: []Column{{"count", true}, {"objects", false}, {"retained", true}, {"path below the place", false}}}
		shown := x.Parts[:min(len(x.Parts), maxPartsShown)]
		for _, p := range shown {
			t.Add(Count(p.Count), PartLabel(p), Bytes(p.Retained), partTail(x, p))
		}
		var b strings.Builder
		t.Write(&b, Text)
		lines := strings.Split(strings.TrimRight(b.String(), "\n"), "\n")
		for i, l := range lines[1:] {
			prefix := "             "
			if i == 0 {
				prefix = "    parts    "
			}
			fmt.Fprintf(w, "%s%s\n", prefix, strings.TrimRight(l, " "))
		}
		if len(x.Parts) > len(shown) {
			rest := x.Parts[len(shown):]
			fmt.Fprintf(w, "             ... and %s more parts (%s objects; --json lists them)\n", Count(len(rest)), Count(sumFrom(rest, func(p analyze.LeakPart) int { return p.Count })))
		}
	}
	biggest := x.Parts[0]
	switch {
	case len(x.Holders) > 1:
		writeHolders(w, x.Holders, "finding", width)
	case len(x.Holders) == 1 && x.Holders[0].Group >= 0:
		io.WriteString(w, "    "+HeldByText(x.Holders, "finding")+"\n")
	default:
		io.WriteString(w, wrapSteps("    held by  ", heldBySteps(x), width))
	}
	if x.Copies != nil {
		io.WriteString(w, "    copies   "+CopiesText(*x.Copies)+"\n")
	}
	if _, err := io.WriteString(w, wrapSteps("    e.g.     ", pathSteps(biggest.Sample), width)); err != nil {
		return err
	}
	if len(x.Parts) == 1 {
		return writeSites(w, biggest.Alloc, "    ", "allocated at")
	}
	return writePartSites(w, x.Parts[:min(len(x.Parts), maxPartsShown)], "    ", "allocated at")
}

// sitesNote says why the leaked objects have no allocation sites when
// only the final snapshot records sites: they were made before the
// target snapshot, before the recording began (run's watch of the
// classes that grew, tracing started late); "" otherwise.
func sitesNote(rep analyze.LeakReport, srcs []Source) string {
	if rep.SitesFrom != 2 || len(srcs) != 3 {
		return ""
	}
	return fmt.Sprintf("allocation sites: only %s records them, and what leaked was made before %s, before the recording began; leaks on three snapshots taken from %s on says where it is allocated",
		srcs[2].Path, srcs[1].Path, srcs[2].Path)
}

// HeldByLine says what holds a finding in one line: the path of its one
// holder (see heldBySteps), or the holders (see HeldByText).
func HeldByLine(f analyze.LeakFinding) string {
	return heldByLineNamed(f, func(h analyze.Holder) string { return HolderText(h, "finding") })
}

// heldByLineNamed is [HeldByLine] with each holder named by name.
func heldByLineNamed(f analyze.LeakFinding, name func(analyze.Holder) string) string {
	if len(f.Holders) > 1 || len(f.Holders) == 1 && f.Holders[0].Group >= 0 {
		return heldByNamed(f.Holders, name)
	}
	return "held by " + strings.Join(heldBySteps(f), pathSep)
}

// writeHolders lists several holders as text: each with what it holds,
// what removing it alone frees and its path; group names what other
// groups are ("finding").
func writeHolders(w io.Writer, hs []analyze.Holder, group string, width int) {
	fmt.Fprintf(w, "    holders  %s\n", holdersHead(hs))
	for i, h := range hs {
		line := fmt.Sprintf("             %d. %s: holds %s, alone frees ", i+1, HolderText(h, group), Count(h.Holds))
		if h.Frees > 0 {
			line += fmt.Sprintf("%s (%s)", Count(h.Frees), Bytes(h.FreesBytes))
		} else {
			line += "nothing"
		}
		if b := HolderBoundText(h); b != "" {
			line += "; " + b
		}
		io.WriteString(w, line+"\n")
		if h.Group < 0 {
			io.WriteString(w, wrapSteps("                ", pathSteps(h.Path), width))
		}
	}
}

// holdersJSON is holders as JSON shows them.
func holdersJSON(g *heap.Graph, hs []analyze.Holder, group string) []holderJSON {
	out := []holderJSON{}
	for _, h := range hs {
		hj := holderJSON{Text: HolderText(h, group), Path: pathToJSON(g, h.Path), Referrers: h.Referrers, Holds: h.Holds,
			Frees: h.Frees, FreesBytes: h.FreesBytes, Bound: h.Bound, Bounded: HolderBoundText(h)}
		if h.Group >= 0 {
			hj.Group = h.Group + 1
		}
		out = append(out, hj)
	}
	return out
}

// heldBySteps is the path a finding with one holder shows: its biggest
// part's merged path (see [analyze.MergePaths]) when that goes through
// the holder, or else the holder's own path, which goes through no
// leaked object (the shortest path may go through one: a leaked
// closure's context holding the Map that holds the sessions).
func heldBySteps(f analyze.LeakFinding) []string {
	biggest := f.Parts[0]
	if len(f.Holders) != 1 || f.Holders[0].Group >= 0 {
		return signatureSteps(biggest.PathGroup)
	}
	h := f.Holders[0]
	// The sample goes the holder's way: the same objects up to it.
	same := len(biggest.Sample.Steps) > h.At
	for i := 0; same && i <= h.At; i++ {
		same = biggest.Sample.Steps[i].Object == h.Path.Steps[i].Object
	}
	if same {
		return signatureSteps(biggest.PathGroup)
	}
	return pathSteps(h.Path)
}

// maxPartsShown is how many parts text lists per finding.
const maxPartsShown = 8

// partTail is the part's path signature below the finding's place:
// its steps after the last one through an object like the place's
// (type and name), or all of them when the signature has none.
func partTail(f analyze.LeakFinding, p analyze.LeakPart) string {
	sig := p.Signature
	j := -1
	if n := len(f.Place.Path.Steps); n > 0 {
		at := f.Place.Path.Steps[n-1]
		for i := len(sig) - 2; i >= 0; i-- {
			if sig[i].Type == at.Type && sig[i].Name == at.Name {
				j = i
				break
			}
		}
	}
	var out []string
	for _, st := range sig[j+1:] {
		t := stepLabel(st.Type, st.Name)
		if st.Repeated {
			t += " (repeated)"
		}
		if st.Edge != "" && st.Type != st.Edge+" (closure)" {
			t = st.Edge + " " + t
		}
		out = append(out, t)
	}
	return strings.Join(out, pathSep)
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
