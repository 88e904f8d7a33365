#!/bin/sh
# compare.sh: what `heapscope leaks` reports on real programs, from the
# build before findings were causes and from this tree, side by side.
#
# Usage: bench/findings/compare.sh [BEFORE]   (from the repository root)
#
# BEFORE is a commit (default 046fa18, main before one finding per cause,
# holders and bounds). For each program it takes three snapshots (four
# for sympy: the last after the program clears its own cache), then runs
# `heapscope leaks --top 0` of both builds on the same files and prints
# how many findings each gives and its first finding, holders and bound
# lines. Needs Debian's python3 with python3-sympy (or PYTHON), node, and the
# npm subjects (cd testdata/subjects && npm ci).
set -eu
before=${1:-046fa18}
root=$(pwd)
work=$(mktemp -d)
trap 'git -C "$root" worktree remove --force "$work/before-src" >/dev/null 2>&1 || true; rm -rf "$work"' EXIT
td=$root/cmd/heapscope/testdata
py=${PYTHON:-/usr/bin/python3} # Debian's, with its sympy
mods=${HEAPSCOPE_SUBJECTS:-$root/testdata/subjects/node_modules}

git worktree add --detach -q "$work/before-src" "$before"
(cd "$work/before-src" && go build -o "$work/before" ./cmd/heapscope)
go build -o "$work/after" ./cmd/heapscope

snaps() { # name dir files...: snapshot files of a program
	name=$1 dir=$2
	shift 2
	for f in "$@"; do printf '%s ' "$dir/$f"; done
}

# The programs.
mkdir -p "$work/sympy" "$work/plugins" "$work/express" "$work/eslint/src" "$work/trimmed"
PYTHONPATH=$root/agent $py "$td/symholders.py" "$work/sympy" >/dev/null
PYTHONPATH=$root/agent $py "$td/twoholders.py" "$work/plugins" >/dev/null
SUBJECTS=$mods node "$td/express-leak.js" "$work/express" >/dev/null
i=0
while [ $i -lt 10 ]; do
	printf "'use strict';\nconst parts = [];\nfunction build%d(n) {\n  let s = '';\n  for (let i = 0; i < n; i++) { s += i; parts.push({ s, i, k: [i, i + 1] }); }\n  return s == parts.join('') ? parts : null;\n}\nmodule.exports = { build%d };\n" $i $i >"$work/eslint/src/m$i.js"
	i=$((i + 1))
done
SUBJECTS=$mods node "$td/eslintleak.js" "$work/eslint" >/dev/null
node --expose-gc "$td/trimmed.js" "$work/trimmed" >/dev/null

report() { # title files...
	title=$1
	shift
	for b in before after; do
		"$work/$b" leaks --top 0 "$@" >"$work/out" 2>/dev/null || true
		n=$(grep -c '^#[0-9]' "$work/out" || true)
		printf '\n== %s, %s (%s): %s findings\n' "$title" "$b" "$([ $b = before ] && echo "$before" || git -C "$root" rev-parse --short HEAD)" "$n"
		# The first finding: its line, and its holders and bound.
		awk '/^#1 /{on=1; print; next} /^#[0-9]/{on=0} on && /^    (holders|held by|growth)/{print; next} on && /^             [0-9]+\./{print}' "$work/out"
	done
}

report "sympy: classes in the program's cache and sympy's registry" $(snaps sympy "$work/sympy" a.pysnap b.pysnap c.pysnap)
report "sympy: after the program cleared its cache (target b, final d)" $(snaps sympy "$work/sympy" a.pysnap b.pysnap d.pysnap)
report "plugins: classes in a cache and a metaclass's registry" $(snaps plugins "$work/plugins" a.pysnap b.pysnap c.pysnap)
report "express: a session Map" $(snaps express "$work/express" 1-baseline.heapsnapshot 2-target.heapsnapshot 3-final.heapsnapshot)
report "eslint: a plugin rule keeping AST nodes" $(snaps eslint "$work/eslint" 1.heapsnapshot 2.heapsnapshot 3.heapsnapshot)
report "node: a leak beside a cache trimmed to 500" $(snaps trimmed "$work/trimmed" baseline.heapsnapshot target.heapsnapshot final.heapsnapshot)
