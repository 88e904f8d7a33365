//go:build crashtest

package main

import (
	"io"
	"time"

	"github.com/heapscope/heapscope/internal/crash"
)

// Commands that fail on purpose, for the tests of the supervisor
// (internal/crash). Only a binary built with -tags crashtest has
// them; the heapscope that ships does not.
func init() {
	commands = append(commands,
		command{name: "_panic", run: func([]string, io.Writer, io.Writer) error {
			crash.Note("testing a panic")
			panic("a deliberate panic")
		}},
		command{name: "_deadlock", run: func([]string, io.Writer, io.Writer) error {
			crash.Note("testing a fatal error")
			select {} // the runtime: "all goroutines are asleep - deadlock!"
		}},
		command{name: "_sleep", run: func([]string, io.Writer, io.Writer) error {
			crash.Note("sleeping")
			time.Sleep(time.Minute)
			return nil
		}},
	)
}
