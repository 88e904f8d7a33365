package report

import (
	"strconv"
	"strings"

	"github.com/heapscope/heapscope/analyze"
	"github.com/heapscope/heapscope/heap"
)

// Limits of ValueText: how deep it goes into an object, how many items
// or fields of one it shows, and how long the text may grow.
const (
	valueDepth = 3
	valueItems = 6
	valueChars = 120
)

// ValueText writes an object's value as a programmer would write it, from
// what the snapshot holds: strings quoted and numbers as they are, a
// tuple "(a, b)", a list "[a, b]", a dict "{'k': v}", a set "{a, b}", an
// instance "Rec(name='x', dims=(1, 2))" (its public attributes first),
// a Java object "Rec{name="x"}", a class "class app.Rec". It goes
// valueDepth objects deep and shows valueItems items of each, with "…"
// for the rest; what it cannot write (an object with no value and no
// edges) is its type.
func ValueText(g *heap.Graph, id heap.ObjectID) string {
	var b strings.Builder
	writeValue(&b, g, id, valueDepth)
	s := b.String()
	if r := []rune(s); len(r) > valueChars {
		s = string(r[:valueChars-1]) + "…"
	}
	return s
}

// valueField is one field or item of an object, as ValueText writes it.
type valueField struct {
	name string // "" for an item
	key  string // a dict key as written, "" if none
	to   heap.ObjectID
}

func writeValue(b *strings.Builder, g *heap.Graph, id heap.ObjectID, depth int) {
	typ := g.TypeName(g.Type(id))
	if v, ok := g.Value(id); ok {
		switch typ {
		case "str", "java.lang.String", "(string)", "(concatenated string)", "(sliced string)":
			b.WriteString(strconv.Quote(v))
		default:
			b.WriteString(v)
		}
		return
	}
	if typ == "type" || isClassObject(g, id) {
		if name, ok := analyze.ClassName(g, id); ok {
			b.WriteString("class " + name)
		} else {
			b.WriteString("<class>")
		}
		return
	}
	switch typ {
	case "NoneType":
		b.WriteString("None")
		return
	case "(number)": // V8, with its value as a string when the snapshot records it
		for _, e := range g.Edges(id) {
			if v, ok := g.Value(e.To); ok && !e.Label.IsIndex() && g.String(e.Label.Name()) == "value" {
				b.WriteString(v)
				return
			}
		}
	}
	fields := valueFields(g, id)
	short := typ
	if i := strings.LastIndexByte(short, '.'); i >= 0 && !strings.HasSuffix(short, "]") {
		short = short[i+1:]
	}
	if len(fields) == 0 {
		switch typ {
		case "tuple":
			b.WriteString("()")
		case "list":
			b.WriteString("[]")
		case "dict":
			b.WriteString("{}")
		case "set", "frozenset":
			b.WriteString(typ + "()")
		default:
			b.WriteString(short)
			if g.Meta().Runtime == "python" {
				b.WriteString("()")
			}
		}
		return
	}
	if depth == 0 {
		b.WriteString(short + "(…)")
		return
	}
	open, closing := short+"(", ")"
	switch {
	case typ == "tuple":
		open = "("
	case typ == "list", strings.HasSuffix(typ, "[]"), typ == "(array)", typ == "Array":
		open, closing = "[", "]"
	case typ == "dict", typ == "set", typ == "frozenset":
		open, closing = "{", "}"
	case g.Meta().Runtime == "java", g.Meta().Runtime == "v8":
		open, closing = short+"{", "}"
	}
	b.WriteString(open)
	for i, f := range fields {
		if i == valueItems {
			b.WriteString(", …")
			break
		}
		if i > 0 {
			b.WriteString(", ")
		}
		switch {
		case f.key != "":
			b.WriteString(f.key + ": ")
		case f.name != "":
			b.WriteString(f.name + "=")
		}
		writeValue(b, g, f.to, depth-1)
		if b.Len() > 2*valueChars {
			b.WriteString(", …")
			break
		}
	}
	if typ == "tuple" && len(fields) == 1 {
		b.WriteString(",")
	}
	b.WriteString(closing)
}

