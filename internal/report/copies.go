package report

import (
	"strings"

	"github.com/heapscope/heapscope/analyze"
)

// CopiesText says in one line that a finding's objects are copies and
// of what: "196 llvmlite.ir.types.LiteralStructType, 15 distinct
// values, each built about 13 times; equal by value to 392 more: 15 at
// __main__.ctx._cache.data[*] (one of each value: lookups in it miss),
// 377 at __main__.module.globals[*].ftype.args[*]".
func CopiesText(c analyze.Copies) string {
	s := ValueGroupText(analyze.ValueGroup{Type: c.Type, Count: c.Objects, Distinct: c.Distinct})
	if c.Equal == 0 {
		return s
	}
	s += "; equal by value to " + Count(c.Equal) + " more"
	var held []string
	for _, h := range c.Holders {
		held = append(held, ValueHolderText(h))
	}
	if len(held) > 0 {
		s += ": " + strings.Join(held, ", ")
	}
	return s
}

// CopiesJSON is a finding's copies as leaks --json and the web page
// write them.
type CopiesJSON struct {
	Text     string            `json:"text"`
	Type     string            `json:"type"`
	Count    int               `json:"count"`
	Distinct int               `json:"distinct"`
	Retained uint64            `json:"retained_bytes"`
	Equal    int               `json:"equal"`
	Misses   bool              `json:"misses,omitempty"`
	Holders  []valueHolderJSON `json:"holders"`
}

// CopiesToJSON is c in JSON; nil for nil.
func CopiesToJSON(c *analyze.Copies) *CopiesJSON {
	if c == nil {
		return nil
	}
	j := &CopiesJSON{Text: CopiesText(*c), Type: c.Type, Count: c.Objects, Distinct: c.Distinct, Retained: c.Retained,
		Equal: c.Equal, Misses: c.Misses, Holders: []valueHolderJSON{}}
	for _, h := range c.Holders {
		j.Holders = append(j.Holders, valueHolderJSON{h.Count, h.Distinct, h.Retained, PlaceExpr(h.PathGroup), SignatureText(h.PathGroup), h.OneOfEach})
	}
	return j
}
