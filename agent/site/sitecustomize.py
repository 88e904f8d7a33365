# heapscope run: this file is on PYTHONPATH only for programs started by
# `heapscope run`. When HEAPSCOPE_OUT is set it loads the heapscope agent
# from HEAPSCOPE_AGENT_DIR (without adding that directory to sys.path) and
# installs the snapshot hooks; then it runs the sitecustomize module that
# would have run without it, if there is one further on sys.path.


def _heapscope_boot():
    import os
    import sys
    here = os.path.dirname(os.path.abspath(__file__))
    if os.environ.get("HEAPSCOPE_OUT"):
        try:
            mod = sys.modules.get("heapscope")
            if mod is None:
                import importlib.util
                pkg = os.path.join(os.environ.get("HEAPSCOPE_AGENT_DIR", ""), "heapscope")
                spec = importlib.util.spec_from_file_location(
                    "heapscope", os.path.join(pkg, "__init__.py"), submodule_search_locations=[pkg])
                mod = importlib.util.module_from_spec(spec)
                sys.modules["heapscope"] = mod
                try:
                    spec.loader.exec_module(mod)
                except BaseException:
                    del sys.modules["heapscope"]
                    raise
            from heapscope import _run
            _run.install_from_env()
        except Exception as e:
            sys.stderr.write("heapscope: agent not loaded: %s: %s\n" % (type(e).__name__, e))
    # Our directory leaves sys.path, so the program sees the path it would
    # see without heapscope; then the next sitecustomize, if any, runs.
    sys.path[:] = [p for p in sys.path if os.path.abspath(p or os.curdir) != here]
    import importlib.machinery
    spec = importlib.machinery.PathFinder.find_spec("sitecustomize", sys.path)
    if spec is None or spec.loader is None:
        return
    import importlib.util
    mod = importlib.util.module_from_spec(spec)
    sys.modules["sitecustomize"] = mod
    spec.loader.exec_module(mod)


_heapscope_boot()
del _heapscope_boot
