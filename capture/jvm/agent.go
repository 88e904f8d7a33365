package jvm

import (
	"archive/zip"
	"bytes"
	"encoding/binary"
)

// heapscope run -- java --at-exit starts the JVM with a Java agent
// (-javaagent:JAR=PATH) whose premain adds a shutdown hook that dumps the
// heap to PATH, as jcmd GC.heap_dump would (live objects only), when the
// JVM exits: at the end of main, on System.exit, or on SIGINT, SIGTERM
// or SIGHUP. heapscope then checks the dump and renames it into place.
// The agent's one class is assembled here, so that no Java compiler is
// needed; it is the class this source would give:
//
//	package heapscope;
//	public class ExitDump extends Thread {
//	    private static String p;
//	    public ExitDump() { super(); }
//	    public static void premain(String path) {
//	        p = path;
//	        Runtime.getRuntime().addShutdownHook(new ExitDump());
//	    }
//	    public void run() {
//	        try {
//	            ((com.sun.management.HotSpotDiagnosticMXBean) java.lang.management.ManagementFactory
//	                .getPlatformMXBean(com.sun.management.HotSpotDiagnosticMXBean.class)).dumpHeap(p, true);
//	        } catch (Throwable t) {
//	        }
//	    }
//	}
//
// The class file is version 49 (Java 5), which needs no stack map frames
// and which every JVM since loads; the JVM checks it with its verifier
// like any other class.

// exitDumpClass is the agent class's name, in the internal form.
const exitDumpClass = "heapscope/ExitDump"

// classFile assembles a class file: its constant pool, then the parts
// that refer to it.
type classFile struct {
	pool  bytes.Buffer
	count uint16 // constant pool entries + 1
	index map[string]uint16
}

func (c *classFile) entry(key string, b []byte) uint16 {
	if i, ok := c.index[key]; ok {
		return i
	}
	if c.index == nil {
		c.index = map[string]uint16{}
		c.count = 1
	}
	i := c.count
	c.count++
	c.pool.Write(b)
	c.index[key] = i
	return i
}

func u2(v uint16) []byte { return binary.BigEndian.AppendUint16(nil, v) }

func (c *classFile) utf8(s string) uint16 {
	return c.entry("u"+s, append(append([]byte{1}, u2(uint16(len(s)))...), s...))
}

func (c *classFile) class(name string) uint16 {
	return c.entry("c"+name, append([]byte{7}, u2(c.utf8(name))...))
}

// ref is a field (tag 9), method (10) or interface method (11) reference.
func (c *classFile) ref(tag byte, class, name, desc string) uint16 {
	nt := c.entry("n"+name+" "+desc, append(append([]byte{12}, u2(c.utf8(name))...), u2(c.utf8(desc))...))
	return c.entry(string('0'+tag)+class+"."+name+" "+desc, append(append([]byte{tag}, u2(c.class(class))...), u2(nt)...))
}

// method is one method's access flags, name, descriptor and Code.
type method struct {
	access        uint16
	name, desc    string
	stack, locals uint16
	code          []byte
	handler       []uint16 // start, end, handler pc, catch type; nil for none
}

// op appends an instruction with a 2-byte constant pool operand.
func op(code []byte, opcode byte, index uint16, extra ...byte) []byte {
	return append(append(append(code, opcode), u2(index)...), extra...)
}

