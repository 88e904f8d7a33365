# (c) A dict and a list mutated by another thread during capture.
import json
import sys
import threading

import heapscope

shared = {}
shared_list = []
stop = threading.Event()


def churn():
    i = 0
    while not stop.is_set():
        shared["k%d" % (i % 5000)] = [i]
        if len(shared) > 4000:
            shared.pop(next(iter(shared)))
        shared_list.append(i)
        if len(shared_list) > 3000:
            del shared_list[:1000]
        i += 1


class Marker:
    pass


markers = [Marker() for _ in range(777)]
t = threading.Thread(target=churn, daemon=True)
t.start()
paths = [heapscope.snapshot(sys.argv[1] + ".%d" % i, collect=False) for i in range(3)]
stop.set()
t.join()
print(json.dumps({"paths": paths}))
