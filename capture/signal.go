package capture

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"syscall"
)

// Interruptible returns ctx cancelled by SIGINT or SIGTERM; a context
// for the cleanup after the capture, cancelled by a second signal; a
// function that tells which signal came first (0 if none); and one that
// stops catching them. On the first signal the capture ends its own way:
// Node is left to finish the snapshot it is writing, then its inspector
// is closed, and the temporary file removed before heapscope exits. A
// second signal stops the waiting (risk, if not "", says at what cost);
// a third ends heapscope at once.
func Interruptible(ctx context.Context, stderr io.Writer, risk string) (capture, cleanup context.Context, caught func() syscall.Signal, stop func()) {
	capture, cancelCapture := context.WithCancel(ctx)
	cleanup, cancelCleanup := context.WithCancel(context.Background())
	sigs := make(chan os.Signal, 2)
	signal.Notify(sigs, syscall.SIGINT, syscall.SIGTERM)
	first := make(chan syscall.Signal, 1)
	done := make(chan struct{})
	go func() {
		for n := 0; ; n++ {
			select {
			case s := <-sigs:
				if n == 0 {
					first <- s.(syscall.Signal)
					fmt.Fprintf(stderr, "heapscope: %v: stopping the capture and cleaning up (again to stop waiting%s)\n", s, risk)
					cancelCapture()
					continue
				}
				fmt.Fprintf(stderr, "heapscope: %v: not waiting for the cleanup\n", s)
				signal.Stop(sigs)
				cancelCleanup()
				return
			case <-done:
				return
			}
		}
	}()
	var sig syscall.Signal
	caught = func() syscall.Signal {
		select {
		case s := <-first:
			sig = s
		default:
		}
		return sig
	}
	stop = func() {
		close(done)
		signal.Stop(sigs)
		cancelCapture()
		cancelCleanup()
	}
	return capture, cleanup, caught, stop
}

// signalNumbers are the signals a snapshot can be asked with, by name.
var signalNumbers = map[string]syscall.Signal{
	"SIGUSR1": syscall.SIGUSR1, "SIGUSR2": syscall.SIGUSR2, "SIGHUP": syscall.SIGHUP,
	"USR1": syscall.SIGUSR1, "USR2": syscall.SIGUSR2, "HUP": syscall.SIGHUP,
	"SIGWINCH": syscall.SIGWINCH, "WINCH": syscall.SIGWINCH,
}

// ParseSignal returns the signal a snapshot can be asked with that name
// names (SIGUSR2, usr2, ...), and its name as SignalName gives it.
func ParseSignal(name string) (syscall.Signal, string, bool) {
	s, ok := signalNumbers[strings.ToUpper(name)]
	if !ok {
		return 0, "", false
	}
	return s, SignalName(s), true
}

// SignalName returns the name of s, such as "SIGUSR2".
func SignalName(s syscall.Signal) string {
	switch s {
	case syscall.SIGINT:
		return "SIGINT"
	case syscall.SIGTERM:
		return "SIGTERM"
	}
	for name, n := range signalNumbers {
		if n == s && strings.HasPrefix(name, "SIG") {
			return name
		}
	}
	return s.String()
}

// Catches reports whether process pid has a handler for s, and whether
// that could be told (from /proc).
func Catches(pid int, s syscall.Signal) (caught, known bool) {
	status, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/status")
	if err != nil {
		return false, false
	}
	for _, l := range strings.Split(string(status), "\n") {
		if v, ok := strings.CutPrefix(l, "SigCgt:"); ok {
			mask, err := strconv.ParseUint(strings.TrimSpace(v), 16, 64)
			return err == nil && mask&(1<<(s-1)) != 0, err == nil
		}
	}
	return false, false
}
