# (a) 12,345 instances, each with a 4 KiB bytearray.
import json
import sys

import heapscope


class Leaky:
    def __init__(self):
        self.buf = bytearray(4096)


held = [Leaky() for _ in range(12345)]
total = sum(sys.getsizeof(o) + sys.getsizeof(o.buf) for o in held)
p = heapscope.snapshot(sys.argv[1])
print(json.dumps({"path": p, "total": total, "type": Leaky.__module__ + "." + Leaky.__qualname__}))
