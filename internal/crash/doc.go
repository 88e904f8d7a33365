// Package crash tells a crash of heapscope from a failure: the process a
// user starts runs the command in a copy of itself and exits 1 with a
// message that says why (out of memory, a bug, a kill) when the copy
// dies without reporting its status, where the Go runtime would exit 2,
// the status heapscope gives misuse. crash_linux.go says how; elsewhere
// than on Linux each command runs in its own process.
//
// main calls [Supervise] first and, in the copy, [Leave] with its exit
// status; a command tells what it is doing with [Note] (for the message
// if it crashes) and the status it gives failures with [FailWith].
package crash
