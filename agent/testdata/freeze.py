# gc.freeze()d objects are not in gc.get_objects(); they are found from the roots.
import gc
import json
import sys

import heapscope


class Frozen:
    pass


class Young:
    pass


frozen = [Frozen() for _ in range(1111)]
gc.freeze()
young = [Young() for _ in range(222)]
p = heapscope.snapshot(sys.argv[1])
print(json.dumps({"path": p, "none": id(None), "immortal": sys.version_info >= (3, 12)}))
