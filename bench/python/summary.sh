#!/usr/bin/env bash
# bench/python/summary.sh [OBJECTS]: capture a heap of OBJECTS objects
# (default 5000000) with bench.py, keep the snapshot, and time
# `heapscope summary` and `heapscope top` on it, three times each.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
n=${1:-5000000}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
(cd "$root" && go build -o "$work/heapscope" ./cmd/heapscope)
PYTHONPATH=/usr/lib/python3/dist-packages python3 "$here/bench.py" --objects "$n" --repeat 1 --keep "$work/heap.pysnap" >/dev/null
ls -l "$work/heap.pysnap"
echo "cores: $(nproc); load: $(cut -d' ' -f1-3 /proc/loadavg)"
for cmd in summary top; do
	for i in 1 2 3; do
		/usr/bin/time -f "$cmd: wall %e s, user %U s, sys %S s, max RSS %M KB" "$work/heapscope" $cmd "$work/heap.pysnap" >/dev/null
	done
done
