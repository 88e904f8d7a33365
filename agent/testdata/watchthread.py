"""A thread stopped inside the watch's hook (by a trace function the
program set, at the first line of the hook's stack(), whose self is the
watch's state) while the main thread takes snapshots, stop-the-world and
fork: prints {"paths", "agent": [the addresses of the watch's own
objects]}, which the snapshots must not list (an agent frame of another
thread holds them in its locals)."""
import json
import os
import sys
import threading

import heapscope
from heapscope import _own, _watch


class Item:
    pass


heapscope.watch(Item)
kept = [Item() for _ in range(10)]
inside = threading.Event()
go = threading.Event()


def tracer(frame, event, arg):
    code = frame.f_code
    if code.co_name == "stack" and code.co_filename == _watch.__file__:
        def line(frame, event, arg):
            if event == "line" and not inside.is_set():
                inside.set()
                go.wait(120)
            return line
        return line
    return None


def maker():
    sys.settrace(tracer)
    kept.append(Item())
    sys.settrace(None)


t = threading.Thread(target=maker)
t.start()
if not inside.wait(120):
    sys.exit("the thread never got inside the hook")
agent = [id(o) for o in _own.HELD] + [id(_watch._state), id(_watch._state.pairs), id(_watch._state.stacks)]
paths = [heapscope.snapshot(os.path.join(sys.argv[1], "stw.pysnap"))]
if hasattr(os, "fork"):
    paths.append(heapscope.snapshot(os.path.join(sys.argv[1], "fork.pysnap"), fork=True))
go.set()
t.join()
heapscope.unwatch()
print(json.dumps({"paths": paths, "agent": agent}))
