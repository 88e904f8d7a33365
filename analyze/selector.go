package analyze

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/heapscope/heapscope/heap"
)

// ParseSelector reads a selector as the command line and the web page
// take it (see [Selector] for what each field picks):
//
//   - an object's identity: "0x7f3a0c2b1e40" (hexadecimal, as heapscope
//     prints Python and Java addresses), "@47297" or "47297" (decimal,
//     as DevTools and memlab print V8 node ids, and as Python's id()
//     gives an address);
//   - an object as heapscope prints it, its name and identity:
//     "Server @47297", "app.Item@0x3000"; its name must be the object's;
//     and its value label after them, quoted ("(string) @86973 \"k850\"",
//     as the object's value must contain);
//   - "value:TEXT": objects whose value label contains TEXT;
//   - "type:NAME": the objects of that exact type;
//   - "instanceof:NAME": the instances of Java class NAME (qualified)
//     and of all its subclasses;
//   - "class:NAME" or "class NAME": class objects by name (NAME qualified
//     or not, "*" for any text);
//   - any other NAME: the objects of that type, or what else the name
//     stands for (see [Selector].Loose).
func ParseSelector(s string) (Selector, error) {
	switch {
	case strings.HasPrefix(s, "value:"):
		return Selector{Value: s[len("value:"):]}, nil
	case strings.HasPrefix(s, "instanceof:"):
		name := strings.TrimSpace(s[len("instanceof:"):])
		if name == "" {
			return Selector{}, fmt.Errorf("%q names no class", s)
		}
		return Selector{InstanceOf: name}, nil
	case strings.HasPrefix(s, "type:"):
		return Selector{Type: s[len("type:"):]}, nil
	case strings.HasPrefix(s, "class:"), strings.HasPrefix(s, "class "):
		name := strings.TrimSpace(s[len("class:"):])
		if name == "" {
			return Selector{}, fmt.Errorf("%q names no class", s)
		}
		if label, id, ok := cutIdentity(name); ok {
			// "class app.Cache@0x1f": a class object as heapscope prints it.
			return Selector{Addr: id, HasAddr: true, Label: "class " + label}, nil
		}
		return Selector{Class: name}, nil
	case strings.TrimSpace(s) == "":
		return Selector{}, fmt.Errorf("empty selector")
	}
	t := strings.TrimSpace(s)
	if obj, value, ok := cutValue(t); ok {
		// An object with its value as heapscope prints it: (string)
		// @86973 "k850", str@0x7f3a... 'cache'.
		if label, id, ok := cutIdentity(obj); ok {
			return Selector{Addr: id, HasAddr: true, Label: label, Value: value}, nil
		}
	}
	if id, ok, err := parseIdentity(t); ok || err != nil {
		if err != nil {
			return Selector{}, err
		}
		return Selector{Addr: id, HasAddr: true}, nil
	}
	if label, id, ok := cutIdentity(t); ok {
		return Selector{Addr: id, HasAddr: true, Label: label}, nil
	}
	return Selector{Type: s, Loose: true}, nil
}

// ParseID reads an object's identity alone: "0x1f3a" (hexadecimal),
// "@47297" or "47297" (decimal).
func ParseID(s string) (uint64, error) {
	id, ok, err := parseIdentity(strings.TrimSpace(s))
	if err == nil && !ok {
		err = fmt.Errorf("%q is not an object id (0x7f3a0c2b1e40, @47297 or 47297)", s)
	}
	return id, err
}

// parseIdentity reads s as an identity: ok when s has the form of one,
// err when it has the form but not a valid number.
func parseIdentity(s string) (id uint64, ok bool, err error) {
	switch {
	case strings.HasPrefix(s, "0x"), strings.HasPrefix(s, "0X"):
		id, err = strconv.ParseUint(s[2:], 16, 64)
		if err != nil {
			return 0, true, fmt.Errorf("bad address %q", s)
		}
		return id, true, nil
	case strings.HasPrefix(s, "@"):
		id, err = strconv.ParseUint(s[1:], 10, 64)
		if err != nil {
			return 0, true, fmt.Errorf("bad id %q: want @ and a decimal number, as in @47297", s)
		}
		return id, true, nil
	case s != "" && strings.Trim(s, "0123456789") == "":
		id, err = strconv.ParseUint(s, 10, 64)
		if err != nil {
			return 0, true, fmt.Errorf("bad id %q", s)
		}
		return id, true, nil
	}
	return 0, false, nil
}

