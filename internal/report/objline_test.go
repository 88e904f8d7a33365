package report

import (
	"bytes"
	"encoding/json"
	"math/rand/v2"
	"testing"
)

// TestAppendJSONString checks the fast string writer of top's object
// lines against encoding/json (without HTML escaping), on strings of
// every byte: quotes, backslashes, control characters, HTML characters,
// U+2028 and invalid UTF-8.
func TestAppendJSONString(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	pieces := []string{"a", "Z", " ", "\"", "\\", "\n", "\t", "\x00", "\x1f", "<", ">", "&", "é", "\u2028", "\xff", "\xe2\x82", "日本"}
	for i := range 5000 {
		var s string
		for range r.IntN(8) {
			s += pieces[r.IntN(len(pieces))]
		}
		var want bytes.Buffer
		enc := json.NewEncoder(&want)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(s); err != nil {
			t.Fatal(err)
		}
		if got := appendJSONString(nil, s); !bytes.Equal(got, bytes.TrimSuffix(want.Bytes(), []byte("\n"))) {
			t.Fatalf("string %d %q: %s, encoding/json %s", i, s, got, want.Bytes())
		}
	}
}
