package report

import (
	"fmt"
	"io"
	"math"
	"strings"

	"github.com/heapscope/heapscope/analyze"
	"github.com/heapscope/heapscope/heap"
)

// DuplicatesData is what the duplicates command shows; the command
// computes it. Each list may be a prefix (--top) of one with the total
// given.
type DuplicatesData struct {
	// Content is the strings and byte strings with equal content.
	Content      []analyze.DupGroup
	ContentTotal int
	// Values is the objects equal by value, by type.
	Values      []analyze.ValueGroup
	ValuesTotal int
	// Classes is the classes that share one name.
	Classes      []analyze.ClassNameGroup
	ClassesTotal int
}

// Duplicates renders what is there more than once: equal strings, objects
// equal by value ("588 llvmlite.ir.types.LiteralStructType, 15 distinct
// values, each built about 39 times"), and classes that share a name.
func Duplicates(w io.Writer, f Format, src Source, t *analyze.DomTree, d DuplicatesData) error {
	g := t.Graph()
	if f == JSON {
		return duplicatesJSON(w, src, t, d)
	}
	if err := header(w, f, src); err != nil {
		return err
	}
	section(w, f, "Equal strings and byte strings")
	if len(d.Content) == 0 {
		fmt.Fprintln(w, "none")
	} else {
		tb := Table{Columns: []Column{{"wasted", true}, {"copies", true}, {"each", true}, {"type", false}, {"example", false}, {"mostly held by", false}}}
		for _, c := range d.Content {
			ex := c.Value
			if r := []rune(ex); len(r) > 40 {
				ex = string(r[:40]) + "…"
			}
			tb.Add(Bytes(c.Wasted), Count(c.Count), Bytes(c.Size), c.Type, quoteIf(ex), heldText(c))
		}
		if err := tb.Write(w, f); err != nil {
			return err
		}
		if err := more(w, f, len(d.Content), d.ContentTotal, "groups"); err != nil {
			return err
		}
	}
	section(w, f, "Objects equal by value (one structure built again and again)")
	if err := valueGroups(w, f, g, d.Values); err != nil {
		return err
	}
	if err := more(w, f, len(d.Values), d.ValuesTotal, "types"); err != nil {
		return err
	}
	section(w, f, "Classes that share one name (a factory makes one per call)")
	if len(d.Classes) == 0 {
		_, err := fmt.Fprintln(w, "none")
		return err
	}
	tb := Table{Columns: []Column{{"classes", true}, {"retained", true}, {"name", false}, {"metaclass", false}, {"held by", false}}}
	for _, c := range d.Classes {
		tb.Add(Count(c.Count), Bytes(c.Retained), c.Name, c.Metaclass, classHolders(c))
	}
	if err := tb.Write(w, f); err != nil {
		return err
	}
	return more(w, f, len(d.Classes), d.ClassesTotal, "names")
}

// ValueGroupText says in one line what a value group is: "588
// llvmlite.ir.types.LiteralStructType, 15 distinct values, each built
// about 39 times".
func ValueGroupText(v analyze.ValueGroup) string {
	s := Count(v.Count) + " " + v.Type + ", "
	if v.Distinct == 1 {
		return s + "1 value, built " + Count(v.Count) + " times"
	}
	per := int(math.Round(float64(v.Count) / float64(v.Distinct)))
	if per <= 1 {
		return s + Count(v.Distinct) + " distinct values, each built once"
	}
	return s + Count(v.Distinct) + " distinct values" + fmt.Sprintf(", each built about %s times", Count(per))
}

// ValueHolderText says where some copies are held and how many: "15 at
// __main__.ctx._cache.data[*] (one of each value: lookups in it miss)".
func ValueHolderText(h analyze.ValueHolder) string {
	s := Count(h.Count) + " at " + PlaceExpr(h.PathGroup)
	if h.OneOfEach {
		s += " (one of each value: lookups in it miss)"
	}
	return s
}

func valueGroups(w io.Writer, f Format, g *heap.Graph, groups []analyze.ValueGroup) error {
	if len(groups) == 0 {
		_, err := fmt.Fprintln(w, "none")
		return err
	}
	if f == Markdown {
		tb := Table{Columns: []Column{{"wasted", true}, {"copies", true}, {"values", true}, {"type", false}, {"held by", false}, {"e.g.", false}}}
		for _, v := range groups {
			var held []string
			for _, h := range v.Holders {
				held = append(held, ValueHolderText(h))
			}
			tb.Add(Bytes(v.Wasted), Count(v.Count), Count(v.Distinct), v.Type, strings.Join(held, "; "), ValueText(g, v.Example))
		}
		return tb.Write(w, f)
	}
	for i, v := range groups {
		if _, err := fmt.Fprintf(w, "#%d  %s, %s wasted\n", i+1, ValueGroupText(v), Bytes(v.Wasted)); err != nil {
			return err
		}
		for j, h := range v.Holders {
			label := "             "
			if j == 0 {
				label = "    held by  "
			}
			fmt.Fprintf(w, "%s%s\n", label, ValueHolderText(h))
		}
		if _, err := fmt.Fprintf(w, "    e.g.     %s  (%s copies)\n", ValueText(g, v.Example), Count(v.ExampleCopies)); err != nil {
			return err
		}
	}
	return nil
}

