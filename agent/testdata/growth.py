"""heapscope.growth(), for growth_test.go.

    growth.py DIR

Counts with growth() (the first call: every type), takes a census
snapshot of the same heap (DIR/census.pysnap), makes 500 more Leak
objects (each with a unique str) and drops 100 Shrink objects, then
calls growth() again, printing into a buffer. Prints one JSON line:
the rows of both calls, the text of the second, and the bytes of one
Leak object as sys.getsizeof gives them.
"""

import gc
import io
import json
import os
import sys

import heapscope

out = sys.argv[1]


class Leak:
    __slots__ = ("name",)

    def __init__(self, i):
        self.name = "leak-%d" % i


class Shrink:
    __slots__ = ("i",)

    def __init__(self, i):
        self.i = i


kept = [Leak(i) for i in range(1000)]
shrink = [Shrink(i) for i in range(300)]

# A census first, so that the modules it imports (its writer's and the
# standard library's) are there when growth() counts.
census = os.path.join(out, "census.pysnap")
heapscope.snapshot(census, edges=False)
os.remove(census)
first = heapscope.growth(file=False, limit=None)
gc.collect()
wrote = heapscope.snapshot(census, edges=False, collect=False) is not None

kept += [Leak(i) for i in range(1000, 1500)]
del shrink[:100]
text = io.StringIO()
second = heapscope.growth(file=text, limit=None)
print(json.dumps({"first": first, "second": second, "text": text.getvalue(),
                  "wrote": wrote, "leak_size": sys.getsizeof(kept[0])}))
