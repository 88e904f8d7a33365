// Package heapsnapshot reads V8 heap snapshots (.heapsnapshot files
// written by Node's v8.writeHeapSnapshot, Chrome DevTools, the inspector
// protocol, or Bun) into a [heap.Graph].
//
// # Reading
//
// [Read] and [Open] take the JSON text plain or gzip-compressed (as
// `gzip app.heapsnapshot` writes it), decompressing as they go, up to
// [Options].MaxInflated bytes. [Read] streams: the JSON text is scanned
// once by a hand-written tokenizer, on its own goroutine ahead of the record handling, and never
// held whole, so files beyond 2 GB read fine. Each node and edge goes
// into the graph's builder as it is read (nodes typed, and edges given
// their final labels in place, once the strings are known); the reader
// keeps 13 more bytes per node until the strings table, which V8 writes
// last, has been read; only
// the strings the graph needs are decoded: class names and edge names
// whole, string values as a 64-character prefix and a digest. The
// reader's arrays are garbage once Read returns: a caller about to
// compute more (the heapscope command) may collect them first.
// The field layout comes from snapshot.meta (fields may be missing, such
// as detachedness in older snapshots, reordered, or extra); node_count
// and edge_count are checked against what is read and only trusted for
// preallocation as far as the input's size allows.
//
// # Mapping
//
// Node ordinal k (the node at nodes[k*F]) becomes ObjectID k; its Addr is
// the V8 node id, stable across snapshots of one isolate (DevTools'
// comparison view matches on it too). The shallow size is self_size as
// written.
//
// Type names follow DevTools' calculateObjectNames: object and native
// nodes are named by their node name ("LeakItem", "Map", "system /
// Context", "Node / ContextifyContext"; "<div id=x>" is shortened to
// "<div>"); hidden is "(system)", code "(compiled code)", regexp
// "RegExp", and every other type "(" + type + ")": "(string)",
// "(concatenated string)", "(sliced string)", "(array)", "(number)",
// "(symbol)", "(bigint)", "(object shape)". Two kinds are named the way
// DevTools and memlab show them rather than by their group: a closure
// by its function, "onRequest (closure)" ("(anonymous) (closure)" when
// it has no name), and a synthetic node by its own name, "(GC roots)",
// "(Handle scope)", "C++ roots", the nameless root "(root)".
//
// DOM state: when the snapshot has the detachedness node field (Chrome,
// and Node for a few of its own objects), the state is propagated as
// DevTools' propagateDOMState does: a native node keeps the state the
// snapshot gives it; native nodes that an attached node reaches (over
// every edge but hidden, invisible and weak ones) are attached, and the
// ones only detached nodes reach are detached. The state does not pass
// through JavaScript objects. Detached native nodes are named
// "Detached " + their name: "Detached <div>", "Detached Text".
//
// Edges: element edges are strong and hidden edges internal, both
// labelled by index (an index beyond a label's index field, such as a
// sparse array's a[600000000], is kept by [heap.Builder.IndexLabel]); property and context edges are
// strong, internal edges internal, weak edges [heap.Weak] and shortcut
// edges [heap.Shortcut], all named. Edge types this reader does not know
// are read as strong, named, with a warning.
//
// The root node (node 0, or snapshot.root_index) is the graph's only root,
// of kind [heap.RootVM] named "(root)". V8's (GC roots) and its sub-roots
// are ordinary objects under it, reached by element edges, and the user
// global objects hang off the root by shortcut edges, which retain from
// the root only. Synthetic nodes get [heap.FlagSynthetic]. Two sub-roots
// also get [heap.FlagTransient], as what they hold depends on the moment
// V8 writes the snapshot: "(Handle scope)", the local handles of the
// native code running then, and the second "(Strong roots)" (V8 names
// two sub-roots so: the heap's strong root list, then the roots
// registered for the time of one task, identity maps and serializers).
// An optimizing compiler job in flight on another thread holds the
// objects it compiles against in both, one step below the sub-root and
// so nearer than the program's own path to them; a snapshot written
// under load often has one in flight.
//
// Value labels (unless [Options].SkipValues): string, concatenated and
// sliced string nodes get the first 64 characters of their text, regexps
// their source. (Closures and synthetic nodes carry their names in their
// types.)
// String nodes also get a digest, FNV-1a of the string's text as the
// snapshot writes it (JSON-escaped): equal strings give equal digests.
// V8 cuts strings to 1024 characters in snapshots; for a cut string the
// digest also mixes in the node's self_size, so that two long strings that
// only share their first 1024 characters are not reported as duplicates
// (two equal long strings of different representations then differ).
//
// # Where heapscope differs from DevTools
//
// DevTools decides per edge whether it is "essential" for dominators
// (computeIsEssentialEdge). The model has no such bit, so the reader
// demotes the non-essential edges to [heap.Weak], unless
// [Options].AllEdges is set:
//
//   - the internal edge from a WeakMap's table to a value (named "n /
//     part of key (... @k) -> value (... @v) pair in WeakMap (table @t)",
//     leaving node t); the same-named edge from the key still retains;
//   - edges from objects outside the page to objects in it, except from
//     the root: page objects are those reachable, over non-weak edges,
//     from the targets of the root's shortcut edges and from "(Document
//     DOM trees)" (DevTools' markPageOwnedNodes). This keeps handles, the
//     compilation cache or the debugger from taking dominance of user
//     objects.
//
// Weak, shortcut-from-non-root and self edges need nothing: the model
// already does not retain through them. A demoted edge still shows in
// the graph, as weak. V8 writes only live objects, so the graph's
// [heap.Meta].Live is set: an object that only demoted or weak edges
// reach is alive, and the analyses hang it under the root as DevTools
// does instead of calling it unreachable. Other differences, deliberate:
//
//   - Shallow sizes are V8's self_size. DevTools' JS snapshot view moves
//     the size of hidden and array nodes owned by a single object onto
//     that object (calculateShallowSizes); heapscope does not, so sums of
//     shallow sizes equal the file's, and "(array)" and "(system)" show
//     what they cost. Retained sizes are unaffected.
//   - Plain "Object" nodes keep the class "Object"; DevTools renames them
//     after their properties ("{a, b, c}") by interface inference.
//   - No distances and no allocation samples or locations: those
//     sections are skipped.
//
// # Allocation sites
//
// A snapshot of a program that V8 tracks allocations in (node
// --track-heap-objects, which heapscope run --trace-alloc sets, or the
// inspector's HeapProfiler.startTrackingHeapObjects with
// trackAllocations) gives each node a trace_node_id into trace_tree,
// the tree of JavaScript stacks that allocated. The reader makes that
// tree the graph's site table ([heap.Frame]: function name, script,
// and the line and column where the function starts; V8 records
// functions, not lines) and gives each object its site (trace.go).
//
// # Errors
//
// Malformed input gives a [*FormatError] with the byte offset and the
// top-level section ("heapsnapshot: edges at offset 12345: to_node 77 is
// not a multiple of 7"); truncated input wraps [io.ErrUnexpectedEOF], and
// a snapshot without nodes [heap.ErrNoObjects]. Memory follows what the
// input holds, never what it declares: node_count and edge_count only
// size allocations as far as the input's size allows, and a string index
// must be below twice the nodes and edges read (V8 numbers strings in
// the order it first writes them) before the reader makes room for it.
// Errors from the underlying reader are returned wrapped, with the offset.
// No input makes Read panic (FuzzRead).
//
// The top-level keys must come in V8's order as far as the reader needs
// it: "snapshot" before "nodes" before "edges" before "strings"; other
// keys may appear anywhere and are skipped.
package heapsnapshot
