"""A target for the tests of heapscope's own calls into a process
(ptrace_linux_amd64.go). Its main thread, by the mode in argv[1]:

  float  computes float sums in a loop (C code using the SSE registers)
         and prints BAD if one ever differs from the first;
  sleep  calls libc's sleep(1) in a loop: a call interrupted and not
         restarted returns the seconds left, and it prints BAD;
  read   calls libc's read on a pipe that a thread writes one byte to
         every 0.3 s: a read interrupted and not restarted fails with
         EINTR, and it prints BAD;
  signal counts the signals 36 (SIGRTMIN+2 with glibc: real-time
         signals queue, none is merged with another) that the
         interpreter's C handler gets (the bytes it writes to the wakeup
         fd; Python-level handlers may run once for several) while it
         computes.

Every mode prints "ready" when it runs, then for every line on stdin the
count of bootstraps run (each appends to the file named by argv[2]) and
whether anything went wrong. A thread of its own keeps running Python
code meanwhile (the calls stop only the main thread)."""
import ctypes
import os
import signal
import sys
import threading
import time

mode, marks = sys.argv[1], sys.argv[2]
libc = ctypes.CDLL(None, use_errno=True)
state = {"bad": "", "usr1": 0, "ticks": 0}


def ticker():
    while True:
        state["ticks"] += 1
        time.sleep(0.001)


def answer():
    for _ in sys.stdin:
        try:
            with open(marks) as f:
                n = len(f.read())
        except OSError:
            n = 0
        print("boots %d bad %r usr1 %d ticks %d" % (n, state["bad"], state["usr1"], state["ticks"]), flush=True)


threading.Thread(target=ticker, daemon=True).start()
threading.Thread(target=answer, daemon=True).start()

if mode == "float":
    xs = [i * 0.37 for i in range(2000)]
    want = sum(x * 1.5 for x in xs)
    print("ready", flush=True)
    while True:
        got = sum(x * 1.5 for x in xs)
        if got != want:
            state["bad"] = "sum %r != %r" % (got, want)
elif mode == "sleep":
    print("ready", flush=True)
    while True:
        left = libc.sleep(1)
        if left != 0:
            state["bad"] = "sleep returned %d seconds early" % left
elif mode == "read":
    r, w = os.pipe()

    def feed():
        while True:
            time.sleep(0.3)
            os.write(w, b"x")

    threading.Thread(target=feed, daemon=True).start()
    buf = ctypes.create_string_buffer(1)
    print("ready", flush=True)
    while True:
        n = libc.read(r, buf, 1)
        if n != 1:
            state["bad"] = "read returned %d, errno %d" % (n, ctypes.get_errno())
elif mode == "signal":
    r, w = os.pipe()
    os.set_blocking(w, False)

    def count():
        while True:
            state["usr1"] += len(os.read(r, 4096))

    threading.Thread(target=count, daemon=True).start()
    signal.signal(36, lambda signum, frame: None)
    signal.set_wakeup_fd(w)
    print("ready", flush=True)
    while True:
        sum(range(100))
