package hprof

import (
	"bytes"
	"encoding/binary"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// joinDumps joins HPROF files of one JVM into one file as the old hprof
// agent wrote several dumps: the first file whole, then the records of
// each next one, whose heap-dump records carry the microseconds since
// the first file's header time.
func joinDumps(t *testing.T, files ...[]byte) []byte {
	t.Helper()
	headerLen := func(b []byte) int { return bytes.IndexByte(b, 0) + 1 + 12 }
	start := func(b []byte) time.Time {
		return time.UnixMilli(int64(binary.BigEndian.Uint64(b[headerLen(b)-8:])))
	}
	out := append([]byte(nil), files[0]...)
	t0 := start(files[0])
	for _, f := range files[1:] {
		micros := uint32(start(f).Sub(t0).Microseconds())
		recs := append([]byte(nil), f[headerLen(f):]...)
		for off := 0; off+9 <= len(recs); {
			tag := recs[off]
			if tag == tagHeapDump || tag == tagHeapDumpSeg || tag == tagHeapDumpEnd {
				binary.BigEndian.PutUint32(recs[off+1:], micros)
			}
			off += 9 + int(binary.BigEndian.Uint32(recs[off+5:]))
		}
		out = append(out, recs...)
	}
	return out
}

// TestSeveralDumps joins two dumps of one real JVM, taken 1,000 items
// apart, into one file as the old hprof agent laid them out, and checks
// that the reader never merges them: it reads the last by default and
// either with Options.Dump, each exactly as it reads the dump's own
// file, and lists both with their object counts and times.
func TestSeveralDumps(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("java"); err != nil {
		t.Skip("java not found")
	}
	dir := t.TempDir()
	src, _ := filepath.Abs("testdata/java/Growing.java")
	p1, p2 := filepath.Join(dir, "1.hprof"), filepath.Join(dir, "2.hprof")
	if out, err := exec.Command("java", "-Xmx128m", "-Xshare:off", src, p1, p2).CombinedOutput(); err != nil {
		t.Fatalf("java: %v\n%s", err, out)
	}
	var files [][]byte
	var alone []map[string]histEntry
	for _, p := range []string{p1, p2} {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		g, err := Open(p)
		if err != nil {
			t.Fatal(err)
		}
		if g.Meta().Dumps != nil {
			t.Errorf("%s: a file of one dump lists dumps %v", p, g.Meta().Dumps)
		}
		files = append(files, b)
		alone = append(alone, graphHistogram(g))
	}
	joined := joinDumps(t, files...)
	for _, c := range []struct {
		dump, want int
	}{{0, 2}, {1, 1}, {2, 2}} {
		g, err := Options{Dump: c.dump}.Read(bytes.NewReader(joined), int64(len(joined)))
		if err != nil {
			t.Fatalf("dump %d: %v", c.dump, err)
		}
		for _, w := range g.Warnings() {
			t.Errorf("dump %d: warning: %v", c.dump, w)
		}
		got, want := graphHistogram(g), alone[c.want-1]
		if len(got) != len(want) {
			t.Errorf("dump %d: %d types, dump %d alone %d", c.dump, len(got), c.want, len(want))
		}
		for name, w := range want {
			if got[name] != w {
				t.Errorf("dump %d: %s %+v, dump %d alone %+v", c.dump, name, got[name], c.want, w)
			}
		}
		if n := got["Growing$Item"].count; n != uint64(1000*c.want) {
			t.Errorf("dump %d: %d items, want %d", c.dump, n, 1000*c.want)
		}
		ds := g.Meta().Dumps
		if len(ds) != 2 {
			t.Fatalf("dump %d: dumps %v, want 2", c.dump, ds)
		}
		for i, d := range ds {
			n := 0
			for _, e := range alone[i] {
				n += int(e.count)
			}
			if d.Number != i+1 || d.Objects != n || d.Read != (i+1 == c.want) {
				t.Errorf("dump %d: listed %+v, want number %d, %d objects, read %v", c.dump, d, i+1, n, i+1 == c.want)
			}
		}
		if !ds[1].Time.After(ds[0].Time) {
			t.Errorf("dump times %v, %v: want the second later", ds[0].Time, ds[1].Time)
		}
	}
	if _, err := (Options{Dump: 3}).Read(bytes.NewReader(joined), int64(len(joined))); !errors.Is(err, ErrNoSuchDump) {
		t.Errorf("dump 3 of 2: %v, want ErrNoSuchDump", err)
	}
	// Cut in the middle of the second dump: the first is whole and reads
	// with a warning that says so; the second is cut.
	cut := joined[:len(files[0])+(len(files[1])/2)]
	g, err := Options{Dump: 1}.Read(bytes.NewReader(cut), int64(len(cut)))
	if err != nil || len(g.Warnings()) != 1 {
		t.Errorf("dump 1 of a file cut in dump 2: %v, warnings %v", err, g.Warnings())
	}
	if _, err := Read(bytes.NewReader(cut), int64(len(cut))); err == nil {
		t.Errorf("dump 2 of a file cut in dump 2 reads without error")
	}
}

// TestSummaryWarningsKept checks that the warnings that sum up a dump's
// problems (here: references to objects not in the dump) are kept and
// come first, however many warnings about single records came before.
func TestSummaryWarningsKept(t *testing.T) {
	w := newDumpWriter("JAVA PROFILE 1.0.2", 8)
	writeJavaBase(w)
	w.class(clsNode, clsObject, "com/example/Node", nil, []testField{{"next", typeObject, 0}})
	w.instance(0x2000, clsNode, w.data().ref(0x9990).bytes())
	w.flush(tagHeapDumpSeg)
	for i := 0; i < 250; i++ {
		w.seg.WriteByte(0x77) // an unknown sub-record
		w.flush(tagHeapDumpSeg)
	}
	data := w.bytes()
	g, err := Read(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		t.Fatal(err)
	}
	ws := g.Warnings()
	if len(ws) < 2 || !strings.Contains(ws[0].Msg, "1 references point to no object") {
		t.Fatalf("first warning %v of %d, want the dangling references", ws[:1], len(ws))
	}
	if last := ws[len(ws)-1].Msg; !strings.Contains(last, "more warnings not kept") {
		t.Errorf("last warning %q, want the count of those not kept", last)
	}
}

// TestMissingCause checks that a warning about roots to objects the dump
// does not hold names the cause where the dump's JDK leaves objects out
// on purpose (JDK 6 and 7: the permanent generation), and none where it
// does not (JDK 9+ without class data sharing's version: damage).
func TestMissingCause(t *testing.T) {
	for _, c := range []struct {
		class, want string
	}{
		{"java/util/HashMap$Entry", "permanent generation"},
		{"java/lang/Module", ""},
	} {
		w := newDumpWriter("JAVA PROFILE 1.0.2", 8)
		writeJavaBase(w)
		w.class(0x1100, clsObject, c.class, nil, nil)
		w.root(subRootJNIGlobal, 0x9990) // not in the dump
		w.instance(0x2000, clsObject, nil)
		data := w.bytes()
		g, err := Read(bytes.NewReader(data), int64(len(data)))
		if err != nil {
			t.Fatal(err)
		}
		ws := g.Warnings()
		if len(ws) != 1 || !strings.Contains(ws[0].Msg, "1 roots point to no object") {
			t.Fatalf("%s: warnings %v", c.class, ws)
		}
		if got := strings.Contains(ws[0].Msg, "permanent generation"); got != (c.want != "") {
			t.Errorf("%s: warning %q, want the cause %q", c.class, ws[0].Msg, c.want)
		}
	}
}
