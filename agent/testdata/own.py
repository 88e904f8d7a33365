# (g) The agent's own objects are not in the snapshot.
import gc
import json
import sys

import heapscope


class Marker:
    pass


markers = [Marker() for _ in range(4321)]
before = sum(1 for o in gc.get_objects() if type(o) is Marker)
p1 = heapscope.snapshot(sys.argv[1])
p2 = heapscope.snapshot(sys.argv[2])
after = sum(1 for o in gc.get_objects() if type(o) is Marker)
print(json.dumps({"paths": [p1, p2], "before": before, "after": after}))
