"""`heapscope snapshot --python PID`: what runs inside the target process.

heapscope has the interpreter run a short bootstrap at a safe point of
its main thread (a pending call scheduled with gdb, or sys.remote_exec on
3.14+). The bootstrap claims the request (renames STAGE/go to
STAGE/started; a request heapscope has withdrawn is not there to claim),
loads this module by file location, calls main() and removes the
package's modules from sys.modules again. With fork, main() returns once
a child process has been started to take the snapshot (see _fork), and
a thread of the agent's writes the status when the child has ended. main() loads the package under
the bootstrap's private name, with a finder of its own first in
sys.meta_path, takes the snapshot into STAGE/snapshot.pysnap and writes
STAGE/status, a JSON object: {"ok": bool, "messages": [...], "seconds":
float}, seconds from the start of main() to the snapshot's end (with
fork, also "pause_seconds": until main() returned, the time the main
thread spent).

main() never raises: the agent's messages go into the status instead of
the program's stderr. A KeyboardInterrupt that arrives during the capture
is raised again in the main thread afterwards (_thread.interrupt_main), as
if the signal came then; any other exception the program's own signal
handlers raise meanwhile is reported in the status and dropped.
"""

# Only modules every interpreter has loaded at startup: importing any
# other here would ask the program's import hooks. The rest is imported
# once the finder below is in place.
import _frozen_importlib
import _frozen_importlib_external
import _thread
import os
import sys


class _Finder:
    """First in sys.meta_path while the agent loads, for the imports of
    the thread that loads it (others are left alone): it finds the
    package's modules (name.X -> PKGDIR/X.py) and the standard library
    modules the agent imports that the program has not (in the
    interpreter's own library, as built in, frozen, or files of its
    directory and lib-dynload), so that no finder of the program's
    sys.meta_path is asked, and no module of the program's sys.path
    shadows a standard one. A module found neither way is not found."""

    def __init__(self, name, pkgdir):
        self.prefix = name + "."
        self.pkgdir = pkgdir
        self.tid = _thread.get_ident()
        lib = os.path.dirname(os.__file__)
        self.stdlib = [lib, os.path.join(lib, "lib-dynload")]

    def find_spec(self, fullname, path=None, target=None):
        if _thread.get_ident() != self.tid or type(fullname) is not str:
            return None
        if fullname.startswith(self.prefix):
            mod = fullname[len(self.prefix):]
            f = os.path.join(self.pkgdir, mod + ".py")
            if not mod.isidentifier() or not os.path.isfile(f):
                raise ModuleNotFoundError(fullname)
            return _frozen_importlib_external.spec_from_file_location(fullname, f)
        for finder in (_frozen_importlib.BuiltinImporter, _frozen_importlib.FrozenImporter):
            spec = finder.find_spec(fullname, path)
            if spec is not None:
                return spec
        spec = _frozen_importlib_external.PathFinder.find_spec(fullname, path if path is not None else self.stdlib)
        if spec is None:
            raise ModuleNotFoundError(fullname)
        return spec


def main(stage, pkgdir, name, values, max_value_len, collect, edges, fork=False):
    """fork: take the snapshot in a child process (the package's _fork);
    main() then returns once the child is started, and the status is
    written when it has ended."""
    status = {"ok": False, "messages": []}
    interrupted = False
    pending = False
    finder = json = clock = None
    try:
        finder = _Finder(name, pkgdir)
        sys.meta_path.insert(0, finder)
        from time import perf_counter as clock
        t0 = clock()
        import json
        pkg = _load(name, pkgdir)
        pkg._stderr = status["messages"].append
        # The agent is loaded, with everything its capture imports: the
        # finder leaves sys.meta_path before the walk, which would see it
        # there as the program's (a list of the program's holds it), and
        # is dropped: held only by this frame, it would read as held
        # outside the heap.
        _unhook(finder)
        finder = None
        on_done = _when_done(stage, status, json, clock, t0) if fork else None
        path = pkg._snapshot(os.path.join(stage, "snapshot.pysnap"), values, max_value_len,
                             collect and not fork, "attach", True, edges, fork, on_done)
        status["ok"] = path is not None
        status["seconds"] = round(clock() - t0, 6)
        pending = fork and path is not None
        if pending:
            status["pause_seconds"] = status["seconds"]
    except KeyboardInterrupt:
        interrupted = True
        status["messages"].append("interrupted by KeyboardInterrupt")
    except BaseException as e:
        status["messages"].append("capture failed: %s" % _name(e))
    finally:
        if not pending:
            write_status(stage, status, json)
        if finder is not None:
            _unhook(finder)
    if interrupted:
        try:
            _thread.interrupt_main()
        except BaseException:
            pass


def _unhook(finder):
    """Removes finder from sys.meta_path. A function of its own, with a
    loop: a comprehension in main would make main's finder a closure
    cell, an object the walk sees held from outside the heap."""
    mp = sys.meta_path
    for i in range(len(mp) - 1, -1, -1):
        if mp[i] is finder:
            del mp[i]


def _when_done(stage, status, json, clock, t0):
    """What a fork capture's reaper calls when the child has ended: the
    status, with the child's messages."""
    def done(ok, messages):
        status["ok"] = ok
        status["messages"].extend(messages)
        status["seconds"] = round(clock() - t0, 6)
        write_status(stage, status, json)
    return done


def _load(name, pkgdir):
    """Loads the package from pkgdir as module name (its own imports of
    its submodules go to the finder)."""
    spec = _frozen_importlib_external.spec_from_file_location(
        name, os.path.join(pkgdir, "__init__.py"), submodule_search_locations=[pkgdir])
    mod = _frozen_importlib.module_from_spec(spec)
    sys.modules[name] = mod
    spec.loader.exec_module(mod)
    return mod


def write_status(stage, status, json):
    """Writes STAGE/status whole (a temporary file, then a rename); the
    messages are dropped when json could not be imported."""
    try:
        text = json.dumps(status) if json else '{"ok": false, "messages": ["the status could not be written"]}'
        tmp = os.path.join(stage, ".status.tmp")
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        try:
            os.write(fd, text.encode("utf-8", "backslashreplace"))
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
