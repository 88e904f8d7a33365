"""Takes three snapshots while two threads allocate and free objects as
fast as they can, switching threads as often as the interpreter allows:
objects are freed and made while the agent walks the heap, which leaves
references to freed objects (and reused addresses) in the snapshots. It
writes 0.pysnap, 1.pysnap and 2.pysnap into the directory given as its
argument."""
import os
import sys
import threading

import heapscope

sys.setswitchinterval(1e-6)
stop = False


def churn():
    while not stop:
        [{"k": str(i)} for i in range(200)]


threads = [threading.Thread(target=churn) for _ in range(2)]
for t in threads:
    t.start()
try:
    for i in range(3):
        heapscope.snapshot(os.path.join(sys.argv[1], "%d.pysnap" % i))
finally:
    stop = True
    for t in threads:
        t.join()
