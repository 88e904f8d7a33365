#!/usr/bin/env bash
# bench/compare.sh [DIR]: heapscope side by side with the peers, with the
# commands users run, on generated dumps of about 100 MB and 1 GB. The
# README's speed table quotes what it prints.
#
#   HPROF (BigHeap.java on the local JDK, dumped live by the JVM):
#     heapscope top DUMP        vs  VisualVM's heap engine: VisualVMHeap.java
#                                   DUMP (histogram, dominator tree, the
#                                   biggest objects by retained size)
#     heapscope summary DUMP    vs  VisualVMHeap.java DUMP histogram
#   V8 (gen.js on the local node, v8.writeHeapSnapshot):
#     heapscope top SNAP        vs  memlab analyze object-size --snapshot SNAP
#     heapscope summary SNAP        (memlab has no per-type count)
#     heapscope leaks A B C     vs  memlab find-leaks --baseline A --target B
#                                   --final C (three snapshots of one
#                                   process, requests served between them)
#
# Every workload runs REPEAT times (3); the tools take turns, and which
# goes first alternates from round to round, so that the load of a shared
# machine falls on both. Each run is timed by /usr/bin/time: wall, CPU
# (user + system) and peak RSS. It prints every run, then per workload
# the range of each figure and the peer/heapscope ratio of each round.
#
# Dumps are made once and kept in DIR (default /tmp/heapscope-compare;
# never in git): about 2 GB for the 100 MB set, 7 GB with the 1 GB set.
# The peers are installed on first use: VisualVM from Debian (apt-get
# install visualvm, as root), memlab from npm into DIR/memlab
# (PUPPETEER_SKIP_DOWNLOAD=1 npm install memlab). Environment:
#   SIZES="100 1000"  dump sizes in MB      REPEAT=3   runs per tool
#   LEAKS="100"       the sizes leaks runs at (default: SIZES); its three
#                     snapshots are made only for those
#   ONLY=hprof|v8     one format            PEERS=0    heapscope only
#   HEAPSCOPE=BIN     the binary to time (default: built from this tree)
#   OLD=BIN           also time another heapscope binary (before/after)
#   VVM_XMX=4g        VisualVM's heap (its default, 768m, is slower)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/.." && pwd)
dir=${1:-/tmp/heapscope-compare}
sizes=${SIZES:-100 1000}
repeat=${REPEAT:-3}
only=${ONLY:-}
leaks=${LEAKS:-$sizes}
peers=${PEERS:-1}
mkdir -p "$dir"
results=$dir/results.txt
: >"$results"

hs=${HEAPSCOPE:-}
if [ -z "$hs" ]; then
	hs=$dir/heapscope
	(cd "$root" && go build -o "$hs" ./cmd/heapscope)
fi
old=${OLD:-}

# --- peers -------------------------------------------------------------
vvm_cp=
vvm_version=
if [ "$peers" != 0 ] && [ "$only" != v8 ]; then
	jar=$(find /usr/share/visualvm -name 'org-graalvm-visualvm-lib-jfluid-heap.jar' 2>/dev/null | head -n 1 || true)
	if [ -z "$jar" ]; then
		echo "== installing VisualVM (Debian package visualvm)"
		apt-get -o DPkg::Lock::Timeout=900 install -y visualvm >/dev/null
		jar=$(find /usr/share/visualvm -name 'org-graalvm-visualvm-lib-jfluid-heap.jar' | head -n 1)
	fi
	vvm_cp="$jar:/usr/share/java/org-openide-util.jar:/usr/share/java/org-openide-util-lookup.jar"
	javac -cp "$vvm_cp" -d "$dir" "$here/hprof/VisualVMHeap.java"
	vvm_cp="$vvm_cp:$dir"
	vvm_version=$(dpkg-query -W -f '${Version}' visualvm 2>/dev/null || echo '?')
fi
memlab=
memlab_version=
if [ "$peers" != 0 ] && [ "$only" != hprof ]; then
	memlab=$dir/memlab/node_modules/.bin/memlab
	if [ ! -x "$memlab" ]; then
		echo "== installing memlab (npm)"
		mkdir -p "$dir/memlab"
		(cd "$dir/memlab" && PUPPETEER_SKIP_DOWNLOAD=1 npm install --no-audit --no-fund memlab >/dev/null)
	fi
	memlab_version=$(node -p "require('$dir/memlab/node_modules/memlab/package.json').version")
fi

