"""Objects made at known lines, two calls deep, then a snapshot: prints
{"path", "file", "objects": {name: [addr, line, caller line]}}. Run with
PYTHONTRACEMALLOC=2 to record the sites, or without."""
import json
import os
import sys

import heapscope


class Plain:           # instances have a managed dict on 3.11+
    def __init__(self, i):
        self.i = i


class Slotted:
    __slots__ = ("i",)

    def __init__(self, i):
        self.i = i


def make():
    objs = {}
    objs["plain"] = Plain(1)                 # LINE plain
    objs["slotted"] = Slotted(2)             # LINE slotted
    objs["list"] = [1, 2, 3]                 # LINE list
    objs["dict"] = {"a": 1}                  # LINE dict
    objs["str"] = "".join(["ab"] * 50)       # LINE str
    return objs


keep = make()                                # LINE caller
lines = {}
with open(__file__) as f:
    for n, text in enumerate(f, 1):
        if "# LINE " in text:
            lines[text.split("# LINE ")[1].strip()] = n
path = heapscope.snapshot(os.path.join(sys.argv[1], "s.pysnap"))
print(json.dumps({"path": path, "file": os.path.abspath(__file__),
                  "objects": {k: [id(v), lines[k], lines["caller"]] for k, v in keep.items()}}))
