"""heapscope snapshot --dask: the client side, run by the Python that has
the cluster's client (distributed).

It reads its configuration, a JSON object, from stdin, connects to the
scheduler, and asks every worker at once, through Client.run, to take a
snapshot with heapscope's agent as snapshot --python does inside a
process: the agent's files are sent along and written to a directory of
the worker's temporary directory (one call), then loaded under a private
package name by the agent's own loader (_attach.main, which asks none of
the program's import hooks) and removed again (a second call, whose code
the agent takes for its own); the agent runs in the worker's event loop
and none of the program's code. The snapshot is then read back in chunks,
written to the stage directory heapscope gave, and removed from the
worker.

It writes one JSON object per line to stdout, events for heapscope:

    {"event": "workers", "workers": [{"address", "name"}...]}
    {"event": "done", "address", "name", "pid", "file", "size", "seconds", "messages"}
    {"event": "failed", "address", "name", "error"}
    {"event": "error", "error"}      (nothing was taken: no client, no scheduler)

and exits 0 when it could ask the workers (whatever they answered).
"""

import json
import os
import sys
import threading
import time

CHUNK = 8 << 20

_out_lock = threading.Lock()


def emit(**event):
    with _out_lock:
        sys.stdout.write(json.dumps(event) + "\n")
        sys.stdout.flush()


def _heapscope_stage(sources):
    """Runs on a worker: writes the agent's files into a new directory of
    the worker's temporary directory and returns it. A call of its own,
    done before the capture: the sources (tens of kB) are gone from the
    worker's heap, and from the frames that ran this call, when the
    capture lists it."""
    import json
    import os
    import tempfile
    import zlib

    stage = tempfile.mkdtemp(prefix="heapscope-dask-")
    pkgdir = os.path.join(stage, "agent")
    os.mkdir(pkgdir, 0o700)
    files = json.loads(zlib.decompress(sources).decode("utf-8"))
    for f, text in files.items():
        with open(os.path.join(pkgdir, f), "w", encoding="utf-8") as fh:
            fh.write(text)
    return stage


def _heapscope_capture(stage, name, opts):
    """Runs on a worker: takes its snapshot into stage (which
    _heapscope_stage made) and returns where, with the agent's status.
    Self-contained: Client.run sends it by value, its code filed under
    the agent's directory on the worker (see filed_under), so that the
    agent takes its frame, the one below its own, for its own: not the
    program's, its locals not listed."""
    import json
    import os
    import shutil
    import sys
    import _frozen_importlib as bi
    import _frozen_importlib_external as be

    pkgdir = os.path.join(stage, "agent")
    mods = sys.modules
    try:
        spec = be.spec_from_file_location(name + "._attach", os.path.join(pkgdir, "_attach.py"))
        mod = bi.module_from_spec(spec)
        mods[name + "._attach"] = mod
        spec.loader.exec_module(mod)
        spec = None
        mod.main(stage, pkgdir, name, *opts)
    finally:
        mod = spec = None
        for m in [m for m in list(mods) if type(m) is str and (m == name or m.startswith(name + "."))]:
            mods.pop(m, None)
        shutil.rmtree(pkgdir, ignore_errors=True)
    try:
        with open(os.path.join(stage, "status"), encoding="utf-8") as fh:
            status = json.load(fh)
    except (OSError, ValueError) as e:
        status = {"ok": False, "messages": ["no status: %s" % e]}
    snap = os.path.join(stage, "snapshot.pysnap")
    size = os.path.getsize(snap) if status.get("ok") and os.path.isfile(snap) else -1
    if size < 0:
        shutil.rmtree(stage, ignore_errors=True)
    return {"pid": os.getpid(), "stage": stage, "file": snap, "size": size, "status": status}


def filed_under(fn, pkgdir):
    """fn with its code filed as a file of pkgdir, the agent's directory
    on the worker: the agent takes a running frame of code of its
    directory for its own (is_agent_code)."""
    import types
    code = fn.__code__.replace(co_filename=os.path.join(pkgdir, "_dask_capture.py"))
    return types.FunctionType(code, fn.__globals__, fn.__name__, fn.__defaults__, fn.__closure__)


def _heapscope_read(path, offset, n):
    """Runs on a worker: n bytes of its snapshot from offset."""
    with open(path, "rb") as fh:
        fh.seek(offset)
        return fh.read(n)


