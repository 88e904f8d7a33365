# (i) A failed write leaves no file with the final name (and no temporary file).
import json
import os
import resource
import signal
import sys

import heapscope

junk = [str(i) * 10 for i in range(200000)]   # a snapshot of several MB
out = {}
out["missing_dir"] = heapscope.snapshot(os.path.join(sys.argv[1], "no", "such", "dir", "x.pysnap"))
signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
resource.setrlimit(resource.RLIMIT_FSIZE, (200000, resource.RLIM_INFINITY))
out["too_big"] = heapscope.snapshot(os.path.join(sys.argv[1], "big.pysnap"))
resource.setrlimit(resource.RLIMIT_FSIZE, (resource.RLIM_INFINITY, resource.RLIM_INFINITY))
out["ok"] = heapscope.snapshot(os.path.join(sys.argv[1], "ok.pysnap"))
out["files"] = sorted(os.listdir(sys.argv[1]))
print(json.dumps(out))
