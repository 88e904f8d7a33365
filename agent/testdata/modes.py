# A snapshot and the temporary file it is written through are created
# readable by their owner only, whatever the umask. The temporary file's
# mode is read from the open descriptor, right after the agent's open.
import json
import os
import stat
import sys

import heapscope
from heapscope import _capture

os.umask(0)
tmp_modes = []
real_open = _capture._open


def spy(path, flags, mode=0o777):
    fd = real_open(path, flags, mode)
    tmp_modes.append(stat.S_IMODE(os.fstat(fd).st_mode))
    return fd


_capture._open = spy
junk = [str(i) for i in range(1000)]
p = heapscope.snapshot(os.path.join(sys.argv[1], "m.pysnap"))
c = heapscope.snapshot(os.path.join(sys.argv[1], "c.pysnap"), edges=False)
_capture._open = real_open
print(json.dumps({"modes": [stat.S_IMODE(os.stat(x).st_mode) for x in (p, c)], "tmp_modes": tmp_modes}))
