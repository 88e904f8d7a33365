#!/usr/bin/env bash
# Runs every check and test heapscope has: formatting, vet, and the Go
# tests (which run real python3, java and node programs), then the
# browser tests, a module of their own (browsertest/: headless Chromium,
# skipped when it is not installed). It prints a line per package, the
# output of failed tests, then the skipped tests with the reason each
# gave, and "N passed, N failed, N skipped". Its exit status is 0 only
# when every package built and every test passed. A package may take up
# to 30 minutes (go test stops at 10 by default): the agent package runs
# six Pythons, and a loaded machine makes it slow.
set -euo pipefail
cd "$(dirname "$0")"
unformatted=$(gofmt -l $(git ls-files '*.go' 2>/dev/null || find . -name '*.go'))
if [ -n "$unformatted" ]; then
  echo "gofmt would change:" $unformatted >&2
  exit 1
fi
go vet ./...
(cd browsertest && go vet ./...)
bin=$(mktemp -d)
trap 'rm -rf "$bin"' EXIT
go build -o "$bin/testsum" ./internal/testsum
{
  rc=0
  go test -count=1 -timeout 30m -json ./... || rc=1
  (cd browsertest && go test -count=1 -timeout 30m -json ./...) || rc=1
  exit $rc
} | "$bin/testsum"
