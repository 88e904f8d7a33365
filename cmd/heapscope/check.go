package main

import (
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/heapscope/heapscope/analyze"
	"github.com/heapscope/heapscope/internal/crash"
	"github.com/heapscope/heapscope/internal/report"
)

func runCheck(args []string, stdout, stderr io.Writer) error {
	fs := flagSet("check", "BASELINE TARGET FINAL", stderr)
	jsonOut := fs.Bool("json", false, "write JSON (same as --format json)")
	format := fs.String("format", "text", "output `format`: text, json, junit or markdown")
	cfgPath := fs.String("config", "", "JSON `file` with allowances, thresholds and suppressions")
	scaling := fs.Bool("scaling", false, "fail only on findings that grew in proportion from baseline to target to final (snapshots after equal work)")
	strict := fs.Bool("strict", false, "fail also on findings that stopped growing (objects gained from baseline to target, none from target to final: warm-up, or a cache that filled once), which pass otherwise")
	var inflate inflateFlag
	inflate.register(fs)
	registerProfileFlags(fs, stderr)
	mixed := fs.Bool(mixedFlag, false, mixedUsage)
	pos, err := parse(fs, args, 3, 3)
	if err != nil {
		return err
	}
	var f report.Format
	switch {
	case *jsonOut:
		f = report.JSON
	case *format == "junit":
		f = report.JUnit
	default:
		if f, err = report.ParseFormat(*format); err != nil {
			return usagef("%v (or junit)", err)
		}
		if f == report.Pprof {
			return usagef("--format pprof is for top and summary; check writes text, json, markdown, html or junit")
		}
	}
	cfg, err := readConfig(*cfgPath)
	if err != nil {
		return err
	}
	crash.FailWith(exitCannotCheck) // a crash too: out of memory is no leak
	gs, srcs, err := loadThree("check", pos, stderr, false, *mixed, inflate)
	if err != nil {
		return cannotCheck(err)
	}
	rules := cfg.noiseRules()
	rep := analyze.Leaks(gs[0], gs[1], gs[2], analyze.LeakOptions{Noise: rules, KeepNoise: true, Scaling: *scaling})
	var vs []report.Verdict
	fails := 0
	for _, x := range rep.Findings {
		v := report.Verdict{Finding: x, Fail: true}
		var paths []string
		for _, p := range x.Parts {
			paths = append(paths, report.SignatureText(p.PathGroup))
		}
		path := strings.Join(paths, "\n")
		switch {
		case x.Noise != "":
			v.Fail, v.Reason = false, "set aside: "+noiseReason(rules, x.Noise)
		case x.Verdict == analyze.Bounded && x.Bound.Full():
			v.Fail, v.Reason = false, "a bounded cache, full and evicting: "+report.BoundText(x.Bound)
		case x.Verdict == analyze.Bounded:
			v.Fail, v.Reason = false, "a bounded cache, filling: "+report.BoundText(x.Bound)
		case x.Verdict == analyze.Stopped && !*strict:
			v.Fail, v.Reason = false, "stopped growing; --strict fails on it"
		case x.Retained < cfg.MinBytes || x.Count < cfg.MinCount:
			v.Fail, v.Reason = false, "below the threshold"
		default:
			for _, a := range cfg.Allow {
				if a.covers(x, path) {
					v.Fail, v.Reason = false, "allowed"
					if a.Reason != "" {
						v.Reason += ": " + a.Reason
					}
					break
				}
			}
		}
		if v.Fail {
			fails++
		}
		vs = append(vs, v)
	}
	if err := report.Check(stdout, f, srcs, gs[2], rep, vs); err != nil {
		return cannotCheck(err)
	}
	if fails > 0 {
		return &exitError{code: exitLeak, msg: fmt.Sprintf("check failed: %d leak(s)", fails)}
	}
	return nil
}

// check's exit statuses. A CI job must tell a leak from a check that
// could not run: like golangci-lint (1 issues found, 3 failure) and diff
// (1 different, 2 trouble), a finding is 1, misuse 2 (bad flags, a bad or
// missing config), and a failure to check (an unreadable snapshot, a
// write error) 3.
const (
	exitLeak        = 1
	exitCannotCheck = 3
)

// cannotCheck turns an error that stopped the check into exit status 3;
// misuse stays 2.
func cannotCheck(err error) error {
	var ue *usageError
	var ee *exitError
	if errors.As(err, &ue) || errors.As(err, &ee) {
		return err
	}
	return &exitError{code: exitCannotCheck, msg: "could not check: " + err.Error()}
}

// noiseReason returns the reason of the rule named name.
func noiseReason(rules []analyze.NoiseRule, name string) string {
	for _, r := range rules {
		if r.Name == name {
			return r.Reason
		}
	}
	return name
}
