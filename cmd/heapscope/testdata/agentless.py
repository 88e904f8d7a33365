"""Takes three snapshots of a program that grows a list of Items, with the
agent and its test harness imported, into the paths given as arguments."""
import sys

import heapscope
import heapscope.leakcheck  # noqa: F401 (the harness's module, imported as a test run would)


class Item:
    pass


keep = [Item() for _ in range(1000)]
heapscope.snapshot(sys.argv[1])
for path in sys.argv[2:]:
    keep += [Item() for _ in range(1000)]
    heapscope.snapshot(path)