// cutValue splits an object as heapscope prints it with its value label,
// `NAME @47297 "text"` (the label quoted as Go quotes strings), into the
// object and the value.
func cutValue(s string) (obj, value string, ok bool) {
	if !strings.HasSuffix(s, `"`) {
		return "", "", false
	}
	for i := strings.Index(s, ` "`); i > 0; {
		if v, err := strconv.Unquote(s[i+1:]); err == nil {
			return strings.TrimSpace(s[:i]), v, true
		}
		j := strings.Index(s[i+2:], ` "`)
		if j < 0 {
			break
		}
		i += 2 + j
	}
	return "", "", false
}

// cutIdentity splits "NAME@0x1f" or "NAME @47297" (an object as
// heapscope prints it) into the name and the identity.
func cutIdentity(s string) (string, uint64, bool) {
	i := strings.LastIndexByte(s, '@')
	if i <= 0 {
		return "", 0, false
	}
	rest := s[i:]
	if strings.HasPrefix(rest, "@0x") || strings.HasPrefix(rest, "@0X") {
		rest = rest[1:]
	}
	id, ok, err := parseIdentity(rest)
	if !ok || err != nil {
		return "", 0, false
	}
	label := strings.TrimSpace(s[:i])
	return label, id, label != ""
}

// IDText formats an object's identity as the runtime's own tools print
// it: a V8 node id as DevTools and memlab do, "@47297"; an address or an
// HPROF id in hexadecimal, "0x7f3a0c2b1e40". [ParseSelector] reads both.
func IDText(g *heap.Graph, id heap.ObjectID) string {
	a := g.Addr(id)
	if g.Meta().Runtime == "v8" {
		return "@" + strconv.FormatUint(a, 10)
	}
	return "0x" + strconv.FormatUint(a, 16)
}

// selectLoose is [Select] for a bare name (Selector.Loose) that no type
// has: what [selectLooseName] finds for it, else the objects it names
// by where they are (see [selectPlaced]).
func selectLoose(g *heap.Graph, s Selector) []heap.ObjectID {
	if out := selectLooseName(g, s.Type); out != nil {
		return out
	}
	return selectPlaced(g, s.Type)
}

// selectLooseName is what a bare name that no type has picks: the first
// of these that picks something.
func selectLooseName(g *heap.Graph, name string) []heap.ObjectID {
	if out := selectNamed(g, name); out != nil {
		return out
	}
	if out := selectClasses(g, Selector{Class: name}); out != nil {
		return out
	}
	if out := selectTypes(g, func(t string) bool { return t == name+" (closure)" }); out != nil {
		return out
	}
	// The rows of leaks, diff and top: "T (classes P)" and
	// "P (instances of N classes)".
	if strings.HasSuffix(name, ")") {
		if typ, fam, ok := strings.Cut(name, " (classes "); ok {
			fam = strings.TrimSuffix(fam, ")")
			return selectClasses(g, Selector{Class: fam, Type: typ})
		}
		if i := strings.Index(name, " (instances of "); i > 0 && strings.HasSuffix(name, " classes)") {
			name = name[:i]
		}
	}
	if strings.Contains(name, "*") {
		return selectTypes(g, func(t string) bool { return starMatch(name, t) })
	}
	return nil
}

// selectNamed returns the objects whose own name (g.Name: "class
// app.Cache", "module app", "function app.views.index") is name.
func selectNamed(g *heap.Graph, name string) []heap.ObjectID {
	if g.NumNames() == 0 {
		return nil
	}
	var out []heap.ObjectID
	for id := range g.Objects() {
		if n, ok := g.Name(id); ok && n == name {
			out = append(out, id)
		}
	}
	return out
}

// selectTypes returns the objects whose type name want accepts.
func selectTypes(g *heap.Graph, want func(string) bool) []heap.ObjectID {
	ok := make([]bool, g.NumTypes())
	any := false
	for t := range ok {
		ok[t] = want(g.TypeName(heap.TypeID(t)))
		any = any || ok[t]
	}
	if !any {
		return nil
	}
	var out []heap.ObjectID
	for v, t := range g.Types() {
		if ok[t] {
			out = append(out, heap.ObjectID(v))
		}
	}
	return out
}

// labelMatches reports whether an object is what label names: its type
// name, its own name, or its class name (a class object).
func labelMatches(g *heap.Graph, id heap.ObjectID, label string) bool {
	if label == g.TypeName(g.Type(id)) {
		return true
	}
	if n, ok := g.Name(id); ok && n == label {
		return true
	}
	n, ok := ClassName(g, id)
	return ok && (label == n || label == "class "+n)
}

