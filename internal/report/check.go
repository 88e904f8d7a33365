package report

import (
	"encoding/xml"
	"fmt"
	"io"
	"strings"

	"github.com/heapscope/heapscope/analyze"
	"github.com/heapscope/heapscope/heap"
)

// JUnit is the JUnit XML format, for the check command only.
const JUnit Format = 100

// Verdict is one leak finding judged by the check's configuration.
type Verdict struct {
	Finding analyze.LeakFinding
	// Fail: the finding is over every allowance; Reason says why it
	// passes otherwise ("allowed: ...", "below the threshold", "set
	// aside: ..." for a finding that matches a noise rule, named in
	// Finding.Noise).
	Fail   bool
	Reason string
}

// Check renders a check's verdicts. It lists failing findings first, then
// passing ones. Findings set aside as noise are listed in JSON (with
// their owner, see [analyze.PathOwner]) and JUnit; text and Markdown
// count them in one line.
func Check(w io.Writer, f Format, srcs []Source, final *heap.Graph, rep analyze.LeakReport, vs []Verdict) error {
	if f == HTML {
		return htmlReport(w, "check", srcs, func(w io.Writer) error { return Check(w, JSON, srcs, final, rep, vs) })
	}
	fails := 0
	for _, v := range vs {
		if v.Fail {
			fails++
		}
	}
	switch f {
	case JSON:
		type verdictJSON struct {
			Fail    bool        `json:"fail"`
			Reason  string      `json:"reason,omitempty"`
			Owner   string      `json:"owner,omitempty"`
			Finding findingJSON `json:"finding"`
		}
		rows := []verdictJSON{}
		for _, v := range vs {
			owner := ""
			if v.Finding.Noise != "" {
				owner = analyze.PathOwner(rep.Runtime, v.Finding.Parts[0].PathGroup)
			}
			rows = append(rows, verdictJSON{v.Fail, v.Reason, owner, findingsJSON(final, []analyze.LeakFinding{v.Finding})[0]})
		}
		return WriteJSON(w, struct {
			Snapshots []Source             `json:"snapshots"`
			Identity  analyze.IdentityMode `json:"identity"`
			Pass      bool                 `json:"pass"`
			Failures  int                  `json:"failures"`
			Verdicts  []verdictJSON        `json:"verdicts"`
		}{srcs, rep.Mode, fails == 0, fails, rows})
	case JUnit:
		return junit(w, final, rep, vs, fails)
	}
	if err := header(w, f, srcs...); err != nil {
		return err
	}
	status := "PASS: no leak over the allowances"
	if fails > 0 {
		status = fmt.Sprintf("FAIL: %d leak(s) over the allowances", fails)
	}
	if f == Markdown {
		status = "**" + status + "**\n"
	}
	if rep.Suppressed > 0 {
		status += fmt.Sprintf("; %s set aside as known noise (%s; --json lists them)", counted(rep.Suppressed, "group"), counted(rep.SuppressedObjects, "object"))
	}
	if _, err := fmt.Fprintln(w, status); err != nil {
		return err
	}
	for _, v := range vs {
		x := v.Finding
		if x.Noise != "" {
			continue
		}
		mark := "leak"
		if !v.Fail {
			mark = "pass (" + v.Reason + ")"
		}
		line := fmt.Sprintf("%s: %s, retained %s, %s; %s", mark, FindingText(x), Bytes(x.Retained), GrowthText(x), heldByLineNamed(x, checkHolder(rep)))
		if s := SitesLine(x.Parts[0].Alloc); s != "" {
			line += ", allocated at " + s
		}
		lines := []string{line}
		if len(x.Parts) > 1 {
			for _, p := range x.Parts {
				lines = append(lines, fmt.Sprintf("part: %s %s, retained %s, held by %s", Count(p.Count), PartLabel(p), Bytes(p.Retained), SignatureText(p.PathGroup)))
			}
		}
		for i, l := range lines {
			switch {
			case f == Markdown && i == 0:
				l = "- " + mdLine(l)
			case f == Markdown:
				l = "  - " + mdLine(l)
			case i > 0:
				l = "    " + l
			}
			if _, err := fmt.Fprintln(w, l); err != nil {
				return err
			}
		}
	}
	return nil
}

// checkHolder names a holder as [HolderText] does, and another finding
// by what it is ("the objects of 4 (compiled code) at
// (compiled code).function_data, set aside: v8-compiled-code"): check's
// lines have no numbers, and list no finding set aside as noise, so
// "finding #96" would name nothing a reader can find.
func checkHolder(rep analyze.LeakReport) func(analyze.Holder) string {
	return func(h analyze.Holder) string {
		if h.Group < 0 || h.Group >= len(rep.Findings) {
			return HolderText(h, "finding")
		}
		o := rep.Findings[h.Group]
		s := "the objects of " + FindingText(o)
		if o.Noise != "" {
			s += ", set aside: " + o.Noise
		}
		return s
	}
}

func junit(w io.Writer, final *heap.Graph, rep analyze.LeakReport, vs []Verdict, fails int) error {
	type failure struct {
		Message string `xml:"message,attr"`
		Type    string `xml:"type,attr"`
		Text    string `xml:",chardata"`
	}
	type skipped struct {
		Message string `xml:"message,attr"`
	}
	type testcase struct {
		Name      string   `xml:"name,attr"`
		Classname string   `xml:"classname,attr"`
		Failure   *failure `xml:"failure,omitempty"`
		Skipped   *skipped `xml:"skipped,omitempty"`
	}
	type suite struct {
		XMLName  xml.Name   `xml:"testsuite"`
		Name     string     `xml:"name,attr"`
		Tests    int        `xml:"tests,attr"`
		Failures int        `xml:"failures,attr"`
		Cases    []testcase `xml:"testcase"`
	}
	s := suite{Name: "heapscope.check", Failures: fails}
	if len(vs) == 0 {
		s.Cases = append(s.Cases, testcase{Name: "no leak", Classname: "heapscope.leaks"})
	}
	for _, v := range vs {
		x := v.Finding
		biggest := x.Parts[0]
		c := testcase{Name: mainType(x) + " held by " + SignatureText(biggest.PathGroup), Classname: "heapscope.leaks." + rep.Runtime}
		if v.Fail {
			c.Failure = &failure{
				Message: fmt.Sprintf("%s leaked, retaining %s (%d bytes); %s", FindingText(x), Bytes(x.Retained), x.Retained, heldByNamed(x.Holders, checkHolder(rep))),
				Type:    "leak",
				Text:    GrowthText(x) + "\nheld by " + SignatureText(biggest.PathGroup) + "\ne.g. " + PathText(biggest.Sample),
			}
			if s := SitesLine(biggest.Alloc); s != "" {
				c.Failure.Message += ", allocated at " + s
				var b strings.Builder
				writeSites(&b, biggest.Alloc, "", "allocated at")
				c.Failure.Text += "\n" + strings.TrimRight(b.String(), "\n")
			}
		} else {
			c.Skipped = &skipped{Message: v.Reason}
		}
		s.Cases = append(s.Cases, c)
	}
	s.Tests = len(s.Cases)
	if _, err := io.WriteString(w, xml.Header); err != nil {
		return err
	}
	enc := xml.NewEncoder(w)
	enc.Indent("", "  ")
	if err := enc.Encode(s); err != nil {
		return err
	}
	_, err := io.WriteString(w, "\n")
	return err
}

// counted writes n and noun, plural unless n is 1.
func counted(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return Count(n) + " " + noun + "s"
}
