#!/usr/bin/env bash
# Runs every check and test heapscope has: formatting, vet, and the Go
# tests (which run real python3, java and node programs), then the
# browser tests, a module of their own (browsertest/: headless Chromium,
# skipped when it is not installed).
set -euo pipefail
cd "$(dirname "$0")"
unformatted=$(gofmt -l $(git ls-files '*.go' 2>/dev/null || find . -name '*.go'))
if [ -n "$unformatted" ]; then
  echo "gofmt would change:" $unformatted >&2
  exit 1
fi
go vet ./...
go test -count=1 ./...
(cd browsertest && go vet ./... && go test -count=1 ./...)
