"""A program heapscope attaches to while it runs: it leaks Leaked objects
from one line, and answers commands on stdin.

    ping         -> pong
    state        -> same, or changed ... (what heapscope left behind)
    big N        -> keeps N more objects (a capture then takes a while)
    block        -> blocked, then its main thread waits in a read of
                    stdin, outside Python, until the line "wake" comes
                    (a main thread in a long call outside Python)
    stop         -> stops leaking
"""
import os
import select
import sys


class Leaked:
    def __init__(self, i):
        self.i = i


leak = []


def grow():
    # The capture runs between two bytecodes, often inside Leaked's
    # __init__: the list is then not on this frame's stack, only in
    # __main__.leak, where leaks is to find it.
    obj = Leaked(len(leak))  # the leaking line
    leak.append(obj)


def state():
    import __main__
    return repr((sorted(k for k in sys.modules if "heapscope" in k), list(sys.path),
                 [type(f).__name__ for f in sys.meta_path],
                 sorted(k for k in vars(__main__) if "heapscope" in k)))


start = state()
keep = []
growing = True
print("ready", flush=True)
while True:
    r, _, _ = select.select([sys.stdin], [], [], 0.005)
    if r:
        line = sys.stdin.readline()
        if not line:
            break
        cmd = line.split()
        if cmd[0] == "ping":
            print("pong", flush=True)
        elif cmd[0] == "state":
            now = state()
            print("same" if now == start else "changed " + now, flush=True)
        elif cmd[0] == "big":
            keep.extend(Leaked(i) for i in range(int(cmd[1])))
            print("big", flush=True)
        elif cmd[0] == "block":
            print("blocked", flush=True)
            got = b""
            while not got.endswith(b"\n"):
                got += os.read(0, 1)
            print("woken " + got.decode().strip(), flush=True)
        elif cmd[0] == "stop":
            growing = False
            print("stopped", flush=True)
    if growing:
        grow()
