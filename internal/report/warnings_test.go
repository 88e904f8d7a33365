package report

import (
	"bytes"
	"strings"
	"testing"
)

func TestExplainWarning(t *testing.T) {
	tests := []struct {
		runtime, msg string
		kind         string
		expected     bool
	}{
		{"python", "838 references point to no object in the snapshot (first: 0x7f); they were dropped", "references to objects not in the snapshot", true},
		{"java", "674 references point to no object in the dump (first: 0x7ff, from object 0x7ff); they were dropped: JDK 17 leaves the objects of its class data sharing archive that no loaded class uses out of dumps (-Xshare:off avoids them)", "references to objects the JDK leaves out", true},
		{"java", "2 roots point to no object in the dump; they were dropped: JDK 6 and 7 leave the objects of the permanent generation (class metadata, interned strings) out of dumps", "references to objects the JDK leaves out", true},
		// A JDK that dumps every object it refers to: damage.
		{"java", "674 references point to no object in the dump (first: 0x7ff, from object 0x7ff); they were dropped", "references to objects not in the snapshot", false},
		{"v8", "3 references point to no object in the snapshot (first: 0x10); they were dropped", "references to objects not in the snapshot", false},
		{"python", "2 objects share an address with an earlier object; references go to the first", "objects at the same address", true},
		{"java", "2 objects share an id with an earlier object; references go to the first", "objects with the same id", false},
		{"python", "agent: 375 objects are frozen (gc.freeze()); they are found from the roots", "frozen objects", true},
		{"python", "agent: capture stopped early: MemoryError; the snapshot is incomplete", "an incomplete capture", false},
		{"java", "offset 1234: unknown record tag 0x99 (12 bytes); skipped", "unreadable data", false},
		{"python", "5 more warnings not kept", "more warnings", true},
	}
	for _, tc := range tests {
		n := ExplainWarning(tc.runtime, tc.msg)
		if n.Kind != tc.kind || n.Expected != tc.expected || n.Meaning == "" || strings.Contains(n.Meaning, "\n") {
			t.Errorf("ExplainWarning(%s, %q) = %+v, want kind %q, expected %v, a one-line meaning", tc.runtime, tc.msg, n, tc.kind, tc.expected)
		}
	}
}

func TestWarningsLine(t *testing.T) {
	tests := []struct {
		msgs []string
		want string
	}{
		{nil, ""},
		{[]string{"agent: 3 objects are frozen (gc.freeze()); they are found from the roots"},
			"a.pysnap: 1 warning (frozen objects), expected for python snapshots; -v explains it\n"},
		{[]string{"2 objects share an address with an earlier object; references go to the first", "offset 9: 9 bytes after the END trailer ignored"},
			"a.pysnap: 2 warnings (objects at the same address, unreadable data), 1 of them unexpected: the snapshot may be damaged or incomplete; -v explains them\n"},
	}
	for _, tc := range tests {
		var b bytes.Buffer
		Warnings(&b, "a.pysnap", "python", tc.msgs, false)
		if b.String() != tc.want {
			t.Errorf("Warnings(%q) = %q, want %q", tc.msgs, b.String(), tc.want)
		}
	}
}
