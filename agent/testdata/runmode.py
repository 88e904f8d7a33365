# (h) A program run under `heapscope run`: prints, takes a signal, sleeps
# through interval snapshots, and exits with status 3.
import os
import signal
import sys
import time

data = {"k%d" % i: [i] * 10 for i in range(1000)}
print("hello from the program", len(data))
sys.stdout.flush()
if len(sys.argv) > 1 and sys.argv[1] == "signal":
    os.kill(os.getpid(), signal.SIGUSR2)
    time.sleep(0.2)
    print("after signal")
if len(sys.argv) > 1 and sys.argv[1] == "sleep":
    time.sleep(float(sys.argv[2]))
print("bye", os.environ.get("PYTHONPATH"), [k for k in os.environ if k.startswith("HEAPSCOPE")])
print(sys.path)
sys.exit(3)
