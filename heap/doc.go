// Package heap is heapscope's object-graph model: one compact, read-only
// representation of a heap snapshot that every reader (Python snapshots,
// HPROF, V8 heap snapshots) builds and every analysis reads.
//
// # Shape
//
// Objects are dense [ObjectID]s in [0, NumObjects). Everything about an
// object lives in parallel arrays indexed by its ID; there is no Go pointer
// per object. Outgoing edges are stored in compressed sparse row form: the
// edges of object i are Edges[start[i]:start[i+1]]. Reverse edges
// (referrers) are built on first use, once, by counting, a prefix sum and a
// fill pass.
//
// Each [Edge] is 8 bytes: the target and a [Label] that packs the edge's
// [EdgeKind] with either an interned name or an integer index.
//
// # Memory cost
//
// Core arrays, per object: address 8 B, type 4 B, shallow size 8 B, edge
// offset 4 B: 24 bytes. Per edge: 8 bytes. Reverse edges, when an analysis
// asks for them, add 4 bytes per edge and 4 per object. Optional arrays, only
// when a reader supplies them: reference counts (4 B per object), flags
// (1 B per object), value labels (8 B per labelled object plus the
// text), names (8 B per named object, such as a class object), lengths
// (8 B per object that has one: a Java object array), and allocation sites (4 B per object, 20 B per site; see [Frame]). Interned
// strings and type names are shared.
//
// Limits: at most 2^32-2 objects and 2^32-1 edges per graph. A label
// holds indices up to 2^29-1; a larger index (a sparse JavaScript array's
// a[600000000]) is kept exactly by [Builder.IndexLabel], which interns
// its text ("[600000000]") as the edge's name, so that edges stay 8
// bytes: such an edge costs one interned string (its text, 16 bytes of
// string header and a table entry) per distinct large index, and reads
// as a named edge ([Label.IsIndex] is false) whose name
// [Graph.EdgeName] shows as an index.
//
// # Building
//
// Readers use a [Builder]; they speak the runtime's own addresses and never
// see the representation. A Graph is immutable once built; its accessors
// return views into its arrays that callers must not modify.
package heap
