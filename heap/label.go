package heap

import "strconv"

// ObjectID is the dense index of an object in a [Graph].
type ObjectID uint32

// None is the ObjectID that names no object.
const None ObjectID = ^ObjectID(0)

// TypeID is the index of a type in a [Graph]'s type table.
type TypeID uint32

// StringID is the index of an interned string in a [Graph]'s string table.
// StringID 0 is always the empty string.
type StringID uint32

// EdgeKind says how an edge holds its target.
type EdgeKind uint8

const (
	// Strong edges keep their target alive and are shown to users.
	Strong EdgeKind = iota
	// Weak edges do not keep their target alive (weak references, V8 weak
	// edges, java.lang.ref referents). Analyses ignore them unless asked.
	Weak
	// Internal edges keep their target alive but belong to the runtime
	// (a type's MRO, a V8 map or hidden edge, a class's constant pool).
	Internal
	// Shortcut edges (V8) duplicate a path that exists elsewhere; they
	// retain only when they leave a root object, as in Chrome DevTools,
	// where they retain only from the snapshot's root node.
	Shortcut
)

var kindNames = [...]string{"strong", "weak", "internal", "shortcut"}

// String returns the kind's lower-case name.
func (k EdgeKind) String() string {
	if int(k) < len(kindNames) {
		return kindNames[k]
	}
	return "kind(" + strconv.Itoa(int(k)) + ")"
}

// Label packs an edge's kind and its name into 32 bits: the kind in bits
// 30-31, an "is index" flag in bit 29, and a [StringID] or an integer index
// in bits 0-28. The zero Label is a strong edge with no name.
type Label uint32

const (
	labelIndexBit = 1 << 29
	labelValue    = labelIndexBit - 1

	// MaxIndex is the largest index a Label can carry.
	MaxIndex = labelValue
	// MaxNames is the number of distinct edge names a Label can carry.
	MaxNames = labelValue + 1
)

// NamedLabel returns the label of an edge of kind k named by string s
// (0 for no name). It panics if s does not fit in 29 bits, which a
// [Builder] prevents.
func NamedLabel(k EdgeKind, s StringID) Label {
	if s > labelValue {
		panic("heap: edge name id out of range")
	}
	return Label(uint32(k)<<30 | uint32(s))
}

// IndexLabel returns the label of an edge of kind k that is element i of
// its source (a list or array slot). Indices above [MaxIndex] are clamped;
// [Builder.IndexLabel] keeps them, as names.
func IndexLabel(k EdgeKind, i uint64) Label {
	if i > MaxIndex {
		i = MaxIndex
	}
	return Label(uint32(k)<<30 | labelIndexBit | uint32(i))
}

// Kind returns the edge kind.
func (l Label) Kind() EdgeKind { return EdgeKind(l >> 30) }

// IsIndex reports whether the label carries an integer index.
func (l Label) IsIndex() bool { return l&labelIndexBit != 0 }

// Index returns the label's index, valid when IsIndex.
func (l Label) Index() uint32 { return uint32(l) & labelValue }

// Name returns the label's name, valid when !IsIndex; 0 means unnamed.
func (l Label) Name() StringID { return StringID(uint32(l) & labelValue) }

// WithKind returns l with its kind replaced by k.
func (l Label) WithKind(k EdgeKind) Label {
	return Label(uint32(l)&^(3<<30) | uint32(k)<<30)
}

// Edge is one outgoing reference: 8 bytes.
type Edge struct {
	To    ObjectID
	Label Label
}

// RootKind says why a root is a root.
type RootKind uint8

// Root kinds. Each runtime maps its own kinds onto these; a root's Name
// carries the runtime's own description.
const (
	RootOther  RootKind = iota // anything not listed below
	RootModule                 // a loaded module (Python sys.modules)
	RootStack                  // a thread's stack: frames, locals, JNI locals
	RootThread                 // a thread object
	RootGlobal                 // interpreter or VM globals: builtins, sys, JNI globals, V8 global handles
	RootClass                  // a class the VM keeps loaded (JVM sticky classes)
	RootNative                 // held by something outside the heap (native code, a leaked reference)
	RootVM                     // VM-internal roots (V8 (GC roots) sub-roots, monitors)
)

var rootKindNames = [...]string{"other", "module", "stack", "thread", "global", "class", "native", "vm"}

// String returns the kind's lower-case name.
func (k RootKind) String() string {
	if int(k) < len(rootKindNames) {
		return rootKindNames[k]
	}
	return "root(" + strconv.Itoa(int(k)) + ")"
}

// Root is an object the runtime keeps alive without a heap reference.
type Root struct {
	Object ObjectID
	Kind   RootKind
	Name   StringID // the runtime's description, 0 if none
}

// Flags are per-object facts a reader may supply.
type Flags uint8

const (
	// FlagGCTracked marks Python objects tracked by the cyclic collector.
	FlagGCTracked Flags = 1 << iota
	// FlagImmortal marks objects whose reference count never changes
	// (PEP 683 immortal objects).
	FlagImmortal
	// FlagOpaque marks objects whose references the reader could not see
	// completely (for example a native type without traversal).
	FlagOpaque
	// FlagSynthetic marks objects the reader made up (V8 synthetic roots)
	// or that stand for a structure of the runtime's own, not an object
	// of the program's heap (the Python interpreter's state).
	FlagSynthetic
	// FlagTransient marks an object whose references hold only while the
	// snapshot is written: V8's "(Handle scope)", the local handles of the
	// native code running then and of optimizing compiler jobs in flight.
	// What it holds depends on the moment, so a shortest path goes
	// through it only to objects no other path reaches.
	FlagTransient
	// FlagInterned marks strings the runtime interned (Python identifiers
	// and attribute names), which its native code refers to from tables
	// that are not objects.
	FlagInterned
	// FlagWhole marks objects whose whole state the snapshot shows: their
	// references and, for strings and numbers, their content (a digest
	// or a value). An object without it may hold state the snapshot does
	// not show (the fields of a C type: a date, a lock, an array's data);
	// analyses that compare objects by value compare such objects by
	// identity. Only readers that know set it (the Python agent's, from
	// format 1.2; HPROF's on instances whose fields are all references).
	FlagWhole
)

// Warning is a problem found in the input that did not stop reading.
type Warning struct {
	Offset int64  // byte offset in the input, or -1 when it has none
	Msg    string // lower-case, no trailing period
}

// String formats the warning as "offset 0x1f: msg".
func (w Warning) String() string {
	if w.Offset < 0 {
		return w.Msg
	}
	return "offset " + strconv.FormatInt(w.Offset, 10) + ": " + w.Msg
}
