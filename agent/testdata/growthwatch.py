"""heapscope.growth(watch=True) between leaks: prints {"path", "file",
"line", "watched", "sited": [addr], "unsited": [addr]}. The first call
watches nothing (nothing to compare with); the second watches Leaky,
which grew, and not Steady, which did not; the Leakys made after it
have a site, those made before and the Steadys none."""
import json
import os
import sys

import heapscope
from heapscope import _watch


class Leaky:
    pass


class Steady:
    pass


keep = []
steady = [Steady() for _ in range(100)]


def leak(n):
    for _ in range(n):
        keep.append(Leaky())   # LINE


heapscope.growth(file=False, watch=True)
first = [t.__name__ for t in _watch.watched()]
leak(50)
heapscope.growth(file=False, watch=True)
watched = sorted(t.__name__ for t in _watch.watched() if t.__module__ == "__main__")
leak(50)
path = heapscope.snapshot(os.path.join(sys.argv[1], "g.pysnap"))
with open(__file__) as f:
    line = next(n for n, text in enumerate(f, 1) if text.rstrip().endswith("# LINE"))
print(json.dumps({"path": path, "file": os.path.abspath(__file__), "line": line, "first": first,
                  "watched": watched, "sited": [id(o) for o in keep[50:]],
                  "unsited": [id(o) for o in keep[:50] + steady]}))