// NoMatch explains why selector s (text, as given) picks nothing in g, in
// a phrase that follows "TEXT selects no object in FILE": what the
// identity is when it names another object, and the names nearest to
// the one given.
func NoMatch(g *heap.Graph, s Selector, text string) string {
	switch {
	case s.HasAddr && s.Label != "":
		if id, ok := g.FindAddr(s.Addr); ok {
			return fmt.Sprintf(" (%s is %s here, not %s)", IDText(g, id), objectName(g, id), s.Label)
		}
		return " (no object has that id)"
	case s.HasAddr:
		return " (no object has that id)"
	case s.Value != "":
		return " (no value contains that text)"
	}
	name := s.Type
	if s.Loose {
		name = placedWhat(name) // "300 Session in Map at ..." is near what Session is
	}
	if s.Class != "" {
		name = s.Class
	}
	if s.InstanceOf != "" {
		name = s.InstanceOf
	}
	why := ""
	switch {
	case (s.Loose || s.Class != "") && g.NumValues() == 0 && g.Meta().Runtime == "python":
		why = " (Python class names are values, and this snapshot has none: it was taken with values=False)"
	case s.Loose:
		why = " (no type and no class has that name)"
	}
	if near := NearestNames(g, name, 5); len(near) > 0 {
		quoted := make([]string, len(near))
		for i, n := range near {
			quoted[i] = strconv.Quote(n)
		}
		why += "; nearest: " + strings.Join(quoted, ", ")
	}
	return why
}

// objectName is an object's own name, or its type's.
func objectName(g *heap.Graph, id heap.ObjectID) string {
	if n, ok := g.Name(id); ok {
		return n
	}
	return g.TypeName(g.Type(id))
}

// maxNameLen bounds the names [NearestNames] compares, in bytes.
const maxNameLen = 200

// NearestNames returns up to k of the names g's objects go by (type
// names and objects' own names) nearest to name: first those equal to it
// but for case, then by edit distance (any case) those that contain it,
// those it contains (a part of it at least half its length) and those
// within an edit distance of a third of its length (at least 2), the
// misspellings after the others at one distance; then in name order. A name with
// a kind in parentheses ("onTick (closure)") is compared without it,
// unless name has one too.
func NearestNames(g *heap.Graph, name string, k int) []string {
	seen := map[string]bool{}
	for t := range g.NumTypes() {
		seen[g.TypeName(heap.TypeID(t))] = true
	}
	if g.NumNames() > 0 {
		for id := range g.Objects() {
			if n, ok := g.Name(id); ok {
				seen[n] = true
			}
		}
	}
	names := make([]string, 0, len(seen))
	for n := range seen {
		names = append(names, n)
	}
	return Nearest(name, names, k)
}

// Nearest returns up to k of names nearest to name, as [NearestNames]
// orders them.
func Nearest(name string, names []string, k int) []string {
	lower := strings.ToLower(name)
	type cand struct {
		name string
		rank int
		dist int
		miss bool // a misspelling, after a name it is part of at the same distance
	}
	var cands []cand
	maxDist := max(2, len(name)/3)
	for _, n := range names {
		if n == "" || len(n) > maxNameLen || n == name {
			continue
		}
		l := strings.ToLower(n)
		if i := strings.LastIndex(l, " ("); i > 0 && strings.HasSuffix(l, ")") && !strings.Contains(lower, " (") {
			l = l[:i] // "onTick (closure)" is near "onTik"
		}
		switch {
		case l == lower:
			cands = append(cands, cand{n, 0, 0, false})
		case len(lower) >= 3 && (strings.Contains(l, lower) || strings.Contains(lower, l) && 2*len(l) >= len(lower)):
			// A name that contains it, or a part of it: as near as the
			// letters between them (their edit distance), beside the
			// misspellings.
			cands = append(cands, cand{n, 1, abs(len(l) - len(lower)), false})
		default:
			if abs(len(l)-len(name)) > maxDist {
				continue
			}
			if d := EditDistance(lower, l); d <= maxDist && d < len(name) {
				cands = append(cands, cand{n, 1, d, true})
			}
		}
	}
	slices.SortFunc(cands, func(a, b cand) int {
		if a.rank != b.rank {
			return a.rank - b.rank
		}
		if a.dist != b.dist {
			return a.dist - b.dist
		}
		if a.miss != b.miss {
			if a.miss {
				return 1
			}
			return -1
		}
		return strings.Compare(a.name, b.name)
	})
	var out []string
	for _, c := range cands[:min(k, len(cands))] {
		out = append(out, c.name)
	}
	return out
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

// EditDistance is the Levenshtein distance between a and b (insertions,
// deletions and substitutions of bytes), by the two-row dynamic program
// (Wagner and Fischer, "The string-to-string correction problem", 1974).
func EditDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			sub := prev[j-1]
			if a[i-1] != b[j-1] {
				sub++
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, sub)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
