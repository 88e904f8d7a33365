package jvm

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
)

// ClassCount is one row of a JVM's class histogram: the live instances
// of a class and their bytes.
type ClassCount struct {
	Name         string // as HPROF dumps name it in heapscope: byte[], java.lang.String
	Count, Bytes uint64
}

// maxHistogramRows bounds what Histogram reads: more classes than any
// JVM loads.
const maxHistogramRows = 1 << 22

// Histogram has jcmd print the class histogram of JVM pid
// (GC.class_histogram: a full collection, then the live objects per
// class, without writing a dump) and returns its rows, in its order.
// It is a census, far cheaper than a dump.
func Histogram(ctx context.Context, pid int) ([]ClassCount, error) {
	if err := Check(pid); err != nil {
		return nil, err
	}
	var out, msg bytes.Buffer
	cmd := exec.CommandContext(ctx, "jcmd", strconv.Itoa(pid), "GC.class_histogram")
	cmd.Stdout, cmd.Stderr = &out, &msg
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Run(); err != nil {
		return nil, fmt.Errorf("jcmd %d GC.class_histogram: %w: %s", pid, err, strings.TrimSpace(msg.String()+out.String()))
	}
	rows, err := parseHistogram(&out)
	if err != nil {
		return nil, fmt.Errorf("jcmd %d GC.class_histogram: %w", pid, err)
	}
	return rows, nil
}

// parseHistogram reads jcmd's class histogram:
//
//	 num     #instances         #bytes  class name (module)
//	-------------------------------------------------------
//	   1:          7197         332448  [B (java.base@17.0.15)
//	...
//	Total         29627        1351928
//
// Lines of any other shape (the pid line jcmd prints first, the header)
// are skipped; a row whose numbers do not parse is an error that names
// its line.
func parseHistogram(r io.Reader) ([]ClassCount, error) {
	var rows []ClassCount
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	line := 0
	for sc.Scan() {
		line++
		f := strings.Fields(sc.Text())
		if len(f) < 4 || !strings.HasSuffix(f[0], ":") {
			continue
		}
		if _, err := strconv.ParseUint(strings.TrimSuffix(f[0], ":"), 10, 64); err != nil {
			continue
		}
		n, err1 := strconv.ParseUint(f[1], 10, 64)
		b, err2 := strconv.ParseUint(f[2], 10, 64)
		if err1 != nil || err2 != nil {
			return nil, fmt.Errorf("line %d of the histogram: %q is not num: instances bytes class", line, sc.Text())
		}
		if len(rows) == maxHistogramRows {
			return nil, fmt.Errorf("more than %d classes in the histogram", maxHistogramRows)
		}
		name := f[3]
		if len(f) > 4 && !strings.HasPrefix(f[4], "(") {
			name = strings.Join(f[3:], " ") // a class name with a space: keep it whole
			if i := strings.LastIndex(name, " ("); i > 0 && strings.HasSuffix(name, ")") {
				name = name[:i]
			}
		}
		rows = append(rows, ClassCount{Name: javaTypeName(name), Count: n, Bytes: b})
	}
	return rows, sc.Err()
}

// javaTypeName names a class as the histogram writes it (a JVM
// descriptor for arrays: [B, [[I, [Ljava.lang.Object;) as heapscope's
// HPROF reader names it (byte[], int[][], java.lang.Object[]).
func javaTypeName(s string) string {
	dims := 0
	for dims < len(s) && s[dims] == '[' {
		dims++
	}
	if dims == 0 {
		return s
	}
	elem := s[dims:]
	prims := map[string]string{"B": "byte", "C": "char", "D": "double", "F": "float", "I": "int", "J": "long", "S": "short", "Z": "boolean"}
	switch {
	case prims[elem] != "":
		elem = prims[elem]
	case strings.HasPrefix(elem, "L") && strings.HasSuffix(elem, ";") && len(elem) > 2:
		elem = elem[1 : len(elem)-1]
	default:
		return s
	}
	return elem + strings.Repeat("[]", dims)
}
