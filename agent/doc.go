// Package agent embeds heapscope's Python agent and prepares it for use.
//
// The agent is a standard-library-only Python package (agent/heapscope,
// Python 3.9+) that writes a snapshot of a live CPython heap in the
// .pysnap format (docs/pysnap-format.md; read with package pysnap):
//
//	import heapscope
//	heapscope.snapshot("/tmp/app.pysnap")   # -> path, or None on failure
//	heapscope.snapshot(path, values=False, max_value_len=64, collect=True)
//	heapscope.snapshot(path, edges=False)   # a census: types and sizes only
//
// A census (agent/heapscope/_census.py) lists the same objects as a full
// snapshot, each with its type and size, but no references, reference
// counts or values; every per-object step runs in C over whole chunks, so
// it costs less than a bare gc traversal. summary, diff and trend read
// it; the commands that need references refuse it.
//
// # Commands
//
// heapscope python-path prints [Dir]: the directory that holds the
// importable package, for PYTHONPATH=$(heapscope python-path).
//
// heapscope run -o DIR [--at-exit] [--signal SIGUSR2] [--every DURATION] -- python3 script.py ARGS
// runs the command with the environment of [Env]. Snapshots appear in DIR
// named NNNN-PID-REASON.pysnap (NNNN counts 0001, 0002, ... per process,
// in the order the snapshots are taken, with no gap; REASON is exit,
// signal or interval). An interval snapshot that falls due while another
// is being taken waits for it, and none is taken once the program has
// begun to exit. The program's output, behaviour and exit status are its
// own.
//
// For a Node program, run sets NODE_OPTIONS=--require=<preload> (see
// [NodePreload]); the preload reads the same variables and writes
// NNNN-PID-REASON.heapsnapshot with v8.writeHeapSnapshot, or, with
// HEAPSCOPE_VALUES=0, through an in-process inspector session and a
// JavaScript copy of inspector.Redact, so that no string content is ever
// written. Snapshots are 0600, in a directory it makes 0700.
//
// # Where the files are
//
// The extracted package and the preload live in a per-user directory
// (cache.go): $XDG_CACHE_HOME/heapscope or ~/.cache/heapscope (0700),
// else /tmp/heapscope-UID, else a fresh directory heapscope makes. A
// directory is used only if it is the user's, not a symbolic link and
// not writable by others; what is reused there is compared with the
// embedded files and replaced if it differs, so that no other user can
// put code there for the user's programs to run.
//
// # Environment protocol of heapscope run
//
//	PYTHONPATH=<RunDir>[:<original>]   loads <RunDir>/sitecustomize.py
//	HEAPSCOPE_AGENT_DIR=<Dir>          where the heapscope package is
//	HEAPSCOPE_OUT=DIR                  activates the agent; snapshots go here
//	HEAPSCOPE_AT_EXIT=1                a snapshot at interpreter exit (atexit, runs last), and
//	                                   before SIGTERM or SIGHUP ends a Python program that does
//	                                   not handle them (the signal is then sent again)
//	HEAPSCOPE_SIGNAL=SIGUSR2           a snapshot when the signal arrives (name or number)
//	HEAPSCOPE_EVERY=SECONDS            a snapshot every SECONDS (float) from a daemon thread
//	HEAPSCOPE_VALUES=0                 snapshots without value prefixes (Node: without string contents)
//	HEAPSCOPE_MAX_VALUE_LEN=N          value prefix length (default 64)
//	HEAPSCOPE_COLLECT=0                no gc.collect() before a snapshot
//	HEAPSCOPE_EDGES=0                  censuses (types and sizes only) instead of full snapshots
//	HEAPSCOPE_CHILDREN=1               child Python processes take snapshots too
//	HEAPSCOPE_ORIG_PYTHONPATH=...      the PYTHONPATH before heapscope (set only if there was one)
//	PYTHONTRACEMALLOC=N                run --trace-alloc=N: tracemalloc records N frames of each
//	HEAPSCOPE_TRACE_ALLOC=N            allocation from the interpreter's start; snapshots then
//	                                   have SITES (docs/pysnap-format.md)
//	HEAPSCOPE_ORIG_PYTHONTRACEMALLOC=  the program's own PYTHONTRACEMALLOC, if it had one
//	NODE_OPTIONS=... --track-heap-objects  run --trace-alloc: V8's allocation tracker for Node
//
// The sitecustomize.py does nothing unless HEAPSCOPE_OUT is set. It loads
// the package by file location (HEAPSCOPE_AGENT_DIR is not added to
// sys.path), installs the hooks, removes its own directory from sys.path
// and runs the next sitecustomize module on sys.path, if any, so that a
// user's or the distribution's sitecustomize still runs. Unless
// HEAPSCOPE_CHILDREN=1, it then removes the HEAPSCOPE_* variables from
// os.environ and restores PYTHONPATH, so that the program's children run
// without the agent; the hooks themselves do nothing in a forked child.
//
// Limits: python -E, -I or -S skip PYTHONPATH or site, and then the agent
// is not loaded; a program that ends with os._exit or a fatal signal takes
// no exit snapshot; a program that installs its own handler for the chosen
// signal replaces the agent's. The interval thread is started with
// _thread (it does not appear in threading.enumerate()).
//
// # What the agent guarantees
//
// It never runs code of the program's classes (no repr, str, eq, hash,
// len, iter or getattr that could reach __getattr__, __getattribute__,
// properties or descriptors: it uses type(), id(), gc.get_referents,
// sys.getsizeof only when __sizeof__ is implemented in C, dict.items on
// exact dicts, and the C descriptors of builtin types called directly).
// It never raises into the program: its own failures become warnings in
// the file, or None and one line on stderr (fd 2). Exceptions that belong
// to the program are passed on after cleanup: KeyboardInterrupt,
// SystemExit, and whatever the program's own signal handlers raise while
// the agent works (recognized by the handler's frame at the bottom of the
// traceback), so a timeout implemented with SIGALRM still fires. It writes to a
// temporary file next to the target and renames it into place after END,
// so a file with the final name is always whole. Its own lists, sets and
// frames are not in the snapshot. Reference counts exclude the references
// the agent holds while measuring. Objects that gc.get_objects() does not
// list (untracked str, int, float, tuples and dicts, numpy arrays, frozen
// objects after gc.freeze(), executing frames) are found as referents and
// from the roots.
//
// It looks no name up in a dict the program can reach with the dict's own
// lookup, which would call the __eq__ of a key whose hash collides with
// the name: it looks among the dict's exact-str entries, and uses
// sys.getsizeof and getattr only on classes whose dicts have exact-str
// keys only. It reads nothing of a type whose READY flag is not set (an
// extension's static type used before PyType_Ready; reading its bases
// crashed 3.9-3.11). On 3.12 and earlier it never reads a frame's
// f_locals (which makes or refreshes a dict of the frame's locals that
// keeps them alive and changes the program's locals() dict): it reads
// the frame's slots with ctypes (heapscope/_native.py), in one C-level
// call per frame; 3.13's f_locals is a proxy that reads the frame. After
// snapshot() returns it holds no reference to the program's objects.
// The file and its temporary file are created 0600; values=False writes
// none of the program's data (docs/security.md says exactly what).
//
// Side effects it does have: gc.collect() first (collect=True); the
// collector is disabled during the capture; `import heapscope` imports
// every module a capture needs (ctypes too, on 3.9-3.12), so that no
// import, and no import hook of the program's, runs during a capture;
// on 3.11+, walking the stacks makes frame objects for running frames
// (as a traceback would).
//
// Attribute names of instances whose attributes are stored inline
// (CPython 3.11+, where o.__dict__ is made only on demand and the agent
// does not make it): per class, the agent learns which referent position
// holds which attribute, from the attribute names the class's methods use
// (and 3.13's __static_attributes__), and names position p ".n" in an
// instance only after checking getattr(o, n) is the object at p. It does
// so only for classes without __getattribute__ or __getattr__ and for
// names no class in the MRO defines, so the lookup reads the inline
// values and runs nothing.
//
// Known gaps: inline attributes that no method of the class assigns
// (set from outside, setattr with computed names) and all inline
// attributes of classes with __getattr__/__getattribute__, or with a
// class dict holding keys that are not str, are unnamed edges; a
// materialized managed __dict__ (3.11+) is an unnamed edge, as it cannot
// be told from an attribute value without reading the object; on 3.13+,
// locals of frames that are no longer executing (kept by tracebacks) are
// unnamed; set items are unnamed.
//
// # Layout of the Python package
//
// Every heapscope/*.py is embedded (agent.go). __init__.py has
// snapshot() and the final steps of a file (META, WARNINGS, END, the
// rename); _capture.py has capture() and Capture (the string table,
// roots, the interpreter's references); _kinds.py registers types (the
// type table, kinds, sort keys) and _chunks.py is the chunk pipeline
// (grouping, reference counts, sizes, values, discovery), both mixed
// into Capture; _edges.py names
// the edges of a group of objects of one kind (dict keys, sequences,
// inline attributes; mixed into Capture); _handlers.py has the object
// kinds and the per-object handlers of the rarer kinds; _introspect.py
// reads objects, types, code and frames through C-level accessors and
// recognizes the agent's own code; _native.py reads frames' fast locals
// (3.9-3.12) and code objects' fields with ctypes, _fields.py the C
// fields of descriptors, classes, modules, strs and numpy arrays, and
// _interp.py the interpreter state; _sites.py writes where objects were allocated
// when tracemalloc traces (SITES, OBJECT_SITES); _format.py writes
// .pysnap; _run.py is `heapscope run`; _attach.py is what `heapscope
// snapshot --python PID` runs in the process (package attach). The
// agent's own frames are recognized by the file
// name of their code: any file in the package's directory, so a new
// module is covered without a change.
//
// leakcheck.py and pytest_plugin.py are the leak-check test harness
// (docs/harness.md); they run in the test process and call the heapscope
// program. pyproject.toml and pybuild/heapscope_build.py (a build backend
// written with the standard library only) make the package installable
// as heapscope-agent, with the pytest plugin as an entry point.
package agent
