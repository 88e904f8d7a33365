#!/usr/bin/env bash
# bench/python/censusdiff.sh [OBJECTS] [OTHER-BINARY]: time `heapscope diff`
# of two censuses (heapscope.snapshot(path, edges=False)) of a heap of
# OBJECTS objects (default 5000000: bench.py's records), the second with
# 20,000 more lists of a str and a float, as a user runs it; with
# OTHER-BINARY, that heapscope too, interleaved with this checkout's, five
# times each. Prints wall, user and system seconds and peak RSS per run.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
n=${1:-5000000}
other=${2:-}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
(cd "$root" && go build -o "$work/heapscope" ./cmd/heapscope)
PYTHONPATH="$root/agent" /usr/bin/python3 - "$here/bench.py" "$n" "$work" <<'PY'
import importlib.util, os, sys
spec = importlib.util.spec_from_file_location("pybench", sys.argv[1])
pb = importlib.util.module_from_spec(spec)
spec.loader.exec_module(pb)
heap = pb.build(int(sys.argv[2]))
import heapscope
heapscope.snapshot(os.path.join(sys.argv[3], "a.pysnap"), edges=False)
more = [[str(i), float(i)] for i in range(20000)]
heapscope.snapshot(os.path.join(sys.argv[3], "b.pysnap"), edges=False)
PY
ls -l "$work"/*.pysnap
echo "cores: $(nproc); load: $(cut -d' ' -f1-3 /proc/loadavg)"
bins=("$work/heapscope")
[ -n "$other" ] && bins+=("$other")
for i in 1 2 3 4 5; do
	for b in "${bins[@]}"; do
		name=this
		[ "$b" = "$other" ] && name=other
		/usr/bin/time -f "$name: wall %e s, user %U s, sys %S s, max RSS %M KB" \
			"$b" diff "$work/a.pysnap" "$work/b.pysnap" 2>&1 >/dev/null | grep -v warning
	done
done
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
