# (i) An interpreter that runs nothing but the agent.
import json
import sys

import heapscope

print(json.dumps(heapscope.snapshot(sys.argv[1])))
