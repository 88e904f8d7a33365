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
fork, also "pause_seconds", the time the main thread spent, and
"load_seconds", see start()).

The bootstrap calls start() in the main thread. A stop-the-world capture
runs there (main()); a fork capture is loaded and started on a thread of
the agent's instead, which then removes the package's modules itself:
the main thread stops only to start that thread, and, with every other
thread, for the fork (see start()).

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


# What start() hands the agent's loading thread: that thread takes no
# arguments (a tuple of them would be held by its start-up state, outside
# the heap, and listed in the child as the program's).
_JOB = []


def start(stage, pkgdir, name, values, max_value_len, collect, edges, fork=False):
    """What the bootstrap calls, in the main thread. Returns True when a
    thread of the agent's took the capture over (it then removes the
    package's modules from sys.modules itself), False when main() ran
    here (the bootstrap removes them).

    A fork capture is loaded and started on that thread (_loading): the
    imports of the agent (about 12 ms from precompiled bytecode on an
    idle machine, and its preparation) share the interpreter with the
    program instead of stopping its main thread, which gets the
    interpreter lock back at every switch interval. The main thread then
    stops only for this call and, as every thread does, for the fork:
    pause_seconds in the status is the sum of the two; load_seconds is
    the loading thread's time from its start to the fork's end. A
    stop-the-world capture stays in the main thread, as does a fork
    capture when the thread cannot start."""
    if fork:
        tm = sys.modules.get("time")   # every interpreter loads it at startup
        clock = getattr(tm, "perf_counter", None) if tm is not None else None
        h = {"clock": clock, "t0": clock() if clock is not None else None, "t1": None,
             "lock": _thread.allocate_lock(), "left": 2, "write": None}
        _JOB[:] = [(stage, pkgdir, name, values, max_value_len, collect, edges), h]
        try:
            _thread.start_new_thread(_loading, ())
        except BaseException:
            del _JOB[:]
        else:
            if clock is not None:
                h["t1"] = clock()
            return True
    main(stage, pkgdir, name, values, max_value_len, collect, edges, fork)
    return False


def _loading():
    """The agent's loading thread: main() with a fork, then the package's
    modules leave sys.modules. It never raises (an exception here would
    be printed on the program's stderr)."""
    try:
        args, h = _JOB
        del _JOB[:]
        try:
            main(*args, fork=True, h=h)
        finally:
            _forget(args[2])
            _last(h, None)
    except BaseException:
        pass


def _last(h, write):
    """Runs the status's write now when h is None (main() in the main
    thread, whose bootstrap removes the package's modules after it);
    with the loading thread's h, at the second of two calls, one with
    the write (main(), or the reaper of the fork's child) and one
    without (_loading, once the package's modules are removed): a
    status on disk means the agent has left sys.modules."""
    if h is None:
        write()
        return
    with h["lock"]:
        if write is not None:
            h["write"] = write
        h["left"] -= 1
        write = h["write"] if h["left"] == 0 else None
    if write is not None:
        write()


def _forget(name):
    """Removes the package's modules (name and name.X) from sys.modules,
    as the bootstrap does after main() in the main thread."""
    mods = sys.modules
    for m in list(mods):
        if type(m) is str and (m == name or m.startswith(name + ".")):
            try:
                del mods[m]
            except BaseException:
                pass


def main(stage, pkgdir, name, values, max_value_len, collect, edges, fork=False, h=None):
    """fork: take the snapshot in a child process (the package's _fork);
    main() then returns once the child is started, and the status is
    written when it has ended. h: when main() runs on the loading thread,
    what start() measured in the main thread (its clock, when it began,
    when it returned), and the status's write held for _last."""
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
        on_done = _when_done(stage, status, json, clock, t0, h) if fork else None
        path = pkg._snapshot(os.path.join(stage, "snapshot.pysnap"), values, max_value_len,
                             collect and not fork, "attach", True, edges, fork, on_done)
        status["ok"] = path is not None
        status["seconds"] = round(clock() - t0, 6)
        pending = fork and path is not None
        if pending:
            if h is None:
                status["pause_seconds"] = status["seconds"]
            else:
                status["load_seconds"] = status["seconds"]
                fs = pkg._fork.LAST.get("seconds")
                if h["t0"] is not None and h["t1"] is not None and fs is not None:
                    status["pause_seconds"] = round(h["t1"] - h["t0"] + fs, 6)
    except KeyboardInterrupt:
        interrupted = True
        status["messages"].append("interrupted by KeyboardInterrupt")
    except BaseException as e:
        status["messages"].append("capture failed: %s" % _name(e))
    finally:
        if not pending:
            _last(h, lambda: write_status(stage, status, json))
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


def _when_done(stage, status, json, clock, t0, h=None):
    """What a fork capture's reaper calls when the child has ended: the
    status, with the child's messages (written as _last says)."""
    def done(ok, messages):
        status["ok"] = ok
        status["messages"].extend(messages)
        status["seconds"] = round(clock() - t0, 6)
        _last(h, lambda: write_status(stage, status, json))
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
