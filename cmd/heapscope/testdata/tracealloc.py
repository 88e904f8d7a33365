"""A loop that leaks Record objects from one line (make_record) and
keeps a bounded list of others; it takes its own snapshots at three
points (SIGUSR2 to itself), for heapscope run --signal SIGUSR2."""
import os
import signal


class Record:
    def __init__(self, i):
        self.i = i


kept = []
recent = []


def make_record(i):
    return Record(i)  # the leaking allocation


def work(n):
    for i in range(n):
        kept.append(make_record(i))
        recent.append(Record(i))
        del recent[:-10]


for _ in range(3):
    work(500)
    os.kill(os.getpid(), signal.SIGUSR2)

# A child process runs without the tracing heapscope asked for.
import subprocess
import sys
out = subprocess.run([sys.executable, "-c", "import os, tracemalloc; print(tracemalloc.is_tracing(), os.environ.get('PYTHONTRACEMALLOC'))"],
                     capture_output=True, text=True).stdout
print("child", out.strip())
