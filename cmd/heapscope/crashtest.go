//go:build crashtest

package main

import (
	"io"
	"time"
)

// Commands that fail on purpose, for the tests of the supervisor
// (supervise_linux.go). Only a binary built with -tags crashtest has
// them; the heapscope that ships does not.
func init() {
	commands = append(commands,
		command{name: "_panic", run: func([]string, io.Writer, io.Writer) error {
			note("testing a panic")
			panic("a deliberate panic")
		}},
		command{name: "_deadlock", run: func([]string, io.Writer, io.Writer) error {
			note("testing a fatal error")
			select {} // the runtime: "all goroutines are asleep - deadlock!"
		}},
		command{name: "_sleep", run: func([]string, io.Writer, io.Writer) error {
			note("sleeping")
			time.Sleep(time.Minute)
			return nil
		}},
	)
}
