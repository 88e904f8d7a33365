"""A service for heapscope run --metrics: every 0.2 s it handles a batch
of requests and keeps each one's Session (a leak: the count of
__main__.Session only rises), beside a configuration that stays the
same size. It runs for the seconds given (60 by default)."""
import sys
import time


class Session:
    def __init__(self, i):
        self.i = i
        self.body = bytearray(200)


class Config:
    def __init__(self, k):
        self.k = k


config = [Config(k) for k in range(100)]
sessions = []


def main():
    end = time.monotonic() + float(sys.argv[1] if len(sys.argv) > 1 else 60)
    i = 0
    while time.monotonic() < end:
        for _ in range(50):
            sessions.append(Session(i))
            i += 1
        time.sleep(0.2)


if __name__ == "__main__":
    main()
