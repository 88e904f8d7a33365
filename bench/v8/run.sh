#!/usr/bin/env bash
# bench/v8/run.sh [SIZE_MB]: build a Node heap snapshot of about SIZE_MB
# megabytes (default 500) with gen.js, then time heapscope's reader (and
# dominators) and, side by side, memlab's "analyze object-size" on it.
#
# Environment: WORK (default bench/v8/.work) holds the snapshot and the
# binary; MEMLAB=0 skips memlab; memlab is installed once into
# bench/v8/.memlab with PUPPETEER_SKIP_DOWNLOAD=1 npm install memlab.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
size=${1:-500}
work=${WORK:-$here/.work}
mkdir -p "$work"
snap=$work/gen-$size.heapsnapshot
timev() { /usr/bin/time -f '  wall %e s, user %U s, sys %S s, max RSS %M KB' "$@"; }

if [ ! -f "$snap" ]; then
	echo "== writing $snap"
	node --max-old-space-size=16384 "$here/gen.js" "$size" "$snap"
fi
ls -l "$snap"
(cd "$root" && go build -o "$work/v8read" ./bench/v8)
echo "cores: $(nproc); load: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "== heapscope: read"
timev "$work/v8read" -top 8 "$snap"
echo "== heapscope: read + dominators"
timev "$work/v8read" -dom "$snap"
echo "== heapscope: read -novalues + dominators"
timev "$work/v8read" -novalues -dom "$snap"

if [ "${MEMLAB:-1}" != 0 ]; then
	echo "load: $(cut -d' ' -f1-3 /proc/loadavg)"
	ml=$here/.memlab
	if [ ! -x "$ml/node_modules/.bin/memlab" ]; then
		mkdir -p "$ml"
		(cd "$ml" && PUPPETEER_SKIP_DOWNLOAD=1 npm install --no-audit --no-fund memlab >/dev/null)
	fi
	echo "== memlab $(node -p "require('$ml/node_modules/memlab/package.json').version"): analyze object-size"
	timev "$ml/node_modules/.bin/memlab" analyze object-size --snapshot "$snap" >"$work/memlab.out"
	tail -3 "$work/memlab.out"
fi
