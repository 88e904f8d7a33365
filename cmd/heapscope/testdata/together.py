# Takes a heap snapshot of this process into each path given, in turn,
# a little apart in time, and prints the process id.
import os
import sys
import time

import heapscope

keep = []
for path in sys.argv[1:]:
    keep.append([object() for _ in range(100)])
    heapscope.snapshot(path)
    time.sleep(0.01)
print(os.getpid())
