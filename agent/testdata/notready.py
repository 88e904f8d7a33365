# A type that was never made ready (_testcapi on 3.9-3.11 exposes one):
# a full capture, one without values and a census read no field of it.
import json
import os
import sys

import _testcapi

import heapscope

READY = 1 << 12
not_ready = [id(v) for v in vars(_testcapi).values()
             if isinstance(v, type) and not type.__dict__["__flags__"].__get__(v) & READY]
d = sys.argv[1]
print(json.dumps({
    "full": heapscope.snapshot(os.path.join(d, "full.pysnap")),
    "novalues": heapscope.snapshot(os.path.join(d, "novalues.pysnap"), values=False),
    "census": heapscope.snapshot(os.path.join(d, "census.pysnap"), edges=False),
    "not_ready": not_ready,
}))
