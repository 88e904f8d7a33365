package report

import (
	"fmt"
	"io"

	"github.com/heapscope/heapscope/analyze"
	"github.com/heapscope/heapscope/heap"
)

// DiffObjects renders the objects of one row of a diff that are new in
// after (or, with deleted, that before had and after no longer has):
// DevTools' Comparison opened on a constructor. objs is a prefix (--top)
// of the total objects, in ID order of g, the snapshot they are in; each
// is named as why and retainers take it.
func DiffObjects(w io.Writer, f Format, before, after Source, g *heap.Graph, row analyze.TypeDelta, deleted bool, objs []heap.ObjectID, total int) error {
	which, in, other := "new", after, before
	if deleted {
		which, in, other = "deleted", before, after
	}
	if f == JSON {
		type objJSON struct {
			Addr    string `json:"addr"`
			Type    string `json:"type"`
			Name    string `json:"name,omitempty"`
			Shallow uint64 `json:"shallow_bytes"`
			Text    string `json:"text"`
		}
		out := make([]objJSON, 0, len(objs))
		for _, id := range objs {
			o := objJSON{Addr: analyze.IDText(g, id), Type: g.TypeName(g.Type(id)), Shallow: g.Size(id), Text: ObjectText(g, id)}
			o.Name, _ = g.Name(id)
			out = append(out, o)
		}
		return WriteJSON(w, struct {
			Before    Source    `json:"before"`
			After     Source    `json:"after"`
			Row       string    `json:"row"`
			Which     string    `json:"which"`
			In        string    `json:"in"`
			Total     int       `json:"total"`
			Truncated bool      `json:"truncated"`
			Objects   []objJSON `json:"objects"`
		}{before, after, DeltaLabel(row), which, in.Path, total, len(objs) < total, out})
	}
	if err := header(w, f, before, after); err != nil {
		return err
	}
	line := fmt.Sprintf("%s %s objects new in %s (not in %s), by id:", Count(total), DeltaLabel(row), in.Path, other.Path)
	if deleted {
		line = fmt.Sprintf("%s %s objects deleted: in %s, gone from %s; by id:", Count(total), DeltaLabel(row), in.Path, other.Path)
	}
	if err := headerLines(w, f, []string{line}); err != nil {
		return err
	}
	if total == 0 {
		return nil
	}
	t := Table{Columns: []Column{{"shallow", true}, {"object", false}}}
	for _, id := range objs {
		t.Add(Bytes(g.Size(id)), ObjectText(g, id))
	}
	if err := t.Write(w, f); err != nil {
		return err
	}
	return more(w, f, len(objs), total, "objects")
}
