package main

import (
	"fmt"
	"io"
	"runtime"
	"runtime/debug"

	"github.com/heapscope/heapscope/internal/report"
)

// version is the release version, set when building a release:
// go build -ldflags "-X main.version=v1.2.3" ./cmd/heapscope. Without it,
// the version is the module's (go install module@version) or "devel".
var version string

// buildInfo is what 'heapscope version' reports.
type buildInfo struct {
	Version  string `json:"version"`
	Revision string `json:"revision,omitempty"` // the commit it was built from
	Time     string `json:"time,omitempty"`     // the commit's time
	Modified bool   `json:"modified,omitempty"` // built with uncommitted changes
	Go       string `json:"go"`
	Platform string `json:"platform"`
}

// readBuildInfo reads the version and the commit that the go command
// stamps into the binary (go build in a git checkout).
func readBuildInfo() buildInfo {
	b := buildInfo{Version: version, Go: runtime.Version(), Platform: runtime.GOOS + "/" + runtime.GOARCH}
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		if b.Version == "" {
			b.Version = "devel"
		}
		return b
	}
	if b.Version == "" && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
		b.Version = bi.Main.Version
	}
	if b.Version == "" {
		b.Version = "devel"
	}
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			b.Revision = s.Value
		case "vcs.time":
			b.Time = s.Value
		case "vcs.modified":
			b.Modified = s.Value == "true"
		}
	}
	return b
}

func (b buildInfo) String() string {
	s := "heapscope " + b.Version
	if b.Revision != "" {
		rev := b.Revision
		if len(rev) > 12 {
			rev = rev[:12]
		}
		s += " (commit " + rev
		if b.Time != "" {
			s += " of " + b.Time
		}
		if b.Modified {
			s += ", with uncommitted changes"
		}
		s += ")"
	}
	return s + ", " + b.Go + " " + b.Platform
}

func runVersion(args []string, stdout, stderr io.Writer) error {
	fs := flagSet("version", "", stderr)
	jsonOut := fs.Bool("json", false, "write JSON")
	if _, err := parse(fs, args, 0, 0); err != nil {
		return err
	}
	b := readBuildInfo()
	if *jsonOut {
		return report.WriteJSON(stdout, b)
	}
	_, err := fmt.Fprintln(stdout, b)
	return err
}
