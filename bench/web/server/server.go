// Package server starts heapscope web for the web benchmarks (bench/web
// and bench/web/load) and reads the address it prints.
package server

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"regexp"
)

// Server is a running heapscope web.
type Server struct {
	Cmd   *exec.Cmd
	Base  string // http://127.0.0.1:PORT/
	Token string
}

var address = regexp.MustCompile(`(http://127\.0\.0\.1:\d+/)\?token=([0-9a-f]+)`)

// Start runs bin web with args (the snapshots), its standard error on
// ours, and returns once it has printed its loopback address and token.
func Start(bin string, args ...string) (*Server, error) {
	cmd := exec.Command(bin, append([]string{"web"}, args...)...)
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil {
		cmd.Process.Kill()
		cmd.Wait()
		return nil, fmt.Errorf("%s web printed no address: %w", bin, err)
	}
	m := address.FindStringSubmatch(line)
	if m == nil {
		cmd.Process.Kill()
		cmd.Wait()
		return nil, fmt.Errorf("%s web printed %q: no loopback address with a token", bin, line)
	}
	return &Server{Cmd: cmd, Base: m[1], Token: m[2]}, nil
}

// Stop stops the server as Ctrl-C does and waits for it.
func (s *Server) Stop() error {
	s.Cmd.Process.Signal(os.Interrupt)
	return s.Cmd.Wait()
}
