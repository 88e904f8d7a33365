// Package term answers the two questions heapscope asks of its terminal:
// how wide it is (text output fits it) and whether heapscope is in its
// foreground (the terminal then sends its signals, Ctrl-C's SIGINT and a
// hangup's SIGHUP, to every process of the group, so a supervisor must
// not pass them on a second time).
package term
