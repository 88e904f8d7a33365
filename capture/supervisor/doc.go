// Package supervisor runs a program for heapscope run and has it take
// snapshots: [Run] starts it with heapscope's agent loaded (a Python or
// Node program, through its environment) or with jcmd ready (a JVM,
// package jvm), passes on the signals heapscope receives as child says,
// waits for it to end and counts the snapshots it wrote. The program is
// heapscope's child: its status is heapscope's, and it is not run under
// heapscope's own crash supervisor (internal/crash).
package supervisor
