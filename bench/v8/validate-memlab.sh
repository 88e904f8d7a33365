#!/usr/bin/env bash
# bench/v8/validate-memlab.sh: do heapscope's retained sizes agree with
# memlab's? Runs the planted-leak Node program of the CLI tests, then
# compares, for the objects heapscope's `top` ranks highest in the final
# snapshot, heapscope's retained size with memlab's for the same V8 node
# id. Needs memlab (installed by run.sh into bench/v8/.memlab); skips
# without it.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
ml=$here/.memlab
if [ ! -d "$ml/node_modules/@memlab/heap-analysis" ]; then
	echo "memlab is not installed in $ml (run bench/v8/run.sh once); skipping"
	exit 0
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
node --expose-gc "$root/cmd/heapscope/testdata/leaky.js" "$work"
(cd "$root" && go build -o "$work/heapscope" ./cmd/heapscope)
snap=$work/final.heapsnapshot
"$work/heapscope" top --json --top ${TOP:-20} "$snap" >"$work/top.json"
# top's rows: [id, addr, type, shallow_bytes, retained_bytes, ...]; a V8
# object's addr is its node id after "@".
ids=$(python3 -c 'import json,sys; print(" ".join(o[1].lstrip("@") for o in json.load(open(sys.argv[1]))["objects"]))' "$work/top.json")
node "$here/retained.js" "$ml" "$snap" $ids >"$work/memlab.txt"
python3 - "$work/top.json" "$work/memlab.txt" <<'PY'
import json, sys
top = json.load(open(sys.argv[1]))["objects"]
ml = dict(l.split() for l in open(sys.argv[2]))
worst = 0.0
print("%-12s %-28s %12s %12s %8s" % ("id", "type", "heapscope", "memlab", "diff"))
for o in top:
    i = o[1].lstrip("@")
    a, b = o[4], int(ml.get(i, -1))
    d = (a - b) / b if b > 0 else float("inf")
    worst = max(worst, abs(d))
    print("%-12s %-28s %12d %12d %7.2f%%" % (i, o[2][:28], a, b, 100 * d))
print("largest difference: %.2f%%" % (100 * worst))
PY
