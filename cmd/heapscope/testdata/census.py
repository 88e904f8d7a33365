"""Holds exactly 12,345 instances of a class, each with a 4 KiB bytearray,
takes a census (edges=False) and a full snapshot into the directory given
as its argument, and prints what sys.getsizeof says they total."""
import json
import os
import sys

import heapscope


class Item:
    def __init__(self):
        self.buf = bytearray(4096)


items = [Item() for _ in range(12345)]
heapscope.snapshot(os.path.join(sys.argv[1], "census.pysnap"), edges=False)
heapscope.snapshot(os.path.join(sys.argv[1], "full.pysnap"))
print(json.dumps({"bytes": sum(sys.getsizeof(i) + sys.getsizeof(i.buf) for i in items)}))