// exitDumpClassFile returns the bytes of the class heapscope.ExitDump.
func exitDumpClassFile() []byte {
	var c classFile
	const (
		thread  = "java/lang/Thread"
		mxbean  = "com/sun/management/HotSpotDiagnosticMXBean"
		aload0  = 0x2a
		astore1 = 0x4c
		iconst1 = 0x04
		dup     = 0x59
		ret     = 0xb1
	)
	this := c.class(exitDumpClass)
	super := c.class(thread)
	field := c.ref(9, exitDumpClass, "p", "Ljava/lang/String;")
	var init, premain, run []byte
	init = append(init, aload0)
	init = op(init, 0xb7, c.ref(10, thread, "<init>", "()V")) // invokespecial
	init = append(init, ret)
	premain = append(premain, aload0)
	premain = op(premain, 0xb3, field)                                                                 // putstatic
	premain = op(premain, 0xb8, c.ref(10, "java/lang/Runtime", "getRuntime", "()Ljava/lang/Runtime;")) // invokestatic
	premain = op(premain, 0xbb, this)                                                                  // new
	premain = append(premain, dup)
	premain = op(premain, 0xb7, c.ref(10, exitDumpClass, "<init>", "()V"))
	premain = op(premain, 0xb6, c.ref(10, "java/lang/Runtime", "addShutdownHook", "(Ljava/lang/Thread;)V")) // invokevirtual
	premain = append(premain, ret)
	run = op(run, 0x13, c.class(mxbean)) // ldc_w
	run = op(run, 0xb8, c.ref(10, "java/lang/management/ManagementFactory", "getPlatformMXBean",
		"(Ljava/lang/Class;)Ljava/lang/management/PlatformManagedObject;"))
	run = op(run, 0xc0, c.class(mxbean)) // checkcast
	run = op(run, 0xb2, field)           // getstatic
	run = append(run, iconst1)
	run = op(run, 0xb9, c.ref(11, mxbean, "dumpHeap", "(Ljava/lang/String;Z)V"), 3, 0) // invokeinterface
	run = append(run, ret)
	end := uint16(len(run))
	run = append(run, astore1, ret) // catch (Throwable t) {}
	methods := []method{
		{access: 0x0001, name: "<init>", desc: "()V", stack: 1, locals: 1, code: init},
		{access: 0x0009, name: "premain", desc: "(Ljava/lang/String;)V", stack: 3, locals: 1, code: premain},
		{access: 0x0001, name: "run", desc: "()V", stack: 3, locals: 2, code: run,
			handler: []uint16{0, end, end, c.class("java/lang/Throwable")}},
	}
	// The names the methods, the field and the Code attributes use.
	codeName := c.utf8("Code")
	for i := range methods {
		c.utf8(methods[i].name)
		c.utf8(methods[i].desc)
	}

	var b bytes.Buffer
	b.Write([]byte{0xca, 0xfe, 0xba, 0xbe, 0, 0, 0, 49})
	b.Write(u2(c.count))
	b.Write(c.pool.Bytes())
	b.Write(u2(0x0021)) // public, super
	b.Write(u2(this))
	b.Write(u2(super))
	b.Write(u2(0))                                                                               // interfaces
	b.Write(u2(1))                                                                               // fields
	b.Write(append(append(u2(0x000a), u2(c.utf8("p"))...), u2(c.utf8("Ljava/lang/String;"))...)) // private static
	b.Write(u2(0))                                                                               // field attributes
	b.Write(u2(uint16(len(methods))))
	for _, m := range methods {
		b.Write(u2(m.access))
		b.Write(u2(c.utf8(m.name)))
		b.Write(u2(c.utf8(m.desc)))
		b.Write(u2(1)) // one attribute: Code
		b.Write(u2(codeName))
		handlers := len(m.handler) / 4
		b.Write(binary.BigEndian.AppendUint32(nil, uint32(2+2+4+len(m.code)+2+8*handlers+2)))
		b.Write(u2(m.stack))
		b.Write(u2(m.locals))
		b.Write(binary.BigEndian.AppendUint32(nil, uint32(len(m.code))))
		b.Write(m.code)
		b.Write(u2(uint16(handlers)))
		for _, v := range m.handler {
			b.Write(u2(v))
		}
		b.Write(u2(0)) // Code's attributes
	}
	b.Write(u2(0)) // class attributes
	return b.Bytes()
}

// exitDumpJar returns a jar with the agent class and a manifest that
// names it the agent's Premain-Class.
func exitDumpJar() ([]byte, error) {
	var buf bytes.Buffer
	z := zip.NewWriter(&buf)
	for _, f := range []struct {
		name string
		data []byte
	}{
		{"META-INF/MANIFEST.MF", []byte("Manifest-Version: 1.0\r\nPremain-Class: heapscope.ExitDump\r\n\r\n")},
		{exitDumpClass + ".class", exitDumpClassFile()},
	} {
		w, err := z.Create(f.name)
		if err != nil {
			return nil, err
		}
		if _, err := w.Write(f.data); err != nil {
			return nil, err
		}
	}
	if err := z.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}
