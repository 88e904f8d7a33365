package report

import (
	"fmt"
	"io"
	"slices"
	"strings"
)

// A snapshot's warnings are problems its reader survived. Some come with
// every snapshot of a runtime and change no result; others mean a damaged
// or cut file. WarningNote says which, for people.

// WarningNote explains one warning.
type WarningNote struct {
	// Kind names the kind of warning, in a few words.
	Kind string
	// Expected: it comes with snapshots of the runtime that wrote it,
	// and the analyses stand.
	Expected bool
	// Meaning says in one line what it means and whether to worry.
	Meaning string
}

// warningKind is one kind of warning: the text that identifies it, and
// its meaning per runtime ("" for every other runtime).
type warningKind struct {
	contains string
	kind     string
	notes    map[string]WarningNote
}

var threadsNote = "other threads ran while the agent walked the heap"

// warningKinds are the warnings the readers and the Python agent write,
// matched by the words of their message that name the kind.
var warningKinds = []warningKind{
	// The HPROF reader names the cause where the dump's JDK leaves
	// objects out on purpose; where it names none, a reference to no
	// object is damage.
	{"class data sharing archive", "references to objects the JDK leaves out", map[string]WarningNote{
		"java": {Expected: true, Meaning: "HotSpot (JDK 12+) leaves the objects of its class data sharing archive that no loaded class uses out of dumps, and the tables that refer to them keep dangling references; -Xshare:off avoids them; the objects your program made are all there"},
	}},
	{"permanent generation", "references to objects the JDK leaves out", map[string]WarningNote{
		"java": {Expected: true, Meaning: "JDK 6 and 7 keep class metadata (and JDK 6 interned strings) in the permanent generation, which their dumps leave out; references and JNI roots into it are dropped; the objects your program made are all there"},
	}},
	{"references point to no object", "references to objects not in the snapshot", map[string]WarningNote{
		"python": {Expected: true, Meaning: "objects freed while the snapshot was taken (" + threadsNote + "); their references were dropped, the rest is sound"},
		"":       {Meaning: "the snapshot refers to objects it does not contain: it may be damaged or cut short"},
	}},
	{"share an address", "objects at the same address", map[string]WarningNote{
		"python": {Expected: true, Meaning: "an object freed during the capture and a new one at its address (" + threadsNote + "); references go to the first"},
		"":       {Meaning: "two objects claim one address: the snapshot may be damaged"},
	}},
	{"share an id", "objects with the same id", map[string]WarningNote{
		"": {Meaning: "two objects claim one id, which a runtime never writes: the dump may be damaged, or two dumps joined"},
	}},
	{"roots point to no object", "roots of objects not in the snapshot", map[string]WarningNote{
		"python": {Expected: true, Meaning: "roots (a thread's frames, a module) that went away during the capture (" + threadsNote + "); they were dropped"},
		"":       {Meaning: "roots that name objects the snapshot does not contain: it may be damaged or cut short"},
	}},
	{"are frozen (gc.freeze())", "frozen objects", map[string]WarningNote{
		"python": {Expected: true, Meaning: "the program or the interpreter froze objects out of the collector (gc.freeze()); the agent found them from the roots, so nothing is missing"},
	}},
	{"changed size during iteration", "a dict that changed during the capture", map[string]WarningNote{
		"python": {Expected: true, Meaning: "another thread changed a dict while the agent read it; its entries come from a second reading"},
	}},
	{"get unnamed edges", "unnamed references", map[string]WarningNote{
		"python": {Expected: true, Meaning: "the agent could not name some references of these objects (a type it does not know how to read); paths through them show no field name"},
	}},
	{"edges are unnamed", "unnamed references", map[string]WarningNote{
		"python": {Expected: true, Meaning: "the agent could not name some references of these objects; paths through them show no field name"},
	}},
	{"defines __sizeof__ in Python", "sizes from object.__sizeof__", map[string]WarningNote{
		"python": {Expected: true, Meaning: "the agent never runs the program's code, so these objects' sizes leave out what their own __sizeof__ would add"},
	}},
	{"capture stopped early", "an incomplete capture", map[string]WarningNote{
		"": {Meaning: "the capture failed part way: objects are missing and every number is too small; take the snapshot again"},
	}},
	{"more warnings", "more warnings", map[string]WarningNote{
		"": {Expected: true, Meaning: "the rest of the warnings, not kept one by one"},
	}},
}

// ExplainWarning says what a warning (its message) means in a snapshot of
// runtime ("python", "java", "v8").
func ExplainWarning(runtime, msg string) WarningNote {
	for _, k := range warningKinds {
		if !strings.Contains(msg, k.contains) {
			continue
		}
		n, ok := k.notes[runtime]
		if !ok {
			n, ok = k.notes[""]
		}
		if !ok {
			n = WarningNote{Meaning: "unexpected in a " + runtime + " snapshot: it may be damaged"}
		}
		n.Kind = k.kind
		return n
	}
	return WarningNote{Kind: "unreadable data", Meaning: "the reader skipped data it could not use: the snapshot may be damaged, cut short, or from a newer version, and the numbers may be incomplete"}
}

// Warnings writes a snapshot's warnings for people on w: with verbose,
// each with what it means under it; without, one line that counts them,
// says whether they are expected, and points to -v. It writes nothing
// when there are none.
func Warnings(w io.Writer, path, runtime string, msgs []string, verbose bool) error {
	if len(msgs) == 0 {
		return nil
	}
	if verbose {
		for _, m := range msgs {
			n := ExplainWarning(runtime, m)
			fmt.Fprintf(w, "%s: warning: %s\n", path, m)
			if _, err := fmt.Fprintf(w, "%s:   %s: %s\n", path, worry(n), n.Meaning); err != nil {
				return err
			}
		}
		return nil
	}
	var kinds []string
	unexpected := 0
	for _, m := range msgs {
		n := ExplainWarning(runtime, m)
		if !n.Expected {
			unexpected++
		}
		if !slices.Contains(kinds, n.Kind) && n.Kind != "more warnings" {
			kinds = append(kinds, n.Kind)
		}
	}
	them := "them"
	if len(msgs) == 1 {
		them = "it"
	}
	var verdict string
	switch {
	case unexpected == 0:
		verdict = fmt.Sprintf("expected for %s snapshots", runtime)
	case unexpected == len(msgs):
		verdict = "the snapshot may be damaged or incomplete"
	default:
		verdict = Count(unexpected) + " of them unexpected: the snapshot may be damaged or incomplete"
	}
	_, err := fmt.Fprintf(w, "%s: %s (%s), %s; -v explains %s\n", path, plural(len(msgs), "warning"), strings.Join(kinds, ", "), verdict, them)
	return err
}

func worry(n WarningNote) string {
	if n.Expected {
		return "expected, no harm"
	}
	return "unexpected, look into it"
}

func plural(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return Count(n) + " " + what + "s"
}
