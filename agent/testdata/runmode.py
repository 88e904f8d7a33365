# (h) A program run under `heapscope run`: prints, takes a signal, waits
# for interval snapshots, and exits with status 3.
#
#   runmode.py plain
#   runmode.py signal              sends itself SIGUSR2 once
#   runmode.py wait DIR N          waits until DIR holds N interval snapshots
#   runmode.py signals DIR N       once DIR holds an interval snapshot, sends
#                                  itself SIGUSR2 N times, each once the
#                                  snapshot of the one before is in DIR
import os
import signal
import sys
import time


def wait_for(out, reason, n):
    """Waits until out holds n snapshots of the reason: whole files, as the
    agent renames each into place when it is written. The deadline is
    only a safety net for a broken agent."""
    deadline = time.monotonic() + 300
    while sum(f.endswith("-%s.pysnap" % reason) for f in os.listdir(out)) < n:
        if time.monotonic() > deadline:
            sys.stderr.write("runmode.py: no %d %s snapshots in %s after 300 s\n" % (n, reason, out))
            sys.exit(4)
        time.sleep(0.01)


data = {"k%d" % i: [i] * 10 for i in range(1000)}
print("hello from the program", len(data))
sys.stdout.flush()
mode = sys.argv[1] if len(sys.argv) > 1 else "plain"
if mode == "signal":
    # The handler runs in this thread, before the next line.
    os.kill(os.getpid(), signal.SIGUSR2)
    print("after signal")
if mode == "wait":
    wait_for(sys.argv[2], "interval", int(sys.argv[3]))
if mode == "signals":
    wait_for(sys.argv[2], "interval", 1)
    for i in range(int(sys.argv[3])):
        os.kill(os.getpid(), signal.SIGUSR2)
        wait_for(sys.argv[2], "signal", i + 1)
print("bye", os.environ.get("PYTHONPATH"), [k for k in os.environ if k.startswith("HEAPSCOPE")])
print(sys.path)
sys.exit(3)
