package attach

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"time"
)

// injectorArg is the first argument of a process started to make the
// calls into a Python process (see Injector).
const injectorArg = "__heapscope-inject-python"

// injectors says whether this program runs injectors (it called
// Injector first thing): only then does Snapshot start one, else gdb
// makes the calls.
var injectors bool

// Injector is for the main function of a program that uses [Snapshot]:
// called first thing, it runs heapscope's calls into a Python process
// when this process was started for that, and returns (exit status,
// true); otherwise it returns false, and Snapshot may start such a
// process. A program that does not call it has gdb make the calls.
//
// The calls are made from a process of their own, in a process group of
// its own, which nothing but its end stops: were the process that made
// them killed in the middle of one (Ctrl-C, kill -9 of heapscope, of its
// process group), the Python process would go on from where the call had
// moved its registers, and crash. The injector takes milliseconds.
func Injector() (int, bool) {
	if len(os.Args) < 2 || os.Args[1] != injectorArg {
		injectors = true
		return 0, false
	}
	return runInjector(os.Args[2:], os.Stdout), true
}

// injection is what an injector reports on its standard output.
type injection struct {
	Stopped   time.Duration `json:"stopped"`
	Error     string        `json:"error,omitempty"`
	Untouched bool          `json:"untouched,omitempty"`
	Denied    bool          `json:"denied,omitempty"`
}

// runInjector makes the calls: args are the pid, the ELF file with the
// Python API and the executable (as Inspect found them), the stage's
// private directory (its boot.py) and the patience.
func runInjector(args []string, stdout io.Writer) int {
	var res injection
	if len(args) != 5 {
		res.Error, res.Untouched = "the injector takes PID LIB EXE DIR PATIENCE", true
	} else {
		pid, err1 := strconv.Atoi(args[0])
		patience, err2 := time.ParseDuration(args[4])
		boot, err3 := os.ReadFile(filepath.Join(args[3], "boot.py"))
		if err := errors.Join(err1, err2, err3); err != nil {
			res.Error, res.Untouched = err.Error(), true
		} else {
			p := &Process{PID: pid, Lib: args[1], Exe: args[2]}
			var err error
			res.Stopped, err = injectHere(p, boot, patience)
			if err != nil {
				var u *untouched
				var d *PermissionError
				res.Error, res.Untouched, res.Denied = err.Error(), errors.As(err, &u), errors.As(err, &d)
			}
		}
	}
	b, _ := json.Marshal(res)
	stdout.Write(append(b, '\n'))
	if res.Error != "" {
		return 1
	}
	return 0
}

// injectPtrace has an injector (a copy of this program, see Injector)
// make the calls that queue dir/boot.py for p's main thread, and returns
// how long the main thread was stopped. Its error is an *untouched when
// the process was left as it was, a *PermissionError when the kernel
// would not let heapscope trace it.
func injectPtrace(p *Process, dir string, patience time.Duration) (time.Duration, error) {
	if !injectors {
		return 0, &untouched{errors.New("this program does not run heapscope's injector")}
	}
	self, err := os.Executable()
	if err != nil {
		return 0, &untouched{err}
	}
	var out, errOut bytes.Buffer
	cmd := exec.Command(self, injectorArg, strconv.Itoa(p.PID), p.Lib, p.Exe, dir, patience.String())
	cmd.Stdout, cmd.Stderr = &out, &errOut
	ownGroup(cmd)
	runErr := cmd.Run()
	var res injection
	if err := json.Unmarshal(out.Bytes(), &res); err != nil {
		return 0, fmt.Errorf("heapscope's injector (%v) said nothing heapscope understands: %q %q", runErr, out.String(), errOut.String())
	}
	switch {
	case res.Error == "":
		return res.Stopped, nil
	case res.Denied:
		return res.Stopped, &PermissionError{PID: p.PID, Msg: res.Error}
	case res.Untouched:
		return res.Stopped, &untouched{errors.New(res.Error)}
	}
	return res.Stopped, errors.New(res.Error)
}

// untouched wraps the error of an injection that left the process as it
// was: gdb may try after it.
type untouched struct{ err error }

func (e *untouched) Error() string { return e.err.Error() }
func (e *untouched) Unwrap() error { return e.err }
