"""A real Dask LocalCluster with process workers, for the tests of
heapscope snapshot --dask. It prints the scheduler's address and the
workers' names and addresses as one JSON line, then reads commands, one
per line, and answers each with a JSON line:

    step N      every worker runs daskapp.handle(N); worker 0 alone also
                runs daskapp.remember(N)
    break NAME  worker NAME's temporary directory becomes one that does
                not exist, so that its next capture fails
    quit        closes the cluster
"""
import json
import os
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from distributed import Client, LocalCluster  # noqa: E402

import daskapp  # noqa: E402


def _break():
    tempfile.tempdir = "/nonexistent/heapscope-test"


def main():
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 2
    here = os.path.dirname(os.path.abspath(__file__))
    os.environ["PYTHONPATH"] = here + os.pathsep + os.environ.get("PYTHONPATH", "")
    cluster = LocalCluster(n_workers=n, processes=True, threads_per_worker=1, dashboard_address=None,
                           host="127.0.0.1", silence_logs=40)
    client = Client(cluster)
    client.wait_for_workers(n)
    workers = {str(w["name"]): a for a, w in client.scheduler_info()["workers"].items()}
    print(json.dumps({"address": cluster.scheduler_address, "workers": workers}), flush=True)
    for line in sys.stdin:
        cmd = line.split()
        if not cmd:
            continue
        if cmd[0] == "step":
            step = int(cmd[1])
            futs = [client.submit(daskapp.handle, step, pure=False, workers=[a], allow_other_workers=False)
                    for a in workers.values()]
            futs.append(client.submit(daskapp.remember, step, pure=False, workers=[workers["0"]], allow_other_workers=False))
            client.gather(futs)
            del futs
            print(json.dumps({"ok": "step"}), flush=True)
        elif cmd[0] == "break":
            client.run(_break, workers=[workers[cmd[1]]])
            print(json.dumps({"ok": "break"}), flush=True)
        elif cmd[0] == "quit":
            break
    client.close()
    cluster.close()


if __name__ == "__main__":
    main()
