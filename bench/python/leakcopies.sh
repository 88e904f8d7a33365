#!/usr/bin/env bash
# bench/python/leakcopies.sh [RECORDS] [MAIN_BIN]: a Python program that
# keeps RECORDS records (default 600000; about 8 objects each) in a
# module-level list, in three rounds, each record holding a tags list
# that is a copy of one of 500 values, takes a snapshot after each round,
# and times `heapscope leaks` on the three, interleaved with MAIN_BIN's
# (a heapscope built from a checkout before leaks looked for copies),
# three times each: what finding copies beside leaks costs.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
n=${1:-600000}
main=${2:-}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
(cd "$root" && go build -o "$work/heapscope" ./cmd/heapscope)
cat >"$work/grow.py" <<'PY'
import sys
import heapscope

class Record:
    def __init__(self, i, tags):
        self.id = i
        self.name = "r%d" % i
        self.tags = tags
        self.meta = {"kind": "row", "size": i % 97}

TAGS = ["t%d" % i for i in range(500)]
KEPT = []
n = int(sys.argv[1])
for r, path in enumerate(sys.argv[2:]):
    for i in range(r * n // 3, (r + 1) * n // 3):
        KEPT.append(Record(i, [TAGS[i % 500], TAGS[(i * 7) % 500]]))
    heapscope.snapshot(path)
PY
PYTHONPATH="$root/agent" python3 "$work/grow.py" "$n" "$work/1.pysnap" "$work/2.pysnap" "$work/3.pysnap"
ls -l "$work"/*.pysnap
"$work/heapscope" summary --top 1 "$work/3.pysnap" | sed -n 1p
echo "cores: $(nproc); load: $(cut -d' ' -f1-3 /proc/loadavg)"
for i in 1 2 3; do
	/usr/bin/time -f "leaks: wall %e s, user %U s, sys %S s, max RSS %M KB" "$work/heapscope" leaks --top 3 "$work"/{1,2,3}.pysnap >/dev/null
	if [ -n "$main" ]; then
		/usr/bin/time -f "leaks (main): wall %e s, user %U s, sys %S s, max RSS %M KB" "$main" leaks --top 3 "$work"/{1,2,3}.pysnap >/dev/null
	fi
done
"$work/heapscope" leaks --top 1 "$work"/{1,2,3}.pysnap
