package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"strings"

	"github.com/heapscope/heapscope/analyze"
)

// config is a check or suppression file (JSON). Every field is optional.
type config struct {
	// Suppress adds noise rules to the built-in catalogue.
	Suppress []analyze.NoiseRule `json:"suppress"`
	// DisableNoise turns built-in rules off by name ("all": every one).
	DisableNoise []string `json:"disable_noise"`
	// Allow lets findings pass the check up to a limit.
	Allow []allowance `json:"allow"`
	// MinBytes and MinCount: findings smaller than both never fail the
	// check (defaults 0 and 1: every finding fails it).
	MinBytes uint64 `json:"min_retained_bytes"`
	MinCount int    `json:"min_count"`
}

// allowance lets a finding through: the type of one of its parts, or
// the type of the entries a part names (Session, for a part of
// HashMap$Nodes whose values are Sessions), equals Type (when set; a "*"
// in Type stands for any text, so "App$$Lambda*" names a lambda whose
// hidden class carries a different address in every run), the path
// text of one of its parts contains Path (when set), and it stays
// within Count objects of the types named (all of them when Type is not
// set) and Bytes retained bytes (0: no limit).
type allowance struct {
	Type   string `json:"type"`
	Path   string `json:"path"`
	Count  int    `json:"count"`
	Bytes  uint64 `json:"bytes"`
	Reason string `json:"reason"`
}

func (a allowance) covers(x analyze.LeakFinding, path string) bool {
	count := x.Count
	if a.Type != "" {
		count = 0
		for _, p := range x.Parts {
			if a.names(p.Type) || (p.Element != "" && a.names(p.Element)) {
				count += p.Count
			}
		}
		if count == 0 {
			return false
		}
	}
	if a.Path != "" && !strings.Contains(path, a.Path) {
		return false
	}
	if a.Count > 0 && count > a.Count {
		return false
	}
	if a.Bytes > 0 && x.Retained > a.Bytes {
		return false
	}
	return a.Type != "" || a.Path != ""
}

// names reports whether the allowance's Type names a type.
func (a allowance) names(typ string) bool {
	if strings.Contains(a.Type, "*") {
		return analyze.MatchClass(typ, a.Type)
	}
	return a.Type == typ
}

// readConfig reads a config file; "" gives the empty config. A missing,
// unreadable or bad file is a misuse (exit status 2), like a bad flag.
func readConfig(path string) (config, error) {
	c, err := readConfigFile(path)
	if err != nil {
		return c, &usageError{err.Error()}
	}
	return c, nil
}

func readConfigFile(path string) (config, error) {
	c := config{MinCount: 1}
	if path == "" {
		return c, nil
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return c, err
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&c); err != nil {
		return c, fmt.Errorf("%s: %w", path, err)
	}
	for i, r := range c.Suppress {
		if r.Root == "" && r.Type == "" && len(r.Through) == 0 && len(r.ThroughType) == 0 && r.Owner == "" {
			return c, fmt.Errorf("%s: suppress rule %d (%q) matches nothing: give root, through, through_type, type or owner", path, i, r.Name)
		}
	}
	return c, nil
}

// noiseRules returns the rules in force: the built-in catalogue less the
// disabled rules, then the config's own.
func (c config) noiseRules() []analyze.NoiseRule {
	var rules []analyze.NoiseRule
	if !slices.Contains(c.DisableNoise, "all") {
		for _, r := range analyze.BuiltinNoise {
			if !slices.Contains(c.DisableNoise, r.Name) {
				rules = append(rules, r)
			}
		}
	}
	return append(rules, c.Suppress...)
}
