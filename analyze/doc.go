// Package analyze holds heapscope's analyses. Each is a plain function
// over a [heap.Graph] that returns plain values in a deterministic order
// (every sort has a total order, ending with a name or an ObjectID). No
// analysis prints, reads flags or files, or knows which format a graph
// came from: renderers and commands build on the values returned here.
package analyze
