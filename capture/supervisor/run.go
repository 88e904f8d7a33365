package supervisor

import (
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"regexp"
	"strconv"
	"syscall"
	"time"

	"github.com/heapscope/heapscope/agent"
	"github.com/heapscope/heapscope/capture"
	"github.com/heapscope/heapscope/capture/jvm"
)

// Options says what program Run starts and when it takes snapshots.
type Options struct {
	Args   []string       // the program and its arguments
	Dir    string         // the snapshot directory, absolute; it exists
	AtExit bool           // a snapshot when the program exits
	Signal syscall.Signal // a snapshot on this signal; 0 for none
	Every  time.Duration  // a snapshot this often; 0 for none
	Values bool           // string contents in the snapshots
	// Agent says how a Python or Node program takes its snapshots (its
	// OutDir, AtExit, Signal, Every and NoValues as above).
	Agent agent.RunOptions
	// JavaCensus, when set, makes a JVM's interval and signal snapshots
	// class histograms handed to it instead of dumps (see jvm.Run).
	JavaCensus func(rows []jvm.ClassCount, taken time.Time, err error)

	// Stdin, Stdout and Stderr are the program's; heapscope writes its
	// messages to Stderr too, one write at a time (see Serialize).
	Stdin          io.Reader
	Stdout, Stderr io.Writer
}

// Run starts the program o.Args with heapscope's agent loaded (Python,
// Node) or with jcmd ready to dump it (a JVM, see package jvm), passes
// on the signals heapscope receives (see child), waits for the program
// to end, and returns the number of snapshots it wrote into o.Dir and
// the program's end: nil, or the *exec.ExitError of its status.
func Run(o Options) (snapshots int, err error) {
	java := jvm.IsLauncher(o.Args[0])
	args := o.Args
	env := os.Environ()
	var jv *jvm.Run
	if java {
		if jv, err = jvm.NewRun(o.Dir, o.AtExit); err != nil {
			return 0, err
		}
		defer jv.Cleanup()
		args = jv.Command(args)
	} else if env, err = agentEnv(o.Agent); err != nil {
		return 0, err
	}

	cmd := exec.Command(args[0], args[1:]...)
	cmd.Env = env
	o.Stdout, o.Stderr = Serialize(o.Stdout, o.Stderr)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = o.Stdin, o.Stdout, o.Stderr
	// What a killed heapscope or program left in the directory goes; the
	// snapshots there now are not this run's.
	capture.Sweep(o.Dir, true)
	before := dirNames(o.Dir)
	// Catch the signals before the program starts, so that none is lost.
	sigs := make(chan os.Signal, 4)
	caught := []os.Signal{syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP}
	if o.Signal != 0 {
		caught = append(caught, o.Signal)
	}
	signal.Notify(sigs, caught...)
	defer signal.Stop(sigs)
	if err := cmd.Start(); err != nil {
		return 0, err
	}
	pid := cmd.Process.Pid
	name := capture.SignalName(o.Signal)
	switch {
	case o.Signal != 0 && java:
		fmt.Fprintf(o.Stderr, "heapscope: child PID %d (send %s to heapscope %d for a snapshot)\n", pid, name, os.Getpid())
	case o.Signal != 0:
		fmt.Fprintf(o.Stderr, "heapscope: child PID %d (send %s to %d or to heapscope %d for a snapshot)\n", pid, name, pid, os.Getpid())
	default:
		fmt.Fprintf(o.Stderr, "heapscope: child PID %d\n", pid)
	}
	if java {
		jv.Census = o.JavaCensus
		jv.Start(pid, o.Every, o.Stderr)
	}
	c := &child{cmd: cmd, pid: pid, snapSig: o.Signal, java: jv, atExit: o.AtExit, values: o.Values, dir: o.Dir, stderr: o.Stderr}
	if !java {
		c.progress = newProgress(o.Dir, o.Stderr)
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		for s := range sigs {
			c.signal(s.(syscall.Signal))
		}
	}()
	err = cmd.Wait()
	signal.Stop(sigs)
	close(sigs)
	<-done
	c.progress.stop()
	if java {
		jv.Finish(err, o.Stderr)
	}
	return ownSnapshots(o.Dir, before, pid, o.Agent.Children), err
}

// agentEnv returns the environment that makes a Python or Node program
// take snapshots as o says.
func agentEnv(o agent.RunOptions) ([]string, error) {
	var err error
	if o.PackageDir, err = agent.Dir(); err != nil {
		return nil, err
	}
	if o.SiteDir, err = agent.RunDir(); err != nil {
		return nil, err
	}
	preload, err := agent.NodePreload()
	if err != nil {
		return nil, err
	}
	return agent.NodeEnv(agent.Env(os.Environ(), o), preload, o.TraceAlloc > 0), nil
}

// snapshotName is how the agents, the preload and heapscope (for a JVM)
// name the snapshots of a run: NNNN-PID-REASON.EXT.
var snapshotName = regexp.MustCompile(`^[0-9]{4,}-([0-9]+)-[a-z-]+\.(pysnap|heapsnapshot|hprof)$`)

// dirNames returns the names in dir.
func dirNames(dir string) map[string]bool {
	entries, _ := os.ReadDir(dir)
	m := make(map[string]bool, len(entries))
	for _, e := range entries {
		m[e.Name()] = true
	}
	return m
}

// ownSnapshots counts the snapshots this run's program wrote in dir:
// named as snapshots are, not there before it started, and of the
// program's pid (with children, of any pid: its children name theirs
// by their own). Another run's, into the same directory, are not
// counted.
func ownSnapshots(dir string, before map[string]bool, pid int, children bool) int {
	n := 0
	for name := range dirNames(dir) {
		m := snapshotName.FindStringSubmatch(name)
		if m == nil || before[name] {
			continue
		}
		if p, err := strconv.Atoi(m[1]); err == nil && (p == pid || children) {
			n++
		}
	}
	return n
}
