#!/usr/bin/env bash
# bench/maxmem/run.sh [DIR]: a dump larger than the memory heapscope may
# use. It writes a BigHeap HPROF of about SIZE_MB (3000: 2.8 GiB, 47M
# objects; bench/hprof/BigHeap.java on the local JDK, dumped live by the
# JVM), then runs `heapscope top` on it with `--max-memory LIMIT` (1G)
# and without (the default budget, 3/4 of the machine's memory, which
# this dump stays under), one run at a time, REPEAT times (2), which goes
# first alternating. Each run is timed by /usr/bin/time (wall, user +
# system CPU, peak RSS); --timings gives each phase's. It checks that the
# two print the same bytes, and prints the figures and ratios.
#
# Disk: the dump (2.8 GiB) and, during the bounded run, spill's unlinked
# files in TMPDIR (about the graph's size, 3 GiB here); the unbounded run
# needs about 4 GiB of memory. The dump is deleted at the end unless
# KEEP=1. Environment: SIZE_MB=3000 LIMIT=1G REPEAT=2 HEAPSCOPE=BIN.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
dir=${1:-/tmp/heapscope-maxmem}
size=${SIZE_MB:-3000}
limit=${LIMIT:-1G}
repeat=${REPEAT:-2}
mkdir -p "$dir"

need=$((size * 3 / 1000 + 4)) # GB: the dump, the spill files, slack
avail=$(df -P --block-size=1G "$dir" | awk 'NR == 2 { print $4 }')
if [ "$avail" -lt "$need" ]; then
	echo "bench/maxmem: $avail GB free in $dir, want $need" >&2
	exit 1
fi

hs=${HEAPSCOPE:-}
if [ -z "$hs" ]; then
	hs=$dir/heapscope
	(cd "$root" && go build -o "$hs" ./cmd/heapscope)
fi
dump=$dir/bigheap-$size.hprof
if [ ! -f "$dump" ]; then
	echo "== writing $dump"
	javac -d "$dir" "$root/bench/hprof/BigHeap.java"
	live=$((size * 775 / 1000)) # the dump is about 1.29 times the live heap
	java -Xmx$((live * 3 + 256))m -cp "$dir" BigHeap "$live" "$dump" >/dev/null
fi
if [ "${KEEP:-0}" != 1 ]; then
	trap 'rm -f "$dump"' EXIT
fi

echo "== machine: $(nproc) cores, $(awk '/MemTotal/ {printf "%.1f GiB", $2/1048576}' /proc/meminfo), load $(cut -d' ' -f1-3 /proc/loadavg)"
echo "== heapscope: $("$hs" version | head -n 1)"
echo "== dump: $(basename "$dump"), $(stat -c %s "$dump") bytes"

# run NAME ARGS...: one timed run of heapscope top; its output goes to
# DIR/NAME.out, its figures to the table.
run() {
	local name=$1 round=$2
	shift 2
	/usr/bin/time -f '%e %U %S %M' -o "$dir/time.txt" "$hs" top --timings "$@" "$dump" >"$dir/$name.out" 2>"$dir/$name.err"
	read -r wall user sys rss < <(tail -n 1 "$dir/time.txt")
	printf '%-22s round %d: wall %7.2f s  CPU %7.2f s  peak RSS %5d MiB\n' \
		"$name" "$round" "$wall" "$(awk "BEGIN { print $user + $sys }")" $((rss / 1024))
	grep '^timings:' "$dir/$name.err" | sed 's/^/    /'
}

for ((r = 1; r <= repeat; r++)); do
	if ((r % 2)); then
		run "max-memory-$limit" "$r" --max-memory "$limit"
		run unbounded "$r"
	else
		run unbounded "$r"
		run "max-memory-$limit" "$r" --max-memory "$limit"
	fi
	if cmp -s "$dir/unbounded.out" "$dir/max-memory-$limit.out"; then
		echo "   round $r: same output ($(wc -c <"$dir/unbounded.out") bytes)"
	else
		echo "   round $r: OUTPUTS DIFFER: diff $dir/unbounded.out $dir/max-memory-$limit.out"
		exit 1
	fi
done
