#!/bin/sh
# Objects held outside the heap, before (BEFORE's agent, e.g. main's) and
# after (this checkout's), in one run: a bare interpreter on each Python,
# numpy and sympy imported on Debian's, and the first row of top's "held
# outside the heap" with a planted Py_IncRef leak. bench/python/ROOTS.md
# quotes it.
#
#   bench/python/roots.sh BEFORE_AGENT_DIR [PYTHON...]
#
# Without PYTHONs: every pyenv Python from 3.9 on, then Debian's.
set -e
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
before=$1
shift
[ $# -gt 0 ] || set -- /root/.pyenv/versions/*/bin/python3 /usr/bin/python3
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
(cd "$repo" && go build -o "$out/pyroots" ./bench/python/pyroots && go build -o "$out/heapscope" ./cmd/heapscope)
snap() { # NAME AGENT PYTHON ARGS...
	n=$1 a=$2 py=$3
	shift 3
	PYTHONPATH=$a "$py" "$here/roots.py" "$out/$n.pysnap" "$@" >/dev/null
}
for py in "$@"; do
	"$py" -c 'import sys; sys.exit(sys.version_info < (3, 9))' 2>/dev/null || continue # the agent needs 3.9+
	for side in before after; do
		a=$before
		[ $side = after ] && a=$repo/agent
		snap bare-$side "$a" "$py"
		"$out/pyroots" "$out/bare-$side.pysnap" | sed "s|$out/||"
		snap leak-$side "$a" "$py" --leak
		echo "  top, first held outside the heap:$("$out/heapscope" top "$out/leak-$side.pysnap" 2>/dev/null |
			sed -n '/^Held outside the heap/{n;n;p;q}')"
		if [ "$py" = /usr/bin/python3 ]; then
			snap heavy-$side "$a" "$py" numpy sympy
			"$out/pyroots" "$out/heavy-$side.pysnap" | sed "s|$out/||"
			snap heavyleak-$side "$a" "$py" --leak numpy sympy
			echo "  top, first held outside the heap:$("$out/heapscope" top "$out/heavyleak-$side.pysnap" 2>/dev/null |
				sed -n '/^Held outside the heap/{n;n;p;q}')"
		fi
	done
done
