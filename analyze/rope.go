package analyze

// RopeEdge is the collapsed edge name of a run of steps down a rope.
const RopeEdge = "first/second"

// RopeStep reports whether a path step to an object of type typ through
// an edge named edge goes down a rope: a V8 concatenated string
// (ConsString) holds its two halves through internal edges "first" and
// "second", and a string built by appending in a loop is a chain of
// hundreds of them. A run of such steps is one step in path signatures
// (its edge [RopeEdge], marked Repeated) and in printed paths.
func RopeStep(typ, edge string) bool {
	return typ == "(concatenated string)" && (edge == "first" || edge == "second" || edge == RopeEdge)
}
