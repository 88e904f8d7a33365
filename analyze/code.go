package analyze

import (
	"strings"

	"github.com/heapscope/heapscope/heap"
)

// A heap holds a program's code as well as its data: the classes,
// functions and modules that make up the program and its libraries, and
// the runtime's compiled code and object layouts. Loading a large
// library makes a great deal of them, all at once and for good; they
// accumulate under no single object (the namespaces of a thousand
// modules, their functions and classes) and so look like leak suspects
// on any program that imports much. They are never what a user fixes.
// This file tells them apart.

// codeTypeNames are the types whose objects are code, per runtime.
var codeTypeNames = map[string]map[string]bool{
	"python": {
		"module": true, "function": true, "code": true,
		"builtin_function_or_method": true, "method_descriptor": true,
		"wrapper_descriptor": true, "getset_descriptor": true,
		"member_descriptor": true, "classmethod_descriptor": true,
		"method-wrapper": true, "property": true, "staticmethod": true,
		"classmethod": true, "functools._lru_cache_wrapper": true,
		"cython_function_or_method": true, "fused_cython_function": true,
	},
	"v8": {
		"(compiled code)": true, "(shared function info)": true,
		"(object shape)": true, "(code)": true, "(bytecode array)": true,
	},
}

// codeObjects marks the objects of g that are code rather than data:
// classes (see classTypes: Python classes of any metaclass, Java class
// objects), Python modules, functions, code objects, descriptors,
// properties and the namespaces of modules and classes (the dicts their
// __dict__ edges reach), and V8's compiled code, function infos and
// object shapes, and the source text a V8 script keeps (the string its
// source edge reaches: typescript.js's is 8.7 MiB). What the code holds
// is not marked: a module's cache, a class's table of instances, stay
// data.
func codeObjects(g *heap.Graph) bitset {
	out := newBitset(g.NumObjects())
	isClass := classTypes(g)
	rt := g.Meta().Runtime
	names := codeTypeNames[rt]
	code := make([]bool, g.NumTypes())
	spaces := make([]bool, g.NumTypes()) // types whose __dict__ is a namespace
	for t := range code {
		name := g.TypeName(heap.TypeID(t))
		code[t] = isClass[t] || names[name] || (rt == "v8" && strings.HasSuffix(name, " (closure)"))
		spaces[t] = rt == "python" && (isClass[t] || name == "module")
	}
	for v, t := range g.Types() {
		if !code[t] {
			continue
		}
		out.set(uint32(v))
		if rt == "v8" && names[g.TypeName(t)] {
			for _, e := range g.Edges(heap.ObjectID(v)) {
				if !e.Label.IsIndex() && e.Label.Kind() != heap.Weak && g.String(e.Label.Name()) == "source" && strings.HasSuffix(g.TypeName(g.Type(e.To)), "string)") {
					out.set(uint32(e.To))
				}
			}
		}
		if !spaces[t] {
			continue
		}
		for _, e := range g.Edges(heap.ObjectID(v)) {
			if !e.Label.IsIndex() && e.Label.Kind() != heap.Weak && g.String(e.Label.Name()) == "__dict__" {
				out.set(uint32(e.To))
			}
		}
	}
	return out
}
