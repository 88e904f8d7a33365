// Package capture is heapscope's capture layer: how a snapshot of a live
// program's heap is taken. It sits beside the readers (pysnap, hprof,
// heapsnapshot), which read what it writes, and knows nothing of the
// analyses; cmd/heapscope parses the flags and prints, and calls it.
//
// Each runtime's capture, and each way of running programs, is a package
// of its own under capture/:
//
//   - [github.com/heapscope/heapscope/capture/attach]: a running CPython
//     process (snapshot --python): gdb queues heapscope's agent for the
//     main thread's next safe point.
//   - [github.com/heapscope/heapscope/capture/inspector]: a running Node
//     process (snapshot --node), over the inspector protocol.
//   - [github.com/heapscope/heapscope/capture/jvm]: a running JVM
//     (snapshot --java, through jcmd) and the JVMs run starts.
//   - [github.com/heapscope/heapscope/capture/supervisor]: heapscope run:
//     starts a program with the agent loaded, passes signals on, counts
//     what it wrote.
//
// Capture of distributed programs (a Dask cluster's workers, MPI ranks)
// belongs here too, as packages of their own. The agent that runs inside
// a Python or Node program (its code, embedded in the binary) is package
// agent; the capture packages stage it and start it.
//
// This package holds what they share: the handling of heapscope's own
// interrupts during a capture ([Interruptible]) and of the signals a
// program can be asked for a snapshot with ([ParseSignal], [SignalName],
// [Catches]).
//
// What capture may import (heap's TestLayers checks it): the readers, to
// check what a program wrote by the format's magic or to redact a Node
// snapshot as it streams; the agent it stages; internal/input,
// internal/term, and internal/fleet's names for a set of many processes'
// snapshots. Never heap itself (a capture builds no graph), the
// analyses, the renderers or the command. Each runtime's package may
// import this one and no other capture package; only run's supervisor
// drives others.
//
// A capture writes a snapshot whole or not at all: into a temporary file
// or directory beside its output, renamed into place when it is checked.
package capture
