//go:build !unix

package agent

import "io/fs"

// owner is unknown without Unix file ownership.
func owner(fs.FileInfo) (int, bool) { return 0, false }
