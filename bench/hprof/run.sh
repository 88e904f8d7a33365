#!/bin/sh
# run.sh MB [DIR]: builds a HotSpot heap dump of about MB megabytes of
# live heap with BigHeap.java, then times reading it with hprof.Open
# (bench/hprof/count; replace with `heapscope summary` once the CLI reads
# HPROF). Prints wall time and peak RSS from /usr/bin/time -v.
set -eu
mb=${1:?usage: run.sh MB [DIR]}
dir=${2:-/tmp/heapscope-bench}
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
mkdir -p "$dir"
dump="$dir/big-$mb.hprof"
if [ ! -f "$dump" ]; then
	javac -d "$dir" "$here/BigHeap.java"
	java -Xmx$((mb * 3 + 256))m -cp "$dir" BigHeap "$mb" "$dump"
fi
ls -l "$dump"
(cd "$root" && go build -o "$dir/count" ./bench/hprof/count)
cat "$dump" >/dev/null # warm the page cache
/usr/bin/time -v "$dir/count" "$dump" 2>"$dir/time.txt"
grep -E 'Elapsed|Maximum resident|User time|System time' "$dir/time.txt"
