package attach

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// Options adjusts [Snapshot].
type Options struct {
	Census      bool // a census: types and sizes, no references (edges=False)
	NoValues    bool // no value prefixes (values=False)
	MaxValueLen int  // value prefix length; 0 for the agent's default (64)
	NoCollect   bool // no gc.collect() first
	// Fork has the process fork and a child process walk its copy of
	// the heap (Linux): the program stops only for the fork, and no
	// garbage is collected first (see agent/heapscope/_fork.py).
	Fork bool
	// UseGDB has gdb make the calls into the process that queue the
	// agent, instead of heapscope itself (ptrace, on Linux on x86-64;
	// elsewhere gdb always does). gdb stops every thread, for longer.
	UseGDB bool
	// GDB is the gdb to run; "" looks for gdb on PATH.
	GDB string
	// Cleanup bounds the wait for a capture that has started when ctx
	// ends (it cannot be stopped halfway); nil waits for it as long as
	// it takes.
	Cleanup context.Context
	// Waiting, if set, is called once when the process has not started
	// the capture two seconds after it was asked: its main thread is
	// then in a long call outside Python.
	Waiting func()
}

// Result says how a capture went.
type Result struct {
	// Method is "ptrace", "gdb" or "sys.remote_exec".
	Method string
	// Injection is how long the injection took: with ptrace, how long
	// the main thread was stopped (measured by the injector, from its
	// interrupt to its detach; no other thread stops); with gdb, gdb's
	// whole run, of which every thread is stopped from the attach to the
	// detach (that part is not measured); with sys.remote_exec, the run
	// of the Python that asked the process.
	Injection time.Duration
	// Capture is the time the agent took inside the process (its main
	// thread runs the capture, holding the interpreter lock; with Fork,
	// from the request to the child's end).
	Capture time.Duration
	// Pause is how long the main thread was kept from the program's
	// work by the agent, as the agent measured it from the start of its
	// start function (the bootstrap's few steps before that are not
	// counted): with Fork, starting the agent's loading thread and the
	// fork (which every thread waits for); without, the whole capture
	// (Capture). 0 when not known.
	Pause time.Duration
	// Load is, with Fork, how long the agent's loading thread took,
	// from its start to the fork's end: the imports and preparation that
	// share the interpreter with the program instead of stopping its
	// main thread. 0 when the main thread loaded the agent itself.
	Load time.Duration
}

// ErrWithdrawn is matched by the error of a capture that ended before
// the process started it: the request was taken back and the process
// will take no snapshot.
var ErrWithdrawn = errors.New("the request was withdrawn before the process started the capture")

// Snapshot takes a heap snapshot of the running CPython process pid (3.9
// or later) with heapscope's agent, and writes it to out (0600,
// heapscope's user's). See the package documentation for how.
func Snapshot(ctx context.Context, pid int, out string, opt Options) (Result, error) {
	var res Result
	p, err := Inspect(pid)
	if err != nil {
		return res, err
	}
	if err := checkTrace(p); err != nil {
		return res, err
	}
	if err := sameMounts(p); err != nil {
		return res, err
	}
	remote := atLeast(p.Version, 14)
	gdb, gdbErr := lookGDB(opt.GDB)
	if gdbErr != nil && !remote && !selfCalls(opt) {
		return res, gdbErr
	}
	s, err := newStage(p, out)
	if err != nil {
		return res, err
	}
	defer s.remove()
	precompile(ctx, p, s.pkg, s.own)
	boot := bootstrap(s, opt)
	if err := os.WriteFile(filepath.Join(s.priv, "boot.py"), boot, 0o600); err != nil {
		return res, err
	}
	start := time.Now()
	injected := false
	if remote {
		// The process reads the script itself, at its safe point.
		script := filepath.Join(s.dir, "boot.py")
		if err := os.WriteFile(script, boot, 0o644); err == nil && remoteExec(ctx, p, script) == nil {
			res.Method, injected = "sys.remote_exec", true
		} else if gdbErr != nil {
			return res, fmt.Errorf("sys.remote_exec failed and %w", gdbErr)
		}
	}
	if !injected {
		if res.Injection, err = inject(gdb, gdbErr, p, s.priv, opt, &res); err != nil {
			return res, err
		}
	} else {
		res.Injection = time.Since(start)
	}
	st, err := wait(ctx, s, opt)
	if err != nil {
		return res, err
	}
	res.Capture = time.Duration(st.Seconds * float64(time.Second))
	res.Pause = time.Duration(st.PauseSeconds * float64(time.Second))
	res.Load = time.Duration(st.LoadSeconds * float64(time.Second))
	if !opt.Fork && res.Pause == 0 {
		// The main thread ran the whole capture.
		res.Pause = res.Capture
	}
	if !st.OK {
		msg := strings.Join(st.Messages, "; ")
		if msg == "" {
			msg = "no reason given"
		}
		return res, fmt.Errorf("process %d took no snapshot: %s", pid, msg)
	}
	if err := s.collect(out); err != nil {
		return res, fmt.Errorf("process %d: %w", pid, err)
	}
	return res, nil
}

