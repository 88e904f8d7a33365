#!/bin/sh
# run.sh [DIR]: the size of top --format pprof and its CPU time beside
# top's text report, on a HotSpot dump of about 300 MB (BigHeap.java,
# bench/hprof) and a Python heap of sympy expressions (bench/python
# bench.py --sympy, Debian's python3 with python3-sympy), with the
# default folding and with --min-frame 0. Each file is made once and
# kept in DIR. go tool pprof -top prints the total the profile adds up to.
set -eu
dir=${1:-/tmp/heapscope-bench}
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
mkdir -p "$dir"
(cd "$root" && go build -o "$dir/heapscope" ./cmd/heapscope)
if [ ! -f "$dir/big-300.hprof" ]; then
	javac -d "$dir" "$root/bench/hprof/BigHeap.java"
	java -Xmx1200m -cp "$dir" BigHeap 300 "$dir/big-300.hprof"
fi
if [ ! -f "$dir/sympy.pysnap" ]; then
	/usr/bin/python3 "$root/bench/python/bench.py" --sympy --objects 1000000 --keep "$dir/sympy.pysnap"
fi
for snap in "$dir/big-300.hprof" "$dir/sympy.pysnap"; do
	for round in 1 2 3; do
		for mode in text default all; do
			case $mode in
			text) set -- top "$snap" ;;
			default) set -- top --format pprof "$snap" ;;
			all) set -- top --format pprof --min-frame 0 "$snap" ;;
			esac
			/usr/bin/time -f "%U %S %M" -o "$dir/time.txt" "$dir/heapscope" "$@" >"$dir/out" 2>/dev/null
			read -r user sys rss <"$dir/time.txt"
			size=$(wc -c <"$dir/out")
			frames=""
			if [ "$mode" != text ]; then
				frames=$(go tool pprof -raw "$dir/out" 2>/dev/null | sed -n '/^Locations/,/^Mappings/p' | grep -c '^ *[0-9]*: ')
			fi
			echo "$(basename "$snap") round $round $mode: cpu $(echo "$user + $sys" | bc) s, peak RSS $((rss / 1024)) MB, output $size bytes${frames:+, $frames functions}"
		done
	done
done