# --- dumps -------------------------------------------------------------
has_leaks() { [[ " $leaks " == *" $1 "* ]]; }
# BigHeap's argument is the live heap it fills; the dump is about 1.29
# times that. gen.js's is the snapshot's size; it comes out about 7.4%
# over.
hprof_of() { echo "$dir/bigheap-$1.hprof"; }
v8_of() { echo "$dir/gen-$1.heapsnapshot"; }
v8_series() { echo "$dir/series-$1-1.heapsnapshot $dir/series-$1-2.heapsnapshot $dir/series-$1-3.heapsnapshot"; }
for mb in $sizes; do
	if [ "$only" != v8 ] && [ ! -f "$(hprof_of "$mb")" ]; then
		echo "== writing $(hprof_of "$mb")"
		javac -d "$dir" "$here/hprof/BigHeap.java"
		live=$((mb * 775 / 1000))
		java -Xmx$((live * 3 + 256))m -cp "$dir" BigHeap "$live" "$(hprof_of "$mb")" >/dev/null
	fi
	if [ "$only" != hprof ]; then
		if [ ! -f "$(v8_of "$mb")" ]; then
			echo "== writing $(v8_of "$mb")"
			node --max-old-space-size=16384 "$here/v8/gen.js" $((mb * 93 / 100)) "$(v8_of "$mb")" >/dev/null
		fi
		if has_leaks "$mb" && [ ! -f "$dir/series-$mb-3.heapsnapshot" ]; then
			echo "== writing $(v8_series "$mb")"
			node --max-old-space-size=16384 "$here/v8/gen.js" $((mb * 93 / 100)) "$dir/series-$mb.heapsnapshot" 3 >/dev/null
		fi
	fi
done

# --- runs --------------------------------------------------------------
# run WORKLOAD TOOL ROUND CMD...: one timed run, appended to the results.
run() {
	local workload=$1 tool=$2 round=$3
	shift 3
	local t=$dir/time.txt rc=0
	/usr/bin/time -f '%e %U %S %M' -o "$t" "$@" >"$dir/out.txt" 2>"$dir/err.txt" || rc=$?
	read -r wall user sys rss < <(tail -n 1 "$t")
	local cpu
	cpu=$(awk "BEGIN { print $user + $sys }")
	printf '%-22s %-20s round %d: wall %7.2f s  CPU %7.2f s  peak RSS %5d MiB%s\n' \
		"$workload" "$tool" "$round" "$wall" "$cpu" $((rss / 1024)) "$([ "$rc" = 0 ] || echo "  FAILED (exit $rc): $(tail -n 1 "$dir/err.txt")")"
	echo "$workload|$tool|$round|$wall|$cpu|$rss|$rc" >>"$results"
}

# turns ROUND WORKLOAD HS_ARGS -- PEER_TOOL PEER_CMD...: heapscope, the
# old heapscope if any, and the peer (if any), in an order that rotates.
turns() {
	local round=$1 workload=$2
	shift 2
	local hsargs=()
	while [ "$1" != -- ]; do hsargs+=("$1"); shift; done
	shift
	local cmds=("hs")
	[ -n "$old" ] && cmds+=("old")
	[ $# -gt 0 ] && cmds+=("peer")
	local n=${#cmds[@]} i
	for ((i = 0; i < n; i++)); do
		case ${cmds[$(((i + round) % n))]} in
		hs) run "$workload" heapscope "$round" "$hs" "${hsargs[@]}" ;;
		old) run "$workload" "heapscope (OLD)" "$round" "$old" "${hsargs[@]}" ;;
		peer)
			local tool=$1
			run "$workload" "$tool" "$round" "${@:2}"
			;;
		esac
	done
}

describe() { # describe FILE: size and object count
	local objs
	objs=$("$hs" summary --json "$1" 2>/dev/null | python3 -c 'import json,sys; print(json.load(sys.stdin)["snapshot"]["overview"]["objects"])')
	local size
	size=$(stat -c %s "$1")
	printf '%s: %d bytes (%s MB), %d objects\n' "$(basename "$1")" "$size" "$(awk "BEGIN { printf \"%.1f\", $size / 1e6 }")" "$objs"
}

echo "== machine: $(nproc) cores, $(awk '/MemTotal/ {printf "%.1f GiB", $2/1048576}' /proc/meminfo), load $(cut -d' ' -f1-3 /proc/loadavg)"
echo "== heapscope: $("$hs" version | head -n 1)${old:+; OLD: $("$old" version | head -n 1)}"
echo "== java: $(java -version 2>&1 | head -n 1); node: $(node --version)${vvm_version:+; VisualVM $vvm_version}${memlab_version:+; memlab $memlab_version}"
echo "== dumps"
for mb in $sizes; do
	[ "$only" != v8 ] && describe "$(hprof_of "$mb")"
	if [ "$only" != hprof ]; then
		describe "$(v8_of "$mb")"
		if has_leaks "$mb"; then
			for f in $(v8_series "$mb"); do describe "$f"; done
		fi
	fi
