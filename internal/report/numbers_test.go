package report

import (
	"math"
	"testing"

	"github.com/heapscope/heapscope/analyze"
)

// TestNumbers: counts and changes per snapshot have thousands
// separators, signs where they are changes, one decimal for rates.
func TestNumbers(t *testing.T) {
	for _, c := range []struct{ got, want string }{
		{Count(0), "0"},
		{Count(999), "999"},
		{Count(1000), "1,000"},
		{Count(-1234567), "-1,234,567"},
		{Count(math.MinInt64), "-9,223,372,036,854,775,808"},
		{SignedCount(27947), "+27,947"},
		{SignedCount(-12), "-12"},
		{SignedFloat(19436.5), "+19,436.5"},
		{SignedFloat(-1234567.25), "-1,234,567.2"},
		{SignedFloat(999.96), "+1,000.0"},
		{SignedFloat(0), "+0.0"},
		{SignedFloat(-0.04), "+0.0"},
		{SignedFloat(-0.5), "-0.5"},
		{SignedFloat(300), "+300.0"},
	} {
		if c.got != c.want {
			t.Errorf("got %q, want %q", c.got, c.want)
		}
	}
}

// TestValueGroupText: how often each value of a group was built, in
// words: once is "once", not "about 1 times".
func TestValueGroupText(t *testing.T) {
	for _, c := range []struct {
		count, distinct int
		want            string
	}{
		{40, 1, "40 app.Key, 1 value, built 40 times"},
		{300, 300, "300 app.Key, 300 distinct values, each built once"},
		{310, 300, "310 app.Key, 300 distinct values, each built once"},
		{588, 15, "588 app.Key, 15 distinct values, each built about 39 times"},
	} {
		if got := ValueGroupText(analyze.ValueGroup{Type: "app.Key", Count: c.count, Distinct: c.distinct}); got != c.want {
			t.Errorf("%d of %d values: %q, want %q", c.count, c.distinct, got, c.want)
		}
	}
}
