package report

import (
	"strconv"

	"github.com/heapscope/heapscope/analyze"
	"github.com/heapscope/heapscope/heap"
)

// ObjectText names an object for people: "app.Item@0x3000", with its
// value label quoted when it has one ("str@0x2000 'cache'").
func ObjectText(g *heap.Graph, id heap.ObjectID) string {
	if id == analyze.SuperRoot {
		return "(all roots)"
	}
	s := g.TypeName(g.Type(id)) + "@" + addrText(g.Addr(id))
	if v, ok := g.Value(id); ok {
		s += " " + strconv.Quote(v)
	}
	return s
}

// objectJSON is an object as JSON shows it.
type objectJSON struct {
	Addr     string `json:"addr"`
	Type     string `json:"type"`
	Shallow  uint64 `json:"shallow_bytes"`
	Retained uint64 `json:"retained_bytes"`
	Value    string `json:"value,omitempty"`
}

func objToJSON(t *analyze.DomTree, id heap.ObjectID) objectJSON {
	g := t.Graph()
	o := objectJSON{Addr: addrText(g.Addr(id)), Type: g.TypeName(g.Type(id)), Shallow: g.Size(id), Retained: t.Retained(id)}
	o.Value, _ = g.Value(id)
	return o
}
