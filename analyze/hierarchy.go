package analyze

import (
	"strings"

	"github.com/heapscope/heapscope/heap"
)

// superclasses returns, for every class object of g that has a
// superclass (a Java class object named "class NAME" with a "<super>"
// edge), the name of its class and of its superclass.
func superclasses(g *heap.Graph) map[string]string {
	out := map[string]string{}
	for id := range g.Objects() {
		name, ok := g.Name(id)
		if !ok || !strings.HasPrefix(name, "class ") {
			continue
		}
		for _, e := range g.Edges(id) {
			if e.Label.Kind() == heap.Internal && !e.Label.IsIndex() && g.EdgeName(e.Label) == "<super>" {
				if s, ok := g.Name(e.To); ok {
					out[name[len("class "):]] = strings.TrimPrefix(s, "class ")
				}
			}
		}
	}
	return out
}

// maxHierarchy bounds a superclass chain, against cycles in a damaged
// dump.
const maxHierarchy = 256

// nearestSuper returns the first name up the superclass chain of class
// name (name included) that known accepts, or "".
func nearestSuper(supers map[string]string, name string, known func(string) bool) string {
	for steps := 0; name != "" && steps < maxHierarchy; steps++ {
		if known(name) {
			return name
		}
		name = supers[name]
	}
	return ""
}

// instanceOf returns, by type of g, whether the type is class or one of
// its subclasses, as the class objects' "<super>" edges tell (Java); a
// type without a class object is matched by its name alone.
func instanceOf(g *heap.Graph, class string) []bool {
	supers := superclasses(g)
	out := make([]bool, g.NumTypes())
	for t := range out {
		out[t] = nearestSuper(supers, g.TypeName(heap.TypeID(t)), func(n string) bool { return n == class }) != ""
	}
	return out
}
