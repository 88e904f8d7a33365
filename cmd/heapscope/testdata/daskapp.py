"""Tasks for the workers of a Dask cluster (see daskcluster.py): handle
keeps every request's context in a module-level list, on whichever worker
runs it (a leak on every worker); remember keeps shot records in a dict,
and the tests run it on one worker only (a leak on one worker)."""


class RequestContext:
    def __init__(self, step, i):
        self.step = step
        self.body = bytearray(1000)
        self.tags = {"i": i}


class ShotRecord:
    def __init__(self, key):
        self.key = key
        self.samples = [key] * 64


contexts = []
records = {}


def handle(step, n=200):
    scratch = [{"n": k} for k in range(500)]  # churn: dropped at once
    for i in range(n):
        contexts.append(RequestContext(step, i))
    return len(contexts) + 0 * len(scratch)


def remember(step, n=50):
    for i in range(n):
        records["%d-%d" % (step, i)] = ShotRecord(i)
    return len(records)
