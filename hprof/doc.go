// Package hprof reads Java heap dumps in the HPROF binary format
// ("JAVA PROFILE 1.0.1", "1.0.2" and Android's "1.0.3", identifier sizes
// 4 and 8) into a [heap.Graph]. HotSpot writes them with
// `jcmd PID GC.heap_dump FILE` (optionally -gz=N), jmap -dump,
// HotSpotDiagnosticMXBean.dumpHeap and -XX:+HeapDumpOnOutOfMemoryError.
//
// # Reading
//
// [Read] makes two passes over the input. Pass 1 indexes UTF8 and
// LOAD_CLASS records, reads every CLASS_DUMP, lists the address of every
// object and notes where every 128th object's sub-record is; between the
// passes the addresses go into an index (about 5 bytes per object for a
// HotSpot dump, whose objects are in address order after the class
// mirrors) and class layouts are computed; pass 2 emits the objects,
// edges and roots in file order, and each java.lang.String's label and
// digest as it meets the string. A string's value array mostly comes
// right after the string or shortly before it, where the reader's window
// still has it; else the reader finds it from the nearest noted
// sub-record. Top-level records with unknown tags are skipped by their
// length. [Open] and [Options.Read] also read gzip-compressed dumps,
// which they first decompress into a temporary file without a name, up
// to a limit ([Options].MaxInflated; by default 64 times the compressed
// size, and at least 1 GiB).
//
// Memory: besides the graph and the builder's columns, Read needs 8
// bytes per object in pass 1, 13 while it builds the index and 5 in
// pass 2, and two windows on the input (1 MiB and 64 KiB); it allocates
// nothing per object. A HotSpot dump of 1 GB with 16M objects takes
// about 2.5 s of CPU on one core and 1.1 GB of peak RSS
// (bench/hprof/RESULTS.md).
//
// Memory and work stay in proportion to the input, whatever it holds.
// Superclass chains are resolved once per class and shared by all
// subclasses (each class keeps only its own fields), so a chain shared by
// many classes costs no more than its fields. Finding a string's value
// away from the string parses at most 128 objects, 128 other sub-records
// or 64 KiB from a checkpoint of pass 1. The digest of a value of 1 KiB
// or more is remembered by value array, and all hashing stops after 4
// times the input and 64 MiB: strings past that get a label but no
// digest, with a warning.
//
// # Graph
//
// Every INSTANCE_DUMP, OBJ_ARRAY_DUMP, PRIM_ARRAY_DUMP and CLASS_DUMP is
// one object whose address is its HPROF object id. Types have Java names:
// "java.util.HashMap", "int[]", "java.lang.String[][]", hidden classes as
// HotSpot's Klass::external_name spells them ("Foo$$Lambda$14/0x…").
// A CLASS_DUMP is an object of type java.lang.Class (the class mirror)
// named after the class it stands for, as Eclipse MAT names it ("class
// java.util.HashMap", "class int[]"; [heap.Graph.Name]);
// it has a strong edge per non-null static reference field, named after
// the field (including HotSpot's synthetic "<resolved_references>"), and
// internal edges "<super>", "<classloader>", "<signers>" and
// "<protection domain>". An instance has a strong edge per non-null
// reference field, named after the field, and an internal edge "<class>"
// to its class, the reference every object's header holds (Eclipse MAT
// has it too): an object alive keeps its class, its class loader and the
// loader's other classes with their statics alive, which is how a
// forgotten plugin or web application stays in memory. An object array
// has the same "<class>" edge and edges "[i]" to its non-null elements.
// A primitive array names no class in HPROF; it gets the "<class>" edge to
// the class object of its type ("[I") when the dump has it, and no other.
//
// The field java.lang.ref.Reference.referent is a [heap.Weak] edge in
// every subclass: WeakReference, SoftReference, PhantomReference, their
// subclasses (WeakHashMap$Entry, Cleaner references), and also
// FinalReference (java.lang.ref.Finalizer): an object that only a
// Finalizer reaches is waiting to be finalized, not retained by the
// program, and analyses should not blame the finalizer queue for it.
//
// GC-root sub-records become [heap.Root]s named as HPROF names them;
// an object may be several roots:
//
//	ROOT_UNKNOWN           RootOther   "unknown"
//	ROOT_JNI_GLOBAL        RootGlobal  "jni global"
//	ROOT_JNI_LOCAL         RootStack   "jni local"
//	ROOT_JAVA_FRAME        RootStack   "java frame"
//	ROOT_NATIVE_STACK      RootStack   "native stack"
//	ROOT_STICKY_CLASS      RootClass   "sticky class"
//	ROOT_THREAD_BLOCK      RootThread  "thread block"
//	ROOT_MONITOR_USED      RootVM      "monitor used"
//	ROOT_THREAD_OBJECT     RootThread  "thread" (id 0 is skipped)
//	Android: ROOT_INTERNED_STRING, ROOT_FINALIZING, ROOT_REFERENCE_CLEANUP,
//	ROOT_VM_INTERNAL       RootVM;  ROOT_DEBUGGER, ROOT_JNI_MONITOR
//	RootNative;  UNREACHABLE RootOther "unreachable"
//
// A ROOT_JAVA_FRAME or ROOT_JNI_LOCAL of a thread the dump names (by
// ROOT_THREAD_OBJECT) is not a root of its own: as Eclipse MAT does, it
// is a strong edge from the thread object, named after its frame as a
// Java stack trace names it, from the STACK TRACE and STACK FRAME records
// ("at app.Worker.run(Worker.java:42) <local>", "<jni local>" for JNI),
// and the thread object is named "thread " and its name ("thread main");
// so a thread retains what only its frames hold. See threads.go.
//
// A java.lang.String gets a value label, its first 64 characters, and a
// digest of its whole content (FNV-1a, 64 bits, over the coder byte and
// the value array's bytes), for JDK 9+ compact strings (byte[] value,
// coder 0 Latin-1 or 1 UTF-16 in little-endian order, the byte order of
// x86 and ARM JVMs) and older char[] strings (with JDK 6's offset and
// count). Equal strings have equal digests within one dump.
//
// # Shallow sizes
//
// HPROF carries no sizes. Read computes HotSpot's, under a layout it
// tells from the dump itself and names in the metadata (Meta.Attrs
// "layout", "object header", "reference size", "object alignment"):
//
//   - Alignment (ObjectAlignmentInBytes): the greatest common divisor of
//     the address differences (at least 8, at most 256), trusted from 64
//     objects on.
//
//   - Header, reference size and field layout rules: HotSpot writes the
//     heap in address order, so an object mostly starts where the one
//     before it in the dump ends. Pass 1 keeps up to 8,192 pairs of an
//     object and its successor's address, spread over the dump; each
//     candidate layout sizes them, and the one with the most exact fits
//     less twice the overlaps (which cannot be) wins. The candidates for
//     8-byte ids: 12-byte headers (compressed class pointers) or 16, 4-
//     or 8-byte references (compressed oops or not), 8-byte compact
//     headers (JDK 24+), each under three field layout rules (below);
//     for 4-byte ids (a 32-bit JVM): an 8-byte header and 4-byte
//     references. When the addresses tell nothing (too few exact fits,
//     or ids that are not addresses), the most common layout of the
//     dump's JDK: 12/4 and JDK 15+ rules, or the rules before JDK 15
//     when the dump is of JDK 6 to 8 (see below).
//
//   - The JDK's generation, for the fields HotSpot injects: 9+ when the
//     dump has java.lang.Module, 8 when it has java.util.HashMap$Node, 6-7
//     when it has HashMap$Entry.
//
//   - Instance, JDK 15+ (FieldLayoutBuilder): the superclass's fields
//     keep their places; the class's primitive fields, largest first,
//     then its references, each go into the smallest gap that fits them
//     at their natural alignment (gaps left by the superclass too), else
//     at the end. With -XX:-UseEmptySlotsInSupers, a class whose
//     superclasses have fields appends its own, largest first, from the
//     next reference-size boundary, and fills no gap. Before JDK 15
//     (ClassFileParser::layout_fields): each class's fields form a block
//     that starts on a reference-size boundary after its superclass's:
//     longs and doubles (the 4 bytes before the first one, when it is
//     not 8-aligned, take one int, else shorts and bytes, else one
//     reference), ints, shorts and chars, bytes and booleans, then the
//     references; up to JDK 8 the sixteen java.lang classes whose offsets
//     the VM hard-coded (String, Class, Integer...) put their references
//     first and fill no gap. Size = end of the last field, aligned.
//     Fields HotSpot injects are not in the dump; a table per JDK
//     generation adds them (JDK 17's for 9+: ClassLoader.loader_data,
//     MemberName.vmindex, Class.klass and six more; JDK 8's and 7's for
//     java.lang.Class, ClassLoader and MemberName). @Contended fields of
//     JDK classes (Thread.threadLocalRandom*,
//     ConcurrentHashMap$CounterCell, Striped64$Cell, Exchanger$Node) are
//     padded by 128 bytes before and after, from a table of JDK 17.
//
//   - Array: the elements start after the header and the u4 length,
//     at the next machine word (8-byte elements at the next 8 bytes), as
//     HotSpot before JDK 22 places them; with compact headers right
//     after the length, at their own alignment. Object array:
//     alignUp(base + n*ref, alignment); primitive array: alignUp(base +
//     n*elem, alignment).
//
//   - Class object: a java.lang.Class instance (its layout plus the
//     injected fields) followed by the class's static fields, laid out as
//     instance fields are; synthetic statics ("<resolved_references>")
//     take no room.
//
// Checked against GC.class_histogram of JDK 17 (G1) by default and with
// -XX:-UseCompressedOops, -XX:-UseCompressedClassPointers, both,
// -XX:ObjectAlignmentInBytes=16 and -XX:-UseEmptySlotsInSupers: the
// number of objects per class is equal, and so are the bytes per class
// except java.lang.Class, which differs by less than 0.1%. The rules
// before JDK 15 are checked on dumps written as JDK 6 lays objects out
// (no older JVM runs here). Known differences: classes whose injected or
// @Contended fields differ from the tables (JDK 21+ moved Thread's
// @Contended fields) are off by a few bytes per instance; with class
// data sharing on, the histogram counts the archived mirrors of classes
// not yet loaded, which HotSpot does not dump (references to them, from
// the archive's roots array, are dropped with a warning); JDK 22+ with
// 16-byte headers packs array elements after the length, which is not
// modelled.
//
// # Several dumps
//
// A file may hold several heap dumps: the old hprof agent wrote one per
// dump request into one file. Each HEAP_DUMP record is one dump, and so
// is each run of HEAP_DUMP_SEGMENT records up to HEAP_DUMP_END. Read
// reads the last, the latest state ([Options].Dump chooses another) and
// never merges them: the other dumps' objects are only counted, for the
// list in [heap.Meta].Dumps. Where an id has several UTF8 or LOAD_CLASS
// records (the collector moved a class mirror between two dumps, and its
// old address names another class), the last one before the end of the
// dump that is read names it. A file cut short after the dump that is
// read reads with a warning.
//
// # Damage
//
// A file that does not start with a supported header is a *[FormatError].
// So is a dump cut short, whose error wraps io.ErrUnexpectedEOF; then Read
// also returns the graph of what came before the cut. A dump in segments
// (HEAP_DUMP_SEGMENT) that does not end with HEAP_DUMP_END is cut short
// too: it was cut right after a record. A dump without any object is an
// error that wraps [heap.ErrNoObjects], and Read returns no graph. Damage inside a
// heap-dump record (an unknown sub-record tag, a sub-record that overruns
// its record, a count larger than the bytes left) ends that record with a
// warning ([heap.Graph.Warnings]), and reading goes on with the next
// record. References and roots to ids that are not in the dump are
// dropped with one summary warning, as are instances whose field data do
// not match their class; summary warnings come first and are kept
// however many warnings about single records there are
// ([heap.Builder.WarnSummary]). Every count and length is checked against the
// bytes left before anything is allocated; no input makes Read panic.
package hprof
