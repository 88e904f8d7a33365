package hprof

import (
	"fmt"
	"sort"
	"strings"

	"github.com/heapscope/heapscope/heap"
)

// A thread's stack in HPROF: ROOT_THREAD_OBJECT names the thread object,
// its thread serial and the serial of its STACK TRACE record, which lists
// STACK FRAME records, top first; a ROOT_JAVA_FRAME (a local variable or
// operand of a frame) and a ROOT_JNI_LOCAL give the thread serial and the
// frame's depth. As Eclipse MAT does, the reader makes each such root a
// reference from its thread object, named after the frame as a Java stack
// trace names it ("at app.Worker.run(Worker.java:42) <local>"), and names
// the thread object after the thread ("thread main"), so that a path
// reads "thread main -> at app.Worker.run(Worker.java:42) <local> ...".
// A root whose thread the dump does not name stays a root of its own.

// frameRec is a STACK FRAME record.
type frameRec struct {
	method, sig, source uint64 // UTF8 ids
	class               uint32 // class serial
	line                int32  // > 0 a line; 0 none; -1 unknown; -2 compiled; -3 native
}

// stacks holds the stack records of pass 1.
type stacks struct {
	frames  map[uint64]frameRec
	traces  map[uint32][]uint64 // trace serial -> frame ids, top first
	classes map[uint32]uint64   // class serial -> UTF8 id of its name
	texts   map[uint64]string   // frame id -> its text, once made
}

func (s *stacks) classAt(serial uint32, name uint64) {
	if s.classes == nil {
		s.classes = map[uint32]uint64{}
	}
	if _, dup := s.classes[serial]; !dup {
		s.classes[serial] = name
	}
}

// threadRec is a thread named by ROOT_THREAD_OBJECT.
type threadRec struct {
	obj   uint64
	trace uint32
}

// localRef is a reference from a thread's frame to an object.
type localRef struct {
	to    uint64
	label heap.Label
}

// stackRecord reads a STACK FRAME or STACK TRACE record of length bytes
// at off in pass 1; records of the wrong length are skipped with a
// warning.
func (rd *reader) stackRecord(tag byte, off, length int64) {
	c := rd.c
	I := int64(rd.idSize)
	s := &rd.stacks
	if tag == tagFrame {
		if length != 4*I+8 {
			rd.b.Warn(off, "STACK FRAME: record of %d bytes, want %d; skipped", length, 4*I+8)
			return
		}
		id := c.id()
		f := frameRec{method: c.id(), sig: c.id(), source: c.id(), class: c.u4(), line: int32(c.u4())}
		if s.frames == nil {
			s.frames = map[uint64]frameRec{}
		}
		s.frames[id] = f
		return
	}
	if length < 12 {
		rd.b.Warn(off, "STACK TRACE: record of %d bytes is too short; skipped", length)
		return
	}
	serial := c.u4()
	c.u4()
	n := int64(c.u4())
	if 12+n*I != length {
		rd.b.Warn(off, "STACK TRACE: %d frames in a record of %d bytes; skipped", n, length)
		return
	}
	ids := make([]uint64, n)
	for i := range ids {
		ids[i] = c.id()
	}
	if s.traces == nil {
		s.traces = map[uint32][]uint64{}
	}
	s.traces[serial] = ids
}

// frameText returns frame depth of trace as a Java stack trace shows it:
// "app.Worker.run(Worker.java:42)", or "" when the dump lacks it.
func (rd *reader) frameText(trace uint32, depth uint32) string {
	s := &rd.stacks
	ids := s.traces[trace]
	if int64(depth) >= int64(len(ids)) {
		return ""
	}
	id := ids[depth]
	if t, ok := s.texts[id]; ok {
		return t
	}
	f, ok := s.frames[id]
	if !ok {
		return ""
	}
	var where string
	src := rd.name(f.source)
	switch {
	case f.line == -3:
		where = "Native Method"
	case f.line == -2:
		where = "Compiled Code"
	case src == "":
		where = "Unknown Source"
	case f.line > 0:
		where = fmt.Sprintf("%s:%d", src, f.line)
	default:
		where = src
	}
	cls := javaName(rd.name(s.classes[f.class]))
	t := fmt.Sprintf("%s.%s(%s)", cls, rd.name(f.method), where)
	if s.texts == nil {
		s.texts = map[uint64]string{}
	}
	s.texts[id] = t
	return t
}

// threadRoot handles, in pass 2, a ROOT_THREAD_OBJECT (serial is the
// thread's, n its trace's), or a ROOT_JAVA_FRAME or ROOT_JNI_LOCAL
// (serial is its thread's, n the frame's depth, -1 for none).
func (rd *reader) threadRoot(tag byte, info *rootInfo, obj uint64, serial, n uint32) {
	if tag == subRootThreadObj {
		if rd.threads == nil {
			rd.threads = map[uint32]threadRec{}
		}
		rd.threads[serial] = threadRec{obj: obj, trace: n}
		if t, ok := rd.idx.lookup(obj); ok && obj != 0 {
			rd.threadIDs = append(rd.threadIDs, heap.ObjectID(t))
		}
		rd.root(info, obj)
		return
	}
	t, ok := rd.threads[serial]
	tid, known := rd.idx.lookup(t.obj)
	if !ok || t.obj == 0 || !known || obj == 0 {
		rd.root(info, obj)
		return
	}
	kind := "<local>"
	if tag == subRootJNILocal {
		kind = "<jni local>"
	}
	name := kind
	if f := rd.frameText(t.trace, n); f != "" {
		name = "at " + f + " " + kind
	}
	l := heap.NamedLabel(heap.Strong, rd.b.String(name))
	if int(tid) < rd.b.NumObjects() {
		// The thread object came first (HotSpot writes the roots after
		// the objects): an edge out of order.
		rd.edge(heap.ObjectID(tid), t.obj, obj, l)
		return
	}
	if rd.locals == nil {
		rd.locals = map[uint64][]localRef{}
	}
	rd.locals[t.obj] = append(rd.locals[t.obj], localRef{obj, l})
}

// threadLocals emits the references from the frames of thread object id
// (at addr), in pass 2.
func (rd *reader) threadLocals(id heap.ObjectID, addr uint64) {
	for _, l := range rd.locals[addr] {
		rd.edge(id, addr, l.to, l.label)
	}
	delete(rd.locals, addr)
}

// nameThreads has Build name each thread object "thread NAME", after its
// name field.
func (rd *reader) nameThreads() {
	ids := rd.threadIDs
	if len(ids) == 0 {
		return
	}
	sort.Slice(ids, func(i, j int) bool { return ids[i] < ids[j] })
	rd.b.SetNamer(func(g *heap.Graph, id heap.ObjectID) (string, bool) {
		if id < ids[0] || id > ids[len(ids)-1] {
			return "", false
		}
		i := sort.Search(len(ids), func(i int) bool { return ids[i] >= id })
		if i == len(ids) || ids[i] != id {
			return "", false
		}
		for _, e := range g.Edges(id) {
			if e.Label.Kind() == heap.Strong && !e.Label.IsIndex() && g.EdgeName(e.Label) == "name" {
				if v, ok := g.Value(e.To); ok {
					return "thread " + strings.ReplaceAll(v, "\n", " "), true
				}
			}
		}
		return "", false
	})
}
