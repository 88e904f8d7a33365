package hprof

import "github.com/heapscope/heapscope/heap"

// Top-level record tags (heapDumper.cpp enum hprofTag).
const (
	tagUTF8           = 0x01
	tagLoadClass      = 0x02
	tagUnloadClass    = 0x03
	tagFrame          = 0x04
	tagTrace          = 0x05
	tagAllocSites     = 0x06
	tagHeapSummary    = 0x07
	tagStartThread    = 0x0A
	tagEndThread      = 0x0B
	tagHeapDump       = 0x0C
	tagCPUSamples     = 0x0D
	tagControl        = 0x0E
	tagHeapDumpSeg    = 0x1C
	tagHeapDumpEnd    = 0x2C
	recordHeaderBytes = 9 // u1 tag, u4 time, u4 length
)

// Heap-dump sub-record tags.
const (
	subRootUnknown     = 0xFF
	subRootJNIGlobal   = 0x01
	subRootJNILocal    = 0x02
	subRootJavaFrame   = 0x03
	subRootNativeStack = 0x04
	subRootStickyClass = 0x05
	subRootThreadBlock = 0x06
	subRootMonitorUsed = 0x07
	subRootThreadObj   = 0x08
	subClassDump       = 0x20
	subInstanceDump    = 0x21
	subObjArrayDump    = 0x22
	subPrimArrayDump   = 0x23

	// Android (ART) extensions, hprof version 1.0.3.
	subHeapDumpInfo    = 0xFE
	subRootInterned    = 0x89
	subRootFinalizing  = 0x8A
	subRootDebugger    = 0x8B
	subRootRefCleanup  = 0x8C
	subRootVMInternal  = 0x8D
	subRootJNIMonitor  = 0x8E
	subUnreachable     = 0x90
	subPrimArrayNoData = 0xC3
)

// recordName returns the HotSpot spelling of a top-level tag.
func recordName(tag byte) string {
	switch tag {
	case tagUTF8:
		return "UTF8"
	case tagLoadClass:
		return "LOAD_CLASS"
	case tagUnloadClass:
		return "UNLOAD_CLASS"
	case tagFrame:
		return "FRAME"
	case tagTrace:
		return "TRACE"
	case tagAllocSites:
		return "ALLOC_SITES"
	case tagHeapSummary:
		return "HEAP_SUMMARY"
	case tagStartThread:
		return "START_THREAD"
	case tagEndThread:
		return "END_THREAD"
	case tagHeapDump:
		return "HEAP_DUMP"
	case tagCPUSamples:
		return "CPU_SAMPLES"
	case tagControl:
		return "CONTROL_SETTINGS"
	case tagHeapDumpSeg:
		return "HEAP_DUMP_SEGMENT"
	case tagHeapDumpEnd:
		return "HEAP_DUMP_END"
	}
	return "record"
}

// rootInfo describes a GC-root sub-record: its heap.RootKind, its name as
// the graph shows it, its record name, and the bytes that follow the
// object id (thread serials, frame numbers, a JNI reference id counted in
// identifier units).
type rootInfo struct {
	kind   heap.RootKind
	name   string
	record string
	extra  int // bytes after the object id, not counting extraIDs
	ids    int // further identifiers after the object id
}

// roots maps every root sub-tag to its description; tags not in the map
// are not roots.
var roots = map[byte]rootInfo{
	subRootUnknown:     {heap.RootOther, "unknown", "ROOT_UNKNOWN", 0, 0},
	subRootJNIGlobal:   {heap.RootGlobal, "jni global", "ROOT_JNI_GLOBAL", 0, 1},
	subRootJNILocal:    {heap.RootStack, "jni local", "ROOT_JNI_LOCAL", 8, 0},
	subRootJavaFrame:   {heap.RootStack, "java frame", "ROOT_JAVA_FRAME", 8, 0},
	subRootNativeStack: {heap.RootStack, "native stack", "ROOT_NATIVE_STACK", 4, 0},
	subRootStickyClass: {heap.RootClass, "sticky class", "ROOT_STICKY_CLASS", 0, 0},
	subRootThreadBlock: {heap.RootThread, "thread block", "ROOT_THREAD_BLOCK", 4, 0},
	subRootMonitorUsed: {heap.RootVM, "monitor used", "ROOT_MONITOR_USED", 0, 0},
	subRootThreadObj:   {heap.RootThread, "thread", "ROOT_THREAD_OBJECT", 8, 0},
	subRootInterned:    {heap.RootVM, "interned string", "ROOT_INTERNED_STRING", 0, 0},
	subRootFinalizing:  {heap.RootVM, "finalizing", "ROOT_FINALIZING", 0, 0},
	subRootDebugger:    {heap.RootNative, "debugger", "ROOT_DEBUGGER", 0, 0},
	subRootRefCleanup:  {heap.RootVM, "reference cleanup", "ROOT_REFERENCE_CLEANUP", 0, 0},
	subRootVMInternal:  {heap.RootVM, "vm internal", "ROOT_VM_INTERNAL", 0, 0},
	subRootJNIMonitor:  {heap.RootNative, "jni monitor", "ROOT_JNI_MONITOR", 8, 0},
	subUnreachable:     {heap.RootOther, "unreachable", "UNREACHABLE", 0, 0},
}

// rootTable is roots as an array, for the sub-record loop; entries with
// an empty record are not roots.
var rootTable = func() (t [256]rootInfo) {
	for tag, info := range roots {
		t[tag] = info
	}
	return t
}()

// Basic type codes of fields and primitive arrays.
const (
	typeArrayObject = 1 // legacy, treated as an object reference
	typeObject      = 2
	typeBoolean     = 4
	typeChar        = 5
	typeFloat       = 6
	typeDouble      = 7
	typeByte        = 8
	typeShort       = 9
	typeInt         = 10
	typeLong        = 11
)

// primSizes holds the byte size of each primitive basic type, 0 for codes
// that are not primitive types.
var primSizes = [16]int{
	typeBoolean: 1, typeChar: 2, typeFloat: 4, typeDouble: 8,
	typeByte: 1, typeShort: 2, typeInt: 4, typeLong: 8,
}

// primNames holds the Java name of each primitive basic type.
var primNames = [16]string{
	typeBoolean: "boolean", typeChar: "char", typeFloat: "float", typeDouble: "double",
	typeByte: "byte", typeShort: "short", typeInt: "int", typeLong: "long",
}

// isRef reports whether basic type t is a reference.
func isRef(t byte) bool { return t == typeObject || t == typeArrayObject }

// valueSize returns the size in the dump of a value of basic type t, or 0
// if t is not a valid type code.
func valueSize(t byte, idSize int) int {
	if isRef(t) {
		return idSize
	}
	if int(t) < len(primSizes) {
		return primSizes[t]
	}
	return 0
}