// selfCalls says whether heapscope makes the calls into the process
// itself (ptrace, from an injector): on Linux on x86-64, in a program
// that runs injectors, unless opt.UseGDB.
func selfCalls(opt Options) bool { return ownCalls && injectors && !opt.UseGDB }

// inject queues the bootstrap in dir for p's main thread: with
// heapscope's own calls when selfCalls; with gdb otherwise, or when
// they left the process untouched for a reason other than a refusal to
// trace it and there is a gdb. res.Method says which.
func inject(gdb string, gdbErr error, p *Process, dir string, opt Options, res *Result) (time.Duration, error) {
	if selfCalls(opt) {
		res.Method = "ptrace"
		took, err := injectPtrace(p, dir, gdbPatience)
		var u *untouched
		var denied *PermissionError
		if err == nil || !errors.As(err, &u) || errors.As(err, &denied) {
			return took, err
		}
		if gdbErr != nil {
			return took, fmt.Errorf("%w, and %w", err, gdbErr)
		}
	}
	res.Method = "gdb"
	return injectGDB(gdb, p, dir)
}

// poll is how often heapscope looks at the stage.
const poll = 20 * time.Millisecond

// wait waits for the process to claim the request and write its status.
// If ctx ends before the process claims it, the request is withdrawn;
// after, the capture is waited for (until opt.Cleanup ends).
func wait(ctx context.Context, s *stage, opt Options) (*status, error) {
	asked := time.Now()
	told := false
	for {
		// An end of ctx comes first: a capture that finished after it
		// (heapscope interrupted while gdb held the process) is removed
		// like one that finishes later.
		if ctx.Err() != nil {
			if s.withdraw() {
				return nil, fmt.Errorf("%w (%v)", ErrWithdrawn, context.Cause(ctx))
			}
			return waitCleanup(s, opt.Cleanup, ctx)
		}
		if st, ok := s.result(); ok {
			return st, nil
		}
		select {
		case <-ctx.Done():
			continue
		case <-time.After(poll):
		}
		if !told && opt.Waiting != nil && time.Since(asked) > 2*time.Second && !s.started() {
			opt.Waiting()
			told = true
		}
	}
}

// waitCleanup waits for a capture that has started, until cleanup ends.
func waitCleanup(s *stage, cleanup, ctx context.Context) (*status, error) {
	if cleanup == nil {
		cleanup = context.Background()
	}
	for {
		if st, ok := s.result(); ok {
			if st.OK {
				return nil, fmt.Errorf("the capture had started; it finished after heapscope was stopped (%v), and its snapshot was removed", context.Cause(ctx))
			}
			return st, nil
		}
		select {
		case <-cleanup.Done():
			return nil, fmt.Errorf("stopped waiting for the capture the process had started (%v); it will find its directory gone", context.Cause(ctx))
		case <-time.After(poll):
		}
	}
}

