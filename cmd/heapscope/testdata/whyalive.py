"""Plants what the why-alive commands must explain, and prints what
sys.getsizeof says they should find (JSON on stdout):
- `holder`, a module global whose objects nothing else refers to: its
  retained size is the sum of their sizes;
- a memoryview over a 4 MiB buffer whose only reference is a leaked
  Py_IncRef (as a native struct would hold it);
- a module-level cache dict holding `Planted` objects.
Then it writes a snapshot to the path given as its argument."""
import ctypes
import json
import sys

import heapscope


class Holder:
    __slots__ = ("buf", "items")


class Planted:
    __slots__ = ("payload",)


holder = Holder()
holder.buf = bytearray(100_000)
holder.items = [bytes([i]) * 1000 + b"%d" % i for i in range(10)]
expected_holder = (sys.getsizeof(holder) + sys.getsizeof(holder.buf) + sys.getsizeof(holder.items)
                   + sum(sys.getsizeof(b) for b in holder.items))

buf = bytearray(4 << 20)
view = memoryview(buf)
ctypes.pythonapi.Py_IncRef(ctypes.py_object(view))   # the leaked reference
expected_native = sys.getsizeof(view) + sys.getsizeof(buf)
view_addr = id(view)
del view, buf

_cache = {}
for i in range(25):
    p = Planted()
    p.payload = bytearray(2048)
    _cache["key%d" % i] = p
del p

heapscope.snapshot(sys.argv[1])
print(json.dumps({"holder": "0x%x" % id(holder), "holder_retained": expected_holder,
                  "view": "0x%x" % view_addr, "native_min": expected_native}))
