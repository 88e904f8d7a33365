"""`heapscope snapshot --python PID`: what runs inside the target process.

heapscope has the interpreter run a short bootstrap at a safe point of
its main thread (a pending call scheduled with gdb, or sys.remote_exec on
3.14+). The bootstrap claims the request (renames STAGE/go to
STAGE/started; a request heapscope has withdrawn is not there to claim),
loads this package by file location under a private name, calls main()
and removes the package's modules from sys.modules again. main() takes
the snapshot into STAGE/snapshot.pysnap and writes STAGE/status, a JSON
object: {"ok": bool, "messages": [...], "seconds": float}.

main() never raises: the agent's messages go into the status instead of
the program's stderr. A KeyboardInterrupt that arrives during the capture
is raised again in the main thread afterwards (_thread.interrupt_main), as
if the signal came then; any other exception the program's own signal
handlers raise meanwhile is reported in the status and dropped.
"""

import _frozen_importlib_external
import _thread
import json
import os
import sys
import time


class _Finder:
    """Finds the package's submodules (name.X -> PKGDIR/X.py) before any
    finder of the program's sys.meta_path is asked, so loading the agent
    runs none of the program's import hooks."""

    def __init__(self, name, pkgdir):
        self.prefix = name + "."
        self.pkgdir = pkgdir

    def find_spec(self, fullname, path=None, target=None):
        if type(fullname) is not str or not fullname.startswith(self.prefix):
            return None
        mod = fullname[len(self.prefix):]
        if not mod.isidentifier():
            return None
        f = os.path.join(self.pkgdir, mod + ".py")
        if not os.path.isfile(f):
            return None
        return _frozen_importlib_external.spec_from_file_location(fullname, f)


def main(stage, pkgdir, name, values, max_value_len, collect, edges):
    t0 = time.perf_counter()
    status = {"ok": False, "messages": []}
    interrupted = False
    try:
        pkg = sys.modules[name]
        finder = _Finder(name, pkgdir)
        sys.meta_path.insert(0, finder)
        saved = pkg._stderr
        pkg._stderr = status["messages"].append
        try:
            path = pkg._snapshot(os.path.join(stage, "snapshot.pysnap"), values, max_value_len,
                                 collect, "attach", True, edges)
            status["ok"] = path is not None
        finally:
            pkg._stderr = saved
            sys.meta_path[:] = [f for f in sys.meta_path if f is not finder]
    except KeyboardInterrupt:
        interrupted = True
        status["messages"].append("interrupted by KeyboardInterrupt")
    except BaseException as e:
        status["messages"].append("capture failed: %s" % _name(e))
    status["seconds"] = round(time.perf_counter() - t0, 6)
    write_status(stage, status)
    if interrupted:
        try:
            _thread.interrupt_main()
        except BaseException:
            pass


def write_status(stage, status):
    """Writes STAGE/status whole (a temporary file, then a rename)."""
    try:
        tmp = os.path.join(stage, ".status.tmp")
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        try:
            os.write(fd, json.dumps(status).encode("utf-8", "backslashreplace"))
        finally:
            os.close(fd)
        os.replace(tmp, os.path.join(stage, "status"))
    except BaseException:
        pass


def _name(e):
    try:
        return type.__dict__["__name__"].__get__(type(e))
    except BaseException:
        return "error"
