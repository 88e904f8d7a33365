"""Types whose counts and sizes follow known shapes over five snapshots,
for the growth classes of trend. It writes 0.pysnap ... 4.pysnap into the
directory given as its argument and prints, as JSON, each type's count
and sys.getsizeof total at each snapshot, and the class it should get."""
import json
import os
import sys

import heapscope


class Flat:
    pass


class Growing:  # +100 every round: steady
    pass


class Paused:  # +100, +100, nothing, +100, +100: growing
    pass


class WarmUp:  # +300 twice, then nothing: warm-up
    pass


class Shrinking:  # -150 every round: shrinking
    pass


class Fluctuating:  # 300, 100, 300, 100, 300: fluctuating
    pass


class Buffer(bytearray):  # one object that grows: steady by bytes
    pass


class Table(dict):  # fewer tables, the first ever bigger: steady by bytes
    pass


flat = [Flat() for _ in range(500)]
growing, paused, warm, fluct = [], [], [], []
shrink = [Shrinking() for _ in range(1000)]
buf = Buffer()
tables = [Table() for _ in range(6)]
want = {"__main__.Growing": ["steady", "count"], "__main__.Paused": ["growing", "count"],
        "__main__.WarmUp": ["warm-up", "count"], "__main__.Shrinking": ["shrinking", "count"],
        "__main__.Fluctuating": ["fluctuating", "count"], "__main__.Buffer": ["steady", "bytes"],
        "__main__.Table": ["steady", "bytes"], "__main__.Flat": ["flat", "count"]}
seen = {name: {"counts": [], "bytes": []} for name in want}
for i in range(5):
    growing.extend(Growing() for _ in range(100))
    if i != 2:
        paused.extend(Paused() for _ in range(100))
    if i < 2:
        warm.extend(WarmUp() for _ in range(300))
    del shrink[:150]
    fluct[:] = [Fluctuating() for _ in range(100 if i % 2 else 300)]
    buf.extend(b"x" * 100000)
    del tables[-1]
    for k in range(len(tables[0]), 1000 * 2 ** i):  # doubles: the table grows
        tables[0][k] = None
    for name, objs in [("__main__.Flat", flat), ("__main__.Growing", growing), ("__main__.Paused", paused),
                       ("__main__.WarmUp", warm), ("__main__.Shrinking", shrink),
                       ("__main__.Fluctuating", fluct), ("__main__.Buffer", [buf]),
                       ("__main__.Table", tables)]:
        seen[name]["counts"].append(len(objs))
        seen[name]["bytes"].append(sum(sys.getsizeof(o) for o in objs))
    heapscope.snapshot(os.path.join(sys.argv[1], "%d.pysnap" % i))
json.dump({"want": want, "seen": seen}, sys.stdout)