func classHolders(c analyze.ClassNameGroup) string {
	var parts []string
	for _, h := range c.Holders {
		parts = append(parts, Count(h.Count)+" at "+PlaceExpr(h))
	}
	return strings.Join(parts, "; ")
}

type valueHolderJSON struct {
	Count     int    `json:"count"`
	Distinct  int    `json:"distinct,omitempty"`
	Retained  uint64 `json:"retained_bytes,omitempty"`
	Place     string `json:"place"`
	Signature string `json:"signature"` // the merged paths' signature (see analyze.MergePaths)
	OneOfEach bool   `json:"one_of_each,omitempty"`
}

func duplicatesJSON(w io.Writer, src Source, t *analyze.DomTree, d DuplicatesData) error {
	return WriteJSON(w, DuplicatesDoc(src, t, d))
}

// DuplicatesDoc is what duplicates --json writes, for the web page.
func DuplicatesDoc(src Source, t *analyze.DomTree, d DuplicatesData) any {
	g := t.Graph()
	type rowJSON struct {
		Type    string `json:"type"`
		Count   int    `json:"count"`
		Size    uint64 `json:"size_bytes"`
		Wasted  uint64 `json:"wasted_bytes"`
		Value   string `json:"value,omitempty"`
		HeldBy  string `json:"held_by,omitempty"`
		HeldFor int    `json:"held_by_count,omitempty"`
	}
	type exampleJSON struct {
		objectJSON
		Text string `json:"text"`
	}
	type valueJSON struct {
		Text          string            `json:"text"`
		Type          string            `json:"type"`
		Count         int               `json:"count"`
		Distinct      int               `json:"distinct"`
		Wasted        uint64            `json:"wasted_bytes"`
		Example       exampleJSON       `json:"example"`
		ExampleCopies int               `json:"example_copies"`
		Holders       []valueHolderJSON `json:"holders"`
	}
	type classJSON struct {
		Name      string            `json:"name"`
		Metaclass string            `json:"metaclass"`
		Count     int               `json:"count"`
		Retained  uint64            `json:"retained_bytes"`
		Example   objectJSON        `json:"example"`
		Holders   []valueHolderJSON `json:"holders"`
	}
	rows := []rowJSON{}
	for _, c := range d.Content {
		rows = append(rows, rowJSON{c.Type, c.Count, c.Size, c.Wasted, c.Value, heldText(c), c.HeldCount})
	}
	values := []valueJSON{}
	for _, v := range d.Values {
		j := valueJSON{Text: ValueGroupText(v), Type: v.Type, Count: v.Count, Distinct: v.Distinct, Wasted: v.Wasted,
			Example: exampleJSON{objToJSON(t, v.Example), ValueText(g, v.Example)}, ExampleCopies: v.ExampleCopies, Holders: []valueHolderJSON{}}
		for _, h := range v.Holders {
			j.Holders = append(j.Holders, valueHolderJSON{h.Count, h.Distinct, h.Retained, PlaceExpr(h.PathGroup), SignatureText(h.PathGroup), h.OneOfEach})
		}
		values = append(values, j)
	}
	classes := []classJSON{}
	for _, c := range d.Classes {
		j := classJSON{c.Name, c.Metaclass, c.Count, c.Retained, objToJSON(t, c.Example), []valueHolderJSON{}}
		for _, h := range c.Holders {
			j.Holders = append(j.Holders, valueHolderJSON{Count: h.Count, Place: PlaceExpr(h), Signature: SignatureText(h)})
		}
		classes = append(classes, j)
	}
	return struct {
		Snapshot     Source      `json:"snapshot"`
		Groups       int         `json:"groups"`
		Truncated    bool        `json:"truncated"`
		Rows         []rowJSON   `json:"rows"`
		ValuesTotal  int         `json:"values_total"`
		Values       []valueJSON `json:"values"`
		ClassesTotal int         `json:"class_names_total"`
		Classes      []classJSON `json:"class_names"`
	}{src, d.ContentTotal, len(d.Content) < d.ContentTotal || len(d.Values) < d.ValuesTotal || len(d.Classes) < d.ClassesTotal,
		rows, d.ValuesTotal, values, d.ClassesTotal, classes}
}
