#!/usr/bin/env bash
# bench/python/values.sh [OBJECTS] [MAIN_BIN]: capture a heap of OBJECTS
# objects (default 5000000) with bench.py, keep the snapshot, and time
# `heapscope top` and `heapscope duplicates` on it, interleaved, three
# times each: duplicates computes the same dominator tree and paths as
# top, then compares every object by value. With MAIN_BIN (a heapscope
# built from another checkout), its duplicates is timed in the same
# rounds.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
n=${1:-5000000}
main=${2:-}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
(cd "$root" && go build -o "$work/heapscope" ./cmd/heapscope)
PYTHONPATH=/usr/lib/python3/dist-packages python3 "$here/bench.py" --objects "$n" --repeat 1 --keep "$work/heap.pysnap" >/dev/null
ls -l "$work/heap.pysnap"
"$work/heapscope" summary --top 1 "$work/heap.pysnap" | head -1
echo "cores: $(nproc); load: $(cut -d' ' -f1-3 /proc/loadavg)"
for i in 1 2 3; do
	/usr/bin/time -f "top: wall %e s, user %U s, sys %S s, max RSS %M KB" "$work/heapscope" top --top 5 "$work/heap.pysnap" >/dev/null
	/usr/bin/time -f "duplicates: wall %e s, user %U s, sys %S s, max RSS %M KB" "$work/heapscope" duplicates --top 5 "$work/heap.pysnap" >/dev/null
	if [ -n "$main" ]; then
		/usr/bin/time -f "duplicates (main): wall %e s, user %U s, sys %S s, max RSS %M KB" "$main" duplicates --top 5 "$work/heap.pysnap" >/dev/null
	fi
done
"$work/heapscope" duplicates --top 3 "$work/heap.pysnap"
