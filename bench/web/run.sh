#!/usr/bin/env bash
# bench/web/run.sh [DIR]: time to first view and peak memory of
# heapscope web on the 1 GB HPROF dump (bench/hprof: BigHeap.java, 800 MB
# of live heap) and the 500 MB V8 snapshot (bench/v8: gen.js), made once
# into DIR (default /tmp/heapscope-bench). For each, twice: the server
# (bench/web/main.go: server start to the first JSON of the overview and
# of the top of the dominator tree, then peak RSS), and beside it
# `heapscope tree --depth 1` under /usr/bin/time, the command line doing
# the same work (read, dominators, paths) for comparison.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
dir=${1:-/tmp/heapscope-bench}
mkdir -p "$dir"
hprof=$dir/big-800.hprof
v8=$dir/gen-500.heapsnapshot
if [ ! -f "$hprof" ]; then
	javac -d "$dir" "$root/bench/hprof/BigHeap.java"
	java -Xmx2656m -cp "$dir" BigHeap 800 "$hprof"
fi
if [ ! -f "$v8" ]; then
	node --max-old-space-size=16384 "$root/bench/v8/gen.js" 500 "$v8"
fi
(cd "$root" && go build -o "$dir/heapscope" ./cmd/heapscope && go build -o "$dir/webbench" ./bench/web)
echo "cores: $(nproc); $(go version)"
for snap in "$hprof" "$v8"; do
	ls -l "$snap"
	cat "$snap" >/dev/null # warm the page cache
	for round in 1 2; do
		echo "== heapscope web, round $round (load: $(cut -d' ' -f1-3 /proc/loadavg))"
		"$dir/webbench" -bin "$dir/heapscope" "$snap"
		echo "== heapscope tree --depth 1, round $round (load: $(cut -d' ' -f1-3 /proc/loadavg))"
		/usr/bin/time -f '  wall %e s, user %U s, sys %S s, peak RSS %M KB' "$dir/heapscope" tree --depth 1 --top 3 "$snap" >/dev/null
	done
done
