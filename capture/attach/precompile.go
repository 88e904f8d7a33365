package attach

import (
	"context"
	"os/exec"
	"time"
)

// precompile has the process's own interpreter compile the agent's
// modules in dir to bytecode (dir/__pycache__), as the process would on
// its first import of them. The process then loads them without
// compiling them: compiling is most of what its main thread does for the
// agent before a fork capture (0.6 to 1.9 s of it on a loaded 2-core
// machine), and a process that may not write bytecode
// (PYTHONDONTWRITEBYTECODE, a directory it cannot write) would compile
// them at every attach. It runs only for a process of heapscope's own
// user (running another user's program would lend it heapscope's
// rights), isolated (-I: no environment variables, no user site, no
// current directory on sys.path), with a deadline; when it fails, the
// process compiles the modules itself, as before.
func precompile(ctx context.Context, p *Process, dir string, own bool) {
	if !own || p.Exe == "" || p.Version == "" {
		return
	}
	ctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, p.Exe, "-I", "-c",
		"import compileall, sys; compileall.compile_dir(sys.argv[1], maxlevels=0, quiet=2)", dir)
	cmd.Run()
}