done
echo "== commands"
echo "heapscope top DUMP; heapscope summary DUMP; heapscope leaks A B C"
[ -n "$vvm_cp" ] && echo "java -Xmx${VVM_XMX:-4g} -cp VISUALVM_JARS VisualVMHeap DUMP [histogram]   (bench/hprof/VisualVMHeap.java)"
[ -n "$memlab" ] && echo "memlab analyze object-size --snapshot SNAP; memlab find-leaks --baseline A --target B --final C"

for mb in $sizes; do
	f=$(hprof_of "$mb") s=$(v8_of "$mb")
	read -r a b c <<<"$(v8_series "$mb")"
	for f2 in $f $s $a $b $c; do [ -f "$f2" ] && cat "$f2" >/dev/null; done # warm the page cache
	for ((round = 1; round <= repeat; round++)); do
		if [ "$only" != v8 ]; then
			vvm=()
			[ -n "$vvm_cp" ] && vvm=(VisualVM java -Xmx"${VVM_XMX:-4g}" -cp "$vvm_cp" VisualVMHeap "$f")
			# The engine keeps its index next to the dump: start afresh.
			rm -rf "$f.hwcache"
			turns "$round" "hprof-$mb top" top "$f" -- "${vvm[@]}"
			rm -rf "$f.hwcache"
			[ -n "$vvm_cp" ] && vvm+=(histogram)
			turns "$round" "hprof-$mb summary" summary "$f" -- "${vvm[@]}"
			rm -rf "$f.hwcache"
		fi
		if [ "$only" != hprof ]; then
			ml=()
			[ -n "$memlab" ] && ml=(memlab "$memlab" analyze object-size --snapshot "$s")
			turns "$round" "v8-$mb top" top "$s" -- "${ml[@]}"
			turns "$round" "v8-$mb summary" summary "$s" --
			ml=()
			[ -n "$memlab" ] && ml=(memlab "$memlab" find-leaks --baseline "$a" --target "$b" --final "$c")
			if has_leaks "$mb"; then
				turns "$round" "v8-$mb leaks" leaks "$a" "$b" "$c" -- "${ml[@]}"
			fi
		fi
	done
done
echo "== load at the end: $(cut -d' ' -f1-3 /proc/loadavg)"

# --- summary -----------------------------------------------------------
python3 - "$results" <<'PY'
import sys
from collections import defaultdict
runs = defaultdict(list)  # (workload, tool) -> [(round, wall, cpu, rss, rc)]
order = []
for line in open(sys.argv[1]):
    w, tool, rnd, wall, cpu, rss, rc = line.strip().split("|")
    if (w, tool) not in runs:
        order.append((w, tool))
    runs[(w, tool)].append((int(rnd), float(wall), float(cpu), int(rss) // 1024, int(rc)))

def rng(xs, fmt):
    lo, hi = min(xs), max(xs)
    return fmt % lo if fmt % lo == fmt % hi else (fmt % lo) + "-" + (fmt % hi)

print()
print("| workload | tool | wall (s) | CPU (s) | peak RSS (MiB) | peer / heapscope: wall | CPU | RSS |")
print("|---|---|---|---|---|---|---|---|")
for w, tool in order:
    rs = runs[(w, tool)]
    ok = [r for r in rs if r[4] == 0]
    failed = len(rs) - len(ok)
    if not ok:
        print("| %s | %s | failed (%d runs) | | | | | |" % (w, tool, failed))
        continue
    cells = [rng([r[1] for r in ok], "%.2f"), rng([r[2] for r in ok], "%.2f"), rng([r[3] for r in ok], "%d")]
    ratio = ["", "", ""]
    base = {r[0]: r for r in runs.get((w, "heapscope"), []) if r[4] == 0}
    if tool != "heapscope" and base:
        per = [(r[1] / base[r[0]][1], r[2] / base[r[0]][2], r[3] / base[r[0]][3]) for r in ok if r[0] in base]
        if per:
            ratio = [rng([p[i] for p in per], "%.1fx") for i in range(3)]
    note = " (%d failed)" % failed if failed else ""
    print("| %s | %s%s | %s | %s |" % (w, tool, note, " | ".join(cells), " | ".join(ratio)))
PY
