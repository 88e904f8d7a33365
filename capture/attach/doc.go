// Package attach takes heap snapshots of running CPython processes (3.9
// and later) with heapscope's agent, with no change to their code and no
// restart: heapscope snapshot --python PID.
//
// # How
//
//  1. [Inspect] reads /proc/PID: the process must run or map an ELF file
//     that exports the C API heapscope calls (Py_AddPendingCall,
//     PyRun_SimpleString, ..., and PyFrame_GetCode, new in 3.9). Nothing
//     is attached to anything else.
//  2. checkTrace says, before heapscope tries, why the kernel would refuse:
//     another tracer, Yama's kernel.yama.ptrace_scope (3: never; 2: only
//     with CAP_SYS_PTRACE; 1: only ancestors), another user without
//     CAP_SYS_PTRACE. The kernel's "Operation not permitted" becomes a
//     [*PermissionError] that says the same.
//  3. A stage directory (see stage.go) is made next to the output file,
//     owned by the process's user; for a process of another user it
//     holds a copy of the agent the process can read and only
//     heapscope's user can change.
//  4. On the main thread, heapscope maps one page, copies a short
//     bootstrap into it and queues PyRun_SimpleString(bootstrap) with
//     Py_AddPendingCall. On Linux on x86-64 an injector does it (a copy
//     of heapscope in a process group of its own, see [Injector] and
//     injectHere): it stops the main thread alone, for about a
//     millisecond. Elsewhere, with Options.UseGDB, or when the injector
//     left the process untouched, gdb does it, in batch mode (-nx: no
//     .gdbinit; -readnever: no debug information, only exported
//     symbols; auto-load and debuginfod off), stopping every thread for
//     some tens of milliseconds. On 3.14 and later,
//     sys.remote_exec(pid, script) does the same without gdb (untested:
//     no such Python here); gdb is the fallback.
//  5. The main thread runs the bootstrap at its next safe point, between
//     two bytecodes, holding the interpreter lock, as it runs signal
//     handlers: never inside the allocator or halfway through changing
//     an object, which running code from a debugger at the point where it
//     stopped the thread could be. It claims the request, loads the agent
//     (agent/heapscope/_attach.py says what it leaves behind), takes the
//     snapshot into the stage and writes a status.
//  6. heapscope checks the file (a regular file, not a link, a Python
//     snapshot) and renames or copies it to the output (0600, heapscope's
//     user's), and removes the stage.
//
// # Limits
//
// A main thread in a long call outside Python (time.sleep, a join, a
// blocking read, a long C computation) takes the snapshot only when the
// call returns, as with signal handlers and sys.remote_exec; heapscope
// waits for its timeout, then withdraws the request (the process then
// does nothing when it gets to it). A capture that has started cannot
// be stopped: an interrupted heapscope waits for it and removes the file.
// Neither the injector nor gdb is ever killed: one killed inside a call
// into the process would leave the thread to go on from where the call
// had moved it. A process in another mount namespace (a container) is
// refused. The one page the bootstrap's text is in stays mapped.
package attach