def _heapscope_remove(stage):
    """Runs on a worker: removes what the capture left."""
    import shutil
    if os.path.basename(stage).startswith("heapscope-dask-"):
        shutil.rmtree(stage, ignore_errors=True)


def remove(client, addr, stage):
    """Has the worker remove stage, if it still can."""
    try:
        client.run(_heapscope_remove, stage, workers=[addr], on_error="ignore")
    except Exception:
        pass


def describe(e):
    text = str(e).strip()
    return type(e).__name__ + (": " + text if text else "")


def one(client, addr, wname, sources, cfg, index):
    opts = (cfg["values"], cfg["max_value_len"], cfg["collect"], cfg["edges"])
    t0 = time.monotonic()
    try:
        r = client.run(_heapscope_stage, sources, workers=[addr], on_error="return")
        if addr not in r:
            raise RuntimeError("the worker did not answer (it left the cluster?)")
        stage = r[addr]
        if isinstance(stage, BaseException):
            raise stage
        capture = filed_under(_heapscope_capture, os.path.join(stage, "agent"))
        try:
            r = client.run(capture, stage, cfg["name"], opts, workers=[addr], on_error="return")
        except BaseException:
            remove(client, addr, stage)
            raise
        if addr not in r:
            remove(client, addr, stage)
            raise RuntimeError("the worker did not answer (it left the cluster?)")
        r = r[addr]
        if isinstance(r, BaseException):
            remove(client, addr, stage)
            raise r
        status = r["status"]
        if r["size"] < 0:
            msgs = status.get("messages") or ["no snapshot was written"]
            emit(event="failed", address=addr, name=wname, error="the capture failed: " + "; ".join(msgs))
            return
        local = os.path.join(cfg["stage"], "%d.part" % index)
        try:
            with open(local, "wb") as fh:
                off = 0
                while off < r["size"]:
                    got = client.run(_heapscope_read, r["file"], off, CHUNK, workers=[addr], on_error="return").get(addr)
                    if isinstance(got, BaseException):
                        raise got
                    if not got:
                        raise RuntimeError("the snapshot ended at byte %d of %d on the worker" % (off, r["size"]))
                    fh.write(got)
                    off += len(got)
        finally:
            remove(client, addr, r["stage"])
        emit(event="done", address=addr, name=wname, pid=r["pid"], file=local, size=r["size"],
             seconds=round(time.monotonic() - t0, 3), messages=status.get("messages") or [])
    except Exception as e:
        emit(event="failed", address=addr, name=wname, error=describe(e))


def main():
    cfg = json.load(sys.stdin)
    try:
        from distributed import Client
    except ImportError as e:
        emit(event="error", error="%s cannot import distributed (%s): run heapscope with the Python of the cluster's client, --dask-python PYTHON" % (sys.executable, describe(e)))
        return
    try:
        client = Client(cfg["address"], timeout=cfg["connect_timeout"], set_as_default=False)
    except Exception as e:
        emit(event="error", error="cannot connect to the Dask scheduler at %s: %s" % (cfg["address"], describe(e)))
        return
    try:
        workers = client.scheduler_info()["workers"]
        listed = [{"address": a, "name": str(w.get("name", a))} for a, w in sorted(workers.items())]
        emit(event="workers", workers=listed)
        files = {}
        pkg = cfg["agent"]
        for f in sorted(os.listdir(pkg)):
            if f.endswith(".py"):
                with open(os.path.join(pkg, f), encoding="utf-8") as fh:
                    files[f] = fh.read()
        import zlib
        sources = zlib.compress(json.dumps(files).encode("utf-8"))
        threads = []
        for i, w in enumerate(listed):
            th = threading.Thread(target=one, args=(client, w["address"], w["name"], sources, cfg, i), daemon=True)
            th.start()
            threads.append((th, w))
        deadline = time.monotonic() + cfg["timeout"]
        for th, w in threads:
            th.join(max(0.0, deadline - time.monotonic()))
            if th.is_alive():
                emit(event="failed", address=w["address"], name=w["name"],
                     error="no answer within %g s (the capture may still run; the worker's temporary directory keeps what it writes)" % cfg["timeout"])
    finally:
        try:
            client.close(timeout=10)
        except Exception:
            pass
    sys.stdout.flush()
    os._exit(0)  # daemon threads of workers that did not answer


if __name__ == "__main__":
    main()