// sameMounts fails for a process in another mount namespace (a
// container): the paths heapscope gives it would name other files.
func sameMounts(p *Process) error {
	mine, err1 := os.Readlink("/proc/self/ns/mnt")
	theirs, err2 := os.Readlink("/proc/" + strconv.Itoa(p.PID) + "/ns/mnt")
	if err1 == nil && err2 == nil && mine != theirs {
		return fmt.Errorf("process %d runs in another mount namespace (a container?): the files heapscope would hand it are not where it looks; run heapscope in its namespace", p.PID)
	}
	return nil
}

// bootstrap returns the Python text the process runs (see
// agent/heapscope/_attach.py): it claims the request, loads _attach.py
// from s.pkg by file location, whose start loads the package under a
// private module name (nothing is added to sys.path, and none of the
// program's import hooks is asked for the agent's modules), and removes
// the package's modules from sys.modules, unless start handed a fork
// capture to a thread of the agent's, which then removes them itself.
// PyRun_SimpleString runs it in __main__'s namespace, where
// the program's globals could shadow any builtin name: it binds one
// function, named with a random suffix, and deletes it again; inside,
// it uses no builtin by name, only modules it imports (import looks
// __import__ up in the builtins, not in the globals) and bare except
// clauses; and no exception leaves it (PyRun_SimpleString would print
// it, or exit the process for a SystemExit).
func bootstrap(s *stage, opt Options) []byte {
	var nonce [6]byte
	rand.Read(nonce[:])
	name := "_heapscope_attach_" + hex.EncodeToString(nonce[:])
	mvl := opt.MaxValueLen
	if mvl <= 0 {
		mvl = 64
	}
	opts := fmt.Sprintf("(%s, %d, %s, %s, %s)", pyBool(!opt.NoValues), mvl, pyBool(!opt.NoCollect), pyBool(!opt.Census), pyBool(opt.Fork))
	return []byte(fmt.Sprintf(bootText, name, pyBytes(s.dir), pyBytes(s.pkg), opts))
}

const bootText = `def %[1]s(stage=%[2]s, pkgdir=%[3]s, opts=%[4]s):
    try:
        import os
        stage = os.fsdecode(stage)
        try:
            os.rename(os.path.join(stage, 'go'), os.path.join(stage, 'started'))
        except:
            return
        import sys
        import builtins as b
        name = '%[1]s'
        mods = sys.modules
        try:
            import _frozen_importlib as bi, _frozen_importlib_external as be
            pkgdir = os.fsdecode(pkgdir)
            spec = be.spec_from_file_location(name + '._attach', os.path.join(pkgdir, '_attach.py'))
            mod = bi.module_from_spec(spec)
            mods[name + '._attach'] = mod
            spec.loader.exec_module(mod)
            if mod.start(stage, pkgdir, name, *opts):
                mods = None
        except:
            try:
                e = sys.exc_info()[0]
                msg = 'cannot load the agent: ' + b.str(b.type.__dict__['__name__'].__get__(e))
                tmp = os.path.join(stage, '.status.tmp')
                fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 384)
                os.write(fd, ('{"ok": false, "messages": ["' + msg + '"]}').encode())
                os.close(fd)
                os.replace(tmp, os.path.join(stage, 'status'))
            except:
                pass
        finally:
            for m in [m for m in (mods if mods is not None else ()) if b.type(m) is b.str and (m == name or m.startswith(name + '.'))]:
                try:
                    del mods[m]
                except:
                    pass
    except:
        pass
try:
    %[1]s()
except:
    pass
try:
    del %[1]s
except:
    pass
`

func pyBool(b bool) string {
	if b {
		return "True"
	}
	return "False"
}

// pyBytes quotes s as a Python bytes literal, exactly, whatever its
// bytes (the bootstrap turns it into a path with os.fsdecode).
func pyBytes(s string) string {
	var b strings.Builder
	b.WriteString("b'")
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '/' || c == '.' || c == '_' || c == '-' {
			b.WriteByte(c)
			continue
		}
		fmt.Fprintf(&b, `\x%02x`, c)
	}
	b.WriteByte('\'')
	return b.String()
}
