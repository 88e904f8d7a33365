// Package jvm takes HPROF dumps of running HotSpot JVMs: [Snapshot] has
// jcmd ask a JVM for GC.heap_dump (heapscope snapshot --java), after
// [Check] has made sure that jcmd's SIGQUIT cannot end the process; [Run]
// takes the dumps of a JVM that heapscope run started, on a signal, on a
// timer (both through jcmd) and at exit (through a small Java agent whose
// class file agent.go assembles, so that no Java compiler is needed).
//
// The JVM writes its dumps itself, as its own user, with every value;
// heapscope checks that what it wrote is an HPROF file, makes it 0600 and
// renames it into place.
package jvm
