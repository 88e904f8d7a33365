"""An MPI program (mpi4py) for heapscope run under mpirun: every rank
keeps each step's request contexts in a module-level list (a leak on
every rank), and the last rank also keeps a cache entry per step in a
dict only it fills (a leak on one rank). After each step the ranks meet
at a barrier and each sends itself SIGUSR2, which run --signal SIGUSR2
turns into a snapshot, so that the Nth snapshot of every rank is of the
same step. It prints one JSON line per rank: its rank, size and pid."""
import json
import os
import signal
import sys

from mpi4py import MPI


class RequestContext:
    def __init__(self, step, i):
        self.step = step
        self.body = bytearray(1000)
        self.tags = {"i": i}


class RankCacheEntry:
    def __init__(self, key):
        self.key = key
        self.rows = [key] * 64


contexts = []
cache = {}


def work(step, rank, size):
    scratch = [{"n": n} for n in range(500)]  # churn: dropped at once
    for i in range(200):
        contexts.append(RequestContext(step, i))
    if rank == size - 1:
        for i in range(50):
            cache["k%d-%d" % (step, i)] = RankCacheEntry(i)
    return len(scratch)


def main():
    comm = MPI.COMM_WORLD
    rank, size = comm.Get_rank(), comm.Get_size()
    steps = int(sys.argv[1]) if len(sys.argv) > 1 else 3
    for step in range(steps):
        work(step, rank, size)
        comm.Barrier()
        os.kill(os.getpid(), signal.SIGUSR2)
        comm.Barrier()
    print(json.dumps({"rank": rank, "size": size, "pid": os.getpid()}), flush=True)


if __name__ == "__main__":
    main()
