/*
Heapscope finds memory leaks in heap snapshots of Python, Java and Node
programs, and says why the leaked objects stay alive.

Usage:

	heapscope <command> [flags] [arguments]

Snapshots: Python snapshots (.pysnap) written by heapscope's Python agent,
Java HPROF dumps and V8 heap snapshots (.heapsnapshot), both plain or
gzip. The format is recognized from the file's first bytes. A snapshot
may also come through a pipe, or standard input named "-".

What is there, and what grew:

	summary SNAPSHOT [SELECTOR] objects and shallow bytes per type (of the
	                            selected objects only, with a SELECTOR as
	                            why takes it); a Java dump's layout, its
	                            roots by kind, and the dumps of a file
	                            that holds several
	diff BEFORE AFTER           change per type between two snapshots (V8:
	                            also the objects new and deleted, and
	                            --new ROW or --deleted ROW lists a row's)
	trend S1 S2 S3 ...          growth per type over many snapshots, telling
	                            steady growth from a one-off warm-up; the
	                            paths that grew; collections whose entry
	                            count grew in every snapshot

Many processes (the workers of a Dask cluster, the ranks of an MPI job):
trend, diff and leaks take a directory with a directory of snapshots per
process (DIR/rank-3/0001-PID-REASON.pysnap, as run under mpirun and
snapshot --dask write them), or one directory per time point with a
snapshot per process (t1/worker-0.pysnap), and say per type, or per leak
finding (what leaks, where), on how many processes it grew and by how
much on each ("all 4 ranks", "only rank-3"); --at 2,5 chooses the time
points (leaks: the first, middle and last unless --at 1,3,5),
--per-process adds each process's own report. The directory run -o DIR
wrote for one program (DIR/0001-PID-REASON.pysnap, ...) is one process's
series: leaks DIR reads its last three snapshots, trend DIR all, diff
DIR the first and last (--at chooses others), with the report of one
process.

summary and diff read no references (but the few that names need: a
Python class's, a Java thread's, a Java class's superclass), so they take
a fraction of the time and memory of the other commands, and the
warnings they count may leave out those about references.

Why it stays alive, and what is wasted:

	top SNAPSHOT                leak suspects (what retains over 10% of the
	                            heap, and where it accumulates); objects and
	                            types that retain the most, with their
	                            dominators; objects held outside the heap
	                            (Python); what no root reaches
	tree SNAPSHOT               the dominator tree (--depth N, --min-size 1M,
	                            --from ID)
	why SNAPSHOT SELECTOR       shortest paths from the roots to the selected
	                            objects, merged by path: SELECTOR is a type
	                            name, an object's id (0x7f... in hex; a V8
	                            id as DevTools prints it, @47297 or 47297),
	                            an object as heapscope prints it (Server
	                            @47297, app.Item@0x7f...), value:TEXT,
	                            class:NAME for class objects (NAME qualified
	                            or not, * for any text: class:app.Model_*),
	                            or instanceof:NAME for the instances of a
	                            Java class and all its subclasses
	                            (instanceof:java.util.AbstractMap);
	                            a bare NAME no type has is what else
	                            heapscope prints it for: an object's name
	                            (module app), a class's, a function's
	                            closures (onTick), a row of leaks or diff,
	                            a finding, holder or suspect as leaks and
	                            top print it (300 RequestContext in Map at
	                            system / Context.contexts: the objects of
	                            that type the holder there keeps; dict at
	                            module app.cache);
	                            a selector that picks nothing says the
	                            nearest names; --weak follows weak
	                            references too
	retainers SNAPSHOT SELECTOR every reference to the selected objects (what
	                            holds them: DevTools' Retainers, MAT's
	                            incoming references), grouped by the holder's
	                            type and the edge's name, with counts,
	                            retained sizes and distance from the roots,
	                            nearest first; --depth N levels (each
	                            holder's own holders; cycles are cut), --top
	                            N groups per level, weak edges marked; a
	                            level of at most --each 20 edges lists them
	                            one by one
	refs SNAPSHOT SELECTOR      every reference the selected objects hold
	                            (DevTools' Containment, MAT's outgoing
	                            references), grouped the same way
	retained SNAPSHOT SELECTOR  the retained set of the selected objects
	                            (MAT's retained set of a group): what would
	                            be freed if all of them went, which holds
	                            what they share, by type
	containers SNAPSHOT [SELECTOR]
	                            dicts, lists, maps and caches by retained size,
	                            with their entry counts (Java: every JDK
	                            collection and its subclasses, with capacity
	                            and fill)
	duplicates SNAPSHOT         equal strings, bytes and tuples: wasted bytes

Retained size is what would be freed if the object went: the objects it
dominates. A type's retained size counts each object once. Weak
references never retain.

Finding leaks:

	leaks BASELINE TARGET FINAL objects created between baseline and target
	                            that are still alive in final, grouped by the
	                            path that holds them (--all: show known noise;
	                            --list-noise; --suppress FILE; --scaling: only
	                            growth in proportion to the work)

	check [--config F] BASELINE TARGET FINAL
	                            a CI gate: exit status 0 when no leak is
	                            over the allowances, 1 when one is, 2 on
	                            misuse (bad flags, a bad or missing
	                            config), 3 when it could not check (an
	                            unreadable snapshot); --format text, json,
	                            junit, markdown or html

Looking instead of reading:

	web [--http 127.0.0.1:PORT] SNAPSHOT...
	                            a local web page: overview, summary and diff
	                            tables, the dominator tree as a table and a
	                            treemap, why paths, top, leaks (three
	                            snapshots) and trend charts; it binds to
	                            127.0.0.1 on a free port and prints the URL
	                            with a secret token, without which it answers
	                            nothing (--allow-remote to bind elsewhere)

leaks, check and trend refuse snapshots of different processes or out of
time order (--allow-mixed accepts them); no command compares snapshots of
different runtimes.

Taking snapshots:

	snapshot --python PID -o FILE
	                            take a snapshot of a running CPython (3.9+)
	                            process: heapscope's calls into it (ptrace
	                            on Linux x86-64; --gdb, or elsewhere: gdb)
	                            have its main thread start heapscope's
	                            agent at its next safe point; the agent
	                            loads on a thread of its own and forks,
	                            and a child walks the copy of the heap
	                            (Linux; --fork=false: the main thread
	                            loads it and walks, stopping the program);
	                            waits up to --timeout (10m) for a main
	                            thread in a long call outside Python;
	                            says on stderr how long the main thread
	                            was paused, as measured
	                            (--census, --values=false, --no-collect)
	snapshot --node PID -o FILE take a V8 heap snapshot of a running Node
	                            process (its inspector opens on 127.0.0.1)
	snapshot --java PID -o FILE take an HPROF dump of a running JVM (jcmd)
	snapshot --dask ADDRESS -o DIR
	                            take a snapshot of every worker of a running
	                            Dask cluster through its own client (the
	                            agent runs in each worker, as in-process):
	                            DIR/worker-NAME/NNNN-PID-dask.pysnap, one
	                            number per capture; a worker that fails is
	                            named with why, the others are written
	                            (--dask-python PYTHON: the client's Python)
	python-path                 print the directory to put on PYTHONPATH
	                            for 'import heapscope; heapscope.snapshot(path)'
	run -o DIR [flags] -- CMD   run a Python or Node program with the agent
	                            loaded, no code change, or a JVM (java ...:
	                            jcmd dumps, an agent for the exit dump);
	                            snapshots land in DIR as NNNN-PID-REASON
	                            .pysnap (.heapsnapshot, .hprof): --at-exit,
	                            --signal SIGUSR2, --every 30s (Python: a
	                            forked child walks a copy of the heap;
	                            --fork=false stops the program instead),
	                            --values=false
	                            (no string contents), --census (types and
	                            sizes only: cheaper), --trace-alloc[=N]
	                            (record where objects are allocated, N
	                            frames: leaks, why, top and check then name
	                            the lines and functions; without it, the
	                            Python classes whose instances grew in both
	                            intervals between three snapshots are
	                            watched, and later snapshots name their
	                            sites: --watch-growth=false); prints the program's
	                            PID; the snapshot signal sent to heapscope
	                            takes a snapshot too, and SIGINT and SIGTERM
	                            reach the program, which ends its own way
	                            (a Python program that does not handle
	                            SIGTERM or SIGHUP takes its at-exit snapshot
	                            first); under mpirun or srun each rank writes
	                            into DIR/rank-N; --metrics 127.0.0.1:9464
	                            serves the latest census per type for
	                            Prometheus (a JVM's with --census: its class
	                            histogram), loopback only unless
	                            --metrics-allow-remote

About heapscope itself:

	help [COMMAND]              this text, or a command's usage and flags
	version                     heapscope's version, the commit it was built
	                            from and its Go version (also --version)
	completion bash|zsh|fish    print a shell completion script: source
	                            <(heapscope completion bash), heapscope
	                            completion fish | source

Flags every analysis takes:

	--json                      JSON output (same as --format json): every
	                            row, unless --top is given ("truncated"
	                            says whether rows were left out)
	--format text|json|markdown|html|dot|pprof
	                            html (top, leaks, check, trend): one
	                            self-contained page, for CI artifacts; dot
	                            (why, retainers, refs): a Graphviz graph of
	                            the objects and their references (dot -Tsvg);
	                            pprof (top, summary): a gzipped
	                            profile.proto for go tool pprof and flame
	                            graph viewers, whose stacks are dominator
	                            chains (top; --min-frame SIZE) or types
	                            (summary)
	--top N                     show the first N rows (0: all)
	--width N                   fit text to N columns: long retainer paths
	                            keep their root and end (the middle becomes
	                            "…") in tables, and wrap at steps elsewhere;
	                            default: the terminal's width, else 120;
	                            0: no limit (JSON and Markdown are never cut)
	-v                          list the snapshots' warnings on stderr, each
	                            with what it means and whether it is
	                            expected for the runtime (without -v, one
	                            line counts them)
	--max-inflated SIZE         write at most SIZE bytes to a temporary file
	                            to read a snapshot (a gzip HPROF, or one from
	                            a pipe), and read at most SIZE bytes of a
	                            gzip V8 snapshot's text; default 64 times the
	                            compressed size, at least 1G (check and web
	                            take it too)
	--max-memory SIZE           keep to about SIZE bytes of memory (suffixes
	                            K, M, G): past it, the graph's large arrays
	                            go to memory-mapped files in TMPDIR (unlinked
	                            at once), so a dump larger than memory opens,
	                            slower, with the same answers; default 3/4 of
	                            the machine's memory or of the cgroup's limit
	                            (check and web take it too)
	--dump N                    read heap dump N (from 1) of an HPROF file
	                            that holds several (the old hprof agent
	                            wrote one per dump request into one file);
	                            default: the last, the latest state; summary
	                            lists them; dumps are never merged
	--timings                   write each phase's wall and CPU time and the
	                            peak memory to stderr (check and web too)
	--cpuprofile FILE, --memprofile FILE
	                            write a CPU or memory profile of the run,
	                            for go tool pprof (check and web too)

In Python tests, heapscope.leakcheck (assert_no_leaks, LeakCheck) and the
pytest plugin (pytest -p heapscope.pytest_plugin) run a workload and fail
on a leak, with its path and retained bytes; they call this binary
(HEAPSCOPE_BIN or PATH).

Exit status: 0 success, 1 failure, 2 misuse (a bad command, flag or
config). check: 0 pass, 1 a leak over the allowances, 2 misuse, 3 could
not check. A crash, running out of memory included, is a failure (check:
3), never misuse: on Linux each command but run (whose status is its
program's) runs in a child process, and heapscope says why it ended.

Snapshots can hold secrets (string contents): the Python agent's
values=False writes none.
*/
package main
