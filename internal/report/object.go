package report

import (
	"strconv"

	"github.com/heapscope/heapscope/analyze"
	"github.com/heapscope/heapscope/heap"
)

// ObjectText names an object for people: "app.Item@0x3000", with its
// value label quoted when it has one ("str@0x2000 'cache'"), and by its
// own name when it has one, in place of its type ("class
// leakbench.SessionCache@0xff1023c8", not "java.lang.Class@0xff1023c8").
// A V8 object is named as DevTools names it, its id in decimal after a
// space: "Server @47297" (see [analyze.IDText]).
func ObjectText(g *heap.Graph, id heap.ObjectID) string {
	if id == analyze.SuperRoot {
		return "(all roots)"
	}
	s := objectLabel(g, id) + idSuffix(g, id)
	if v, ok := g.Value(id); ok {
		s += " " + strconv.Quote(v)
	}
	return s
}

// idSuffix is what follows an object's name to say which object it is:
// "@0x3000", or " @47297" for V8.
func idSuffix(g *heap.Graph, id heap.ObjectID) string {
	if g.Meta().Runtime == "v8" {
		return " " + analyze.IDText(g, id)
	}
	return "@" + analyze.IDText(g, id)
}

// objectLabel is the object's name, or its type name when it has none.
func objectLabel(g *heap.Graph, id heap.ObjectID) string {
	if name, ok := g.Name(id); ok {
		return name
	}
	return g.TypeName(g.Type(id))
}

// stepLabel is what a path shows for a step: the object's name, or its
// type name when it has none.
func stepLabel(typ, name string) string {
	if name != "" {
		return name
	}
	return typ
}

// objectJSON is an object as JSON shows it.
type objectJSON struct {
	Addr     string `json:"addr"`
	Type     string `json:"type"`
	Name     string `json:"name,omitempty"`
	Shallow  uint64 `json:"shallow_bytes"`
	Retained uint64 `json:"retained_bytes"`
	Value    string `json:"value,omitempty"`
}

func objToJSON(t *analyze.DomTree, id heap.ObjectID) objectJSON {
	g := t.Graph()
	o := objectJSON{Addr: analyze.IDText(g, id), Type: g.TypeName(g.Type(id)), Shallow: g.Size(id), Retained: t.Retained(id)}
	o.Value, _ = g.Value(id)
	o.Name, _ = g.Name(id)
	return o
}
