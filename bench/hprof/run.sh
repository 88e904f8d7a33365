#!/bin/sh
# run.sh MB [DIR]: builds a HotSpot heap dump of about MB megabytes of
# live heap with BigHeap.java (once; it is kept in DIR), then, one after
# the other on the same dump with a warm page cache:
#
#   1. bench/hprof/count: hprof.Open, a per-type histogram, then
#      analyze.Dominators (retained sizes); it prints wall and CPU time
#      per phase;
#   2. VisualVMHeap.java: the same with VisualVM's heap engine
#      (jfluid-heap from the Debian package visualvm: apt-get install
#      visualvm), when it is installed; VVM_XMX sets its -Xmx (2g).
#
# Each runs under /usr/bin/time -v, which gives wall, user, system and
# peak RSS. COUNT_FLAGS adds flags to count (e.g. -gogc 50).
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

summary() { # summary NAME TIMEFILE
	echo "== $1: /usr/bin/time -v"
	grep -E 'Elapsed|Maximum resident|User time|System time' "$2"
}

echo "== heapscope: count -dom ${COUNT_FLAGS:-}"
# shellcheck disable=SC2086
/usr/bin/time -v "$dir/count" -dom ${COUNT_FLAGS:-} "$dump" 2>"$dir/time-count.txt"
summary heapscope "$dir/time-count.txt"

jar=$(find /usr/share/visualvm -name 'org-graalvm-visualvm-lib-jfluid-heap.jar' 2>/dev/null | head -n 1)
if [ -z "$jar" ]; then
	echo "VisualVM's heap engine not found (apt-get install visualvm); skipped"
	exit 0
fi
cp="$jar:/usr/share/java/org-openide-util.jar:/usr/share/java/org-openide-util-lookup.jar"
javac -cp "$cp" -d "$dir" "$here/VisualVMHeap.java"
cat "$dump" >/dev/null
echo "== VisualVM $(dpkg-query -W -f '${Version}' visualvm 2>/dev/null || true): VisualVMHeap, -Xmx${VVM_XMX:-2g}"
# The engine keeps its index files next to the dump; start afresh.
rm -rf "$dump".hwcache
/usr/bin/time -v java -Xmx"${VVM_XMX:-2g}" -cp "$cp:$dir" VisualVMHeap "$dump" 2>"$dir/time-visualvm.txt"
summary VisualVM "$dir/time-visualvm.txt"
