package agent

import (
	"crypto/sha256"
	_ "embed"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

//go:embed node/preload.js
var nodePreload []byte

// NodePreload returns the path of heapscope's Node preload script, written
// once into a content-named file of the user's cache directory (or the
// temporary directory). `heapscope run` loads it into node with
// NODE_OPTIONS=--require; it reads the same HEAPSCOPE_* variables as the
// Python agent (see [Env]) and names snapshots NNNN-PID-REASON.heapsnapshot.
func NodePreload() (string, error) {
	sum := sha256.Sum256(nodePreload)
	name := "preload-" + hex.EncodeToString(sum[:8]) + ".js"
	var lastErr error
	for _, base := range cacheBases() {
		dir := filepath.Join(base, "heapscope")
		p := filepath.Join(dir, name)
		if b, err := os.ReadFile(p); err == nil && string(b) == string(nodePreload) {
			return p, nil
		}
		if err := os.MkdirAll(dir, 0o755); err != nil {
			lastErr = err
			continue
		}
		tmp, err := os.CreateTemp(dir, ".preload-*")
		if err != nil {
			lastErr = err
			continue
		}
		_, werr := tmp.Write(nodePreload)
		cerr := tmp.Close()
		if werr == nil && cerr == nil {
			if err := os.Rename(tmp.Name(), p); err == nil {
				return p, nil
			} else {
				lastErr = err
			}
		} else {
			lastErr = fmt.Errorf("writing %s: %v %v", tmp.Name(), werr, cerr)
		}
		os.Remove(tmp.Name())
	}
	return "", fmt.Errorf("cannot write the node preload: %w", lastErr)
}

func cacheBases() []string {
	var bases []string
	if d, err := os.UserCacheDir(); err == nil {
		bases = append(bases, d)
	}
	return append(bases, os.TempDir())
}

// NodeEnv returns base with NODE_OPTIONS extended to load the preload
// script at path. The HEAPSCOPE_* variables come from [Env].
func NodeEnv(base []string, preload string) []string {
	out := make([]string, 0, len(base)+1)
	opts := ""
	for _, kv := range base {
		if v, ok := strings.CutPrefix(kv, "NODE_OPTIONS="); ok {
			opts = v
			continue
		}
		out = append(out, kv)
	}
	req := "--require=" + preload
	if strings.ContainsAny(preload, " \t\"'\\") {
		req = `--require="` + strings.ReplaceAll(preload, `"`, `\"`) + `"`
	}
	if opts != "" {
		req = opts + " " + req
	}
	return append(out, "NODE_OPTIONS="+req)
}
