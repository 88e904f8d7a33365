package agent

import (
	"crypto/sha256"
	_ "embed"
	"encoding/hex"
	"fmt"
	"path/filepath"
	"strings"
)

// TrackFlag is the node option that starts V8's allocation tracker
// before the program's first line.
const TrackFlag = "--track-heap-objects"

//go:embed node/preload.js
var nodePreload []byte

// NodePreload returns the path of heapscope's Node preload script, written
// once into a content-named file of heapscope's per-user directory (see
// cache.go); a file there is reused only if it is the user's, writable by
// no one else, and holds exactly the script. `heapscope run` loads it
// into node with NODE_OPTIONS=--require; it reads the same HEAPSCOPE_*
// variables as the Python agent (see [Env]) and names snapshots
// NNNN-PID-REASON.heapsnapshot.
func NodePreload() (string, error) {
	dir, err := privateDir()
	if err != nil {
		return "", err
	}
	return writePreload(dir)
}

// writePreload is NodePreload into the directory dir.
func writePreload(dir string) (string, error) {
	sum := sha256.Sum256(nodePreload)
	p := filepath.Join(dir, "preload-"+hex.EncodeToString(sum[:8])+".js")
	if sameFile(p, nodePreload) {
		return p, nil
	}
	if err := replaceFile(p, nodePreload); err != nil {
		return "", fmt.Errorf("agent: cannot write the node preload: %w", err)
	}
	return p, nil
}

// NodeEnv returns base with NODE_OPTIONS extended to load the preload
// script at path and, with trackAllocations, to start V8's allocation
// tracker (--track-heap-objects, which the inspector's
// HeapProfiler.startTrackingHeapObjects with trackAllocations also
// starts), so that every snapshot records where its objects were
// allocated. The HEAPSCOPE_* variables come from [Env].
func NodeEnv(base []string, preload string, trackAllocations bool) []string {
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
	if trackAllocations {
		req += " " + TrackFlag
	}
	if opts != "" {
		req = opts + " " + req
	}
	return append(out, "NODE_OPTIONS="+req)
}