// valueFields lists what ValueText writes of an object: its items in
// order, a dict's entries by key, an instance's attributes (through its
// __dict__; public names before the others), a Java or V8 object's
// fields. Weak edges, the runtime's bookkeeping (internal edges, a V8
// object's __proto__) and a dict's key objects (the entry's name says
// the key) are left out.
func valueFields(g *heap.Graph, id heap.ObjectID) []valueField {
	var items, public, private []valueField
	for _, e := range g.Edges(id) {
		k := e.Label.Kind()
		if k == heap.Weak || k == heap.Internal {
			continue
		}
		if e.Label.IsIndex() {
			items = append(items, valueField{to: e.To})
			continue
		}
		name := g.String(e.Label.Name())
		switch {
		case name == "__dict__":
			for _, f := range valueFields(g, e.To) {
				if strings.HasPrefix(f.name, "_") {
					private = append(private, f)
				} else {
					public = append(public, f)
				}
			}
		case name == "<key>", name == "__proto__":
		case strings.HasPrefix(name, "[") && strings.HasSuffix(name, "]"):
			items = append(items, valueField{key: name[1 : len(name)-1], to: e.To})
		case strings.HasPrefix(name, "."):
			f := valueField{name: name[1:], to: e.To}
			if strings.HasPrefix(f.name, "_") {
				private = append(private, f)
			} else {
				public = append(public, f)
			}
		case name == "":
			items = append(items, valueField{to: e.To})
		default:
			public = append(public, valueField{name: name, to: e.To})
		}
	}
	if len(public) > 0 {
		return append(items, public...) // private state (caches, mangled names) is noise beside it
	}
	return append(items, private...)
}

// PlaceExpr says where a path group's objects sit as the expression a
// programmer would write to reach them: the root (a module's name, a
// Java class's), then each attribute, field and item on the way, with
// namespace steps (__dict__) left out and an unnamed reference written
// as an item: "__main__.ctx._cache.data[*]", "app.Cache.SESSIONS.table[*]". A long expression keeps its first part
// and its last six, with "…" between.
func PlaceExpr(grp analyze.PathGroup) string {
	sig := grp.Signature
	if len(sig) == 0 {
		return rootText(grp.RootKind, grp.RootName)
	}
	var parts []string
	first := sig[0]
	switch {
	case first.Name != "":
		// "class app.Cache", "module app.views": the name without its kind.
		name := first.Name
		if kind, rest, ok := strings.Cut(name, " "); ok && (kind == "class" || kind == "module" || kind == "function") {
			name = rest
		}
		parts = append(parts, name)
	case grp.RootKind == heap.RootModule && grp.RootName != "":
		parts = append(parts, grp.RootName)
	default:
		parts = append(parts, stepLabel(first.Type, first.Name))
	}
	for _, st := range sig[1:] {
		e := st.Edge
		switch {
		case e == "__dict__":
			continue
		case e == "":
			e = "[*]" // an unnamed reference: an item
		case strings.HasPrefix(e, ".") || strings.HasPrefix(e, "["):
		default:
			e = "." + e
		}
		parts = append(parts, e)
	}
	if len(parts) > 8 {
		parts = append([]string{parts[0], "…"}, parts[len(parts)-6:]...)
	}
	return strings.Join(parts, "")
}

// isClassObject reports whether id is a class: a Java class object (it
// has a name), a Python class (it has an MRO).
func isClassObject(g *heap.Graph, id heap.ObjectID) bool {
	if _, named := g.Name(id); named && g.Meta().Runtime == "java" {
		return true
	}
	for _, e := range g.Edges(id) {
		if !e.Label.IsIndex() && e.Label.Kind() == heap.Internal && g.String(e.Label.Name()) == "__mro__" {
			return true
		}
	}
	return false
}
