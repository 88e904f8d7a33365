#!/usr/bin/env bash
# Builds heapscope, runs a small leaking Python service (three snapshots),
# and shows what it holds, what leaks, and why. Usage: examples/demo.sh [DIR]
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
out=${1:-$(mktemp -d)}
mkdir -p "$out"
cd "$root"
# say tells what the demo is doing, on stderr (dimmed on a terminal).
if [ -t 2 ]; then
  say() { printf '\033[2m%s\033[0m\n' "$*" >&2; }
else
  say() { printf '%s\n' "$*" >&2; }
fi
say "building heapscope into $out (go build: minutes on a fresh machine, where Go compiles its standard library first; seconds after)..."
start=$SECONDS
go build -o "$out/heapscope" ./cmd/heapscope
say "built in $((SECONDS - start)) s"
hs="$out/heapscope"
say "running examples/leaky_service.py: a warm-up, 200 requests, 200 more, a snapshot after each..."
start=$SECONDS
PYTHONPATH=$("$hs" python-path) python3 examples/leaky_service.py "$out"
say "three snapshots in $((SECONDS - start)) s: $(cd "$out" && ls *.pysnap | tr '\n' ' ')"
step() { printf '\n\033[1m$ heapscope %s\033[0m\n' "$*"; "$hs" "$@"; }
step summary --top 8 "$out/3-final.pysnap"
step diff --top 6 "$out/1-baseline.pysnap" "$out/3-final.pysnap"
step leaks "$out/1-baseline.pysnap" "$out/2-target.pysnap" "$out/3-final.pysnap"
step why "$out/3-final.pysnap" __main__.Context
step top --top 5 "$out/3-final.pysnap"
echo
echo "snapshots and the heapscope binary are in $out"
