package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"runtime/pprof"
	"time"

	"github.com/heapscope/heapscope/internal/report"
	"github.com/heapscope/heapscope/internal/spill"
)

// profiling is what [stopProfiles] finishes: the CPU profile's file and
// the memory profile's path; and, with --timings, where phase times go
// and when the command started.
var profiling struct {
	cpu     *os.File
	mem     string
	timings io.Writer
	start   time.Time
	cpu0    time.Duration
}

// registerProfileFlags adds --cpuprofile, --memprofile and --timings,
// for measuring heapscope itself (go tool pprof reads the profiles):
// every command that reads snapshots takes them. The CPU profile starts
// when the flag is parsed; both profiles are written when the command
// returns ([stopProfiles]). --timings writes each phase's wall and CPU
// time to stderr as it ends (see [timed]).
func registerProfileFlags(fs *flag.FlagSet, stderr io.Writer) {
	fs.BoolFunc("timings", "write each phase's wall and CPU time, and the peak memory, to stderr", func(string) error {
		profiling.timings = stderr
		profiling.start = time.Now()
		profiling.cpu0, _ = usage()
		return nil
	})
	fs.Func("cpuprofile", "write a CPU profile of this run to `FILE` (for go tool pprof)", startCPUProfile)
	fs.Func("memprofile", "write a memory profile (allocations, and what is in use after the command) to `FILE` (for go tool pprof)", func(path string) error {
		if path == "" {
			return errors.New("want a file name")
		}
		profiling.mem = path
		return nil
	})
}

func startCPUProfile(path string) error {
	if profiling.cpu != nil {
		return errors.New("given twice")
	}
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		f.Close()
		return err
	}
	profiling.cpu = f
	return nil
}

// timed runs fn as the phase name; with --timings, it writes the time
// the phase took to stderr.
func timed(name string, fn func()) {
	if profiling.timings == nil {
		fn()
		return
	}
	t0 := time.Now()
	c0, _ := usage()
	fn()
	c1, rss := usage()
	writeTiming(name, time.Since(t0), c1-c0, rss)
}

func writeTiming(name string, wall, cpu time.Duration, rss int64) {
	fmt.Fprintf(profiling.timings, "timings: %-28s %7.2f s wall %7.2f s CPU  peak RSS %6d MiB\n",
		name, wall.Seconds(), cpu.Seconds(), rss>>20)
}

// stopProfiles writes the profiles the command's flags asked for, and
// with --timings the whole command's time.
func stopProfiles() error {
	var errs []error
	if profiling.timings != nil {
		cpu, rss := usage()
		writeTiming("whole command", time.Since(profiling.start), cpu-profiling.cpu0, rss)
		if n := spill.Spilled(); n > 0 {
			fmt.Fprintf(profiling.timings, "timings: past --max-memory (%s), %s of arrays went to files; their pages were dropped %d times\n",
				report.Bytes(uint64(spill.Limit())), report.Bytes(uint64(n)), spill.Trims())
		}
		profiling.timings = nil
	}
	if f := profiling.cpu; f != nil {
		pprof.StopCPUProfile()
		errs = append(errs, f.Close())
		profiling.cpu = nil
	}
	if path := profiling.mem; path != "" {
		profiling.mem = ""
		f, err := os.Create(path)
		if err == nil {
			err = pprof.Lookup("allocs").WriteTo(f, 0)
			errs = append(errs, f.Close())
		}
		errs = append(errs, err)
	}
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("writing a profile: %w", err)
	}
	return nil
}
