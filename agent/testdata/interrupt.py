# (i) A capture interrupted by the program's own signal handler: the
# program's exception reaches the program, and no file is left behind.
import json
import os
import signal
import sys

import heapscope


class Timeout(Exception):
    pass


def on_alarm(sig, frame):
    raise Timeout()


junk = [[str(i), float(i)] for i in range(300000)]
out = {}
signal.signal(signal.SIGALRM, on_alarm)
signal.setitimer(signal.ITIMER_REAL, 0.05)
try:
    out["result"] = heapscope.snapshot(os.path.join(sys.argv[1], "int.pysnap"))
    out["raised"] = None
except Timeout:
    out["raised"] = "Timeout"
signal.setitimer(signal.ITIMER_REAL, 0)
out["files"] = sorted(os.listdir(sys.argv[1]))
print(json.dumps(out))
