package analyze

import (
	"fmt"
	"math/rand"
	"slices"
	"strings"
	"testing"

	"github.com/heapscope/heapscope/heap"
	"github.com/heapscope/heapscope/internal/heaptest"
)

// equalByValue says which of the named objects of src IndexValues finds
// equal: "a=b" for each pair, in the order named.
func equalByValue(t *testing.T, src string, names ...string) []string {
	t.Helper()
	g := heaptest.MustParse(t, src)
	x := IndexValues(g)
	ids := declared(src)
	var out []string
	for i, a := range names {
		for _, b := range names[i+1:] {
			if x.Digest(ids[a]) == x.Digest(ids[b]) {
				out = append(out, a+"="+b)
			}
		}
	}
	return out
}

// whole marks every object of a Python graph whole, as the agent marks
// the instances, containers, strings and numbers it shows entirely.
func whole(src string) string {
	var b strings.Builder
	b.WriteString(src)
	for _, line := range strings.Split(src, "\n") {
		f := strings.Fields(line)
		if len(f) < 3 || f[0] == "root" || f[0] == "value" || f[0] == "digest" || f[0] == "flags" || strings.HasPrefix(f[0], "#") {
			continue
		}
		if f[1] == "type" || f[1] == "module" || f[1] == "datetime.datetime" {
			continue // classes, modules and C types with fields are not whole
		}
		n, _, _ := strings.Cut(f[0], "@")
		fmt.Fprintf(&b, "flags %s whole\n", n)
	}
	return b.String()
}

// TestValuesPython: copies of one structure are equal by value however
// they were built (a dict's keys in another order), and differ with any
// difference in content, order of items, class or hidden state.
func TestValuesPython(t *testing.T) {
	src := whole(`runtime python
C type 900
D type 900
# a: app.Rec(name='x', dims=(1, 2), opts={'a': 'x', 'b': 1})
a app.Rec 48 -> internal:__class__=C .name=sa .dims=ta .opts=da
sa str 50
ta tuple 56 -> [0]=ia1 [1]=ia2
ia1 int 28
ia2 int 28
da dict 232 -> <key>=ka1 ['a']=sa2 <key>=kb1 ['b']=ia3
ka1 str 50
kb1 str 50
sa2 str 50
ia3 int 28
# b: the same, its dict built in the other order, a bigger tuple size
b app.Rec 48 -> internal:__class__=C .name=sb .dims=tb .opts=db
sb str 50
tb tuple 64 -> [0]=ib1 [1]=ib2
ib1 int 28
ib2 int 28
db dict 360 -> <key>=kb2 ['b']=ib3 <key>=ka2 ['a']=sb2
ka2 str 50
kb2 str 50
sb2 str 50
ib3 int 28
# c: the dims in the other order
c app.Rec 48 -> internal:__class__=C .name=sc .dims=tc .opts=da
sc str 50
tc tuple 56 -> [0]=ia2 [1]=ia1
# d: another class of the same name (a factory's)
d app.Rec 48 -> internal:__class__=D .name=sa .dims=ta .opts=da
# e: a name that differs
e app.Rec 48 -> internal:__class__=C .name=se .dims=ta .opts=da
se str 50
# f, g: C objects with fields the snapshot does not show
f datetime.datetime 48
g datetime.datetime 48
# sets: the same items in any order
s1 frozenset 216 -> ia1 ia2 sa
s2 frozenset 216 -> sb ib2 ib1
`) + `
value sa x
value sb x
value sc x
value se y
value sa2 x
value sb2 x
value ka1 a
value ka2 a
value kb1 b
value kb2 b
value ia1 1
value ib1 1
value ia2 2
value ib2 2
value ia3 1
value ib3 1
digest sa 7
digest sb 7
digest sc 7
digest se 8
digest sa2 7
digest sb2 7
digest ka1 1
digest ka2 1
digest kb1 2
digest kb2 2
`
	got := equalByValue(t, src, "a", "b", "c", "d", "e", "f", "g", "s1", "s2")
	if want := []string{"a=b", "s1=s2"}; !slices.Equal(got, want) {
		t.Errorf("equal: %v, want %v", got, want)
	}
}

// TestValuesCycles: two copies of a doubly linked list are equal, node
// for node; a ring of two and a ring of four are not; copies that differ
// in one node far along their cycle are not.
func TestValuesCycles(t *testing.T) {
	var b strings.Builder
	b.WriteString("runtime test\n")
	list := func(p string, n int, odd int) {
		for i := 0; i < n; i++ {
			var e []string
			if i > 0 {
				e = append(e, fmt.Sprintf("prev=%s%d", p, i-1))
			}
			if i+1 < n {
				e = append(e, fmt.Sprintf("next=%s%d", p, i+1))
			}
			item := "v"
			if i == odd {
				item = "w"
			}
			e = append(e, "item="+item)
			fmt.Fprintf(&b, "%s%d Node 40 -> %s\n", p, i, strings.Join(e, " "))
		}
	}
	b.WriteString("v Leaf 16\nw Other 16\n")
	list("a", 6, -1)
	list("b", 6, -1)
	list("c", 6, 5)
	b.WriteString("r1 Ring 40 -> next=r2\nr2 Ring 40 -> next=r1\n")
	b.WriteString("q1 Ring 40 -> next=q2\nq2 Ring 40 -> next=q3\nq3 Ring 40 -> next=q4\nq4 Ring 40 -> next=q1\n")
	got := equalByValue(t, b.String(), "a0", "b0", "c0", "a3", "b3", "r1", "r2", "q1")
	if want := []string{"a0=b0", "a3=b3", "r1=r2"}; !slices.Equal(got, want) {
		t.Errorf("equal: %v, want %v", got, want)
	}
}

// TestValuesOracle checks IndexValues on random graphs against a naive
// computation of the same rule without hashing: components by
// transitive closure, values as interned canonical tuples.
func TestValuesOracle(t *testing.T) {
	rng := rand.New(rand.NewSource(17))
	for iter := 0; iter < 400; iter++ {
		n := 2 + rng.Intn(24)
		b := heap.NewBuilder(heap.ByID)
		b.SetMeta(heap.Meta{Runtime: "test"})
		types := []heap.TypeID{b.Type("A"), b.Type("B")}
		names := []heap.StringID{0, b.String("x"), b.String("y")}
		for i := 0; i < n; i++ {
			id := b.Object(uint64(0x1000+16*i), types[rng.Intn(2)], 16)
			switch rng.Intn(6) {
			case 0:
				b.SetValue(id, []string{"1", "2"}[rng.Intn(2)])
			case 1:
				b.SetFlags(id, heap.FlagOpaque) // by identity
			}
		}
		for i := 0; i < n; i++ {
			for k := rng.Intn(4); k > 0; k-- {
				kind := heap.Strong
				if rng.Intn(8) == 0 {
					kind = heap.Weak
				}
				var l heap.Label
				if rng.Intn(2) == 0 {
					l = heap.IndexLabel(kind, uint64(rng.Intn(2)))
				} else {
					l = heap.NamedLabel(kind, names[rng.Intn(len(names))])
				}
				b.Edge(heap.ObjectID(i), uint64(rng.Intn(n)), l)
			}
		}
		b.Root(heap.RootOther, 0, 0)
		g, err := b.Build()
		if err != nil {
			t.Fatal(err)
		}
		x := IndexValues(g)
		want := naiveValues(g, x.byVal)
		for u := 0; u < n; u++ {
			for v := u + 1; v < n; v++ {
				got := x.Digest(heap.ObjectID(u)) == x.Digest(heap.ObjectID(v))
				if got != (want[u] == want[v]) {
					t.Fatalf("graph %d (%d objects): objects %d and %d equal %v, the naive rule says %v", iter, n, u, v, got, !got)
				}
			}
		}
	}
}

// naiveValues gives each object a number, equal for objects equal by
// value by the rule IndexValues documents, computed without hashing.
func naiveValues(g *heap.Graph, byVal bitset) []int {
	n := g.NumObjects()
	inner := func(e heap.Edge) bool { return e.Label.Kind() != heap.Weak && byVal.has(uint32(e.To)) }
	reach := make([][]bool, n)
	for u := range reach {
		reach[u] = make([]bool, n)
		for _, e := range g.Edges(heap.ObjectID(u)) {
			if byVal.has(uint32(u)) && inner(e) {
				reach[u][e.To] = true
			}
		}
	}
	for k := 0; k < n; k++ {
		for i := 0; i < n; i++ {
			for j := 0; j < n; j++ {
				if reach[i][k] && reach[k][j] {
					reach[i][j] = true
				}
			}
		}
	}
	same := func(u, v int) bool { return u == v || reach[u][v] && reach[v][u] }
	cyclic := func(u int) bool { return reach[u][u] }
	intern := map[string]int{}
	id := func(s string) int {
		if k, ok := intern[s]; ok {
			return k
		}
		intern[s] = len(intern)
		return intern[s]
	}
	val := make([]int, n)
	done := make([]bool, n)
	for u := range n {
		if !byVal.has(uint32(u)) {
			val[u] = id(fmt.Sprintf("identity %d", u))
			done[u] = true
		}
	}
	base := func(u int) string {
		s := fmt.Sprintf("type %d", g.Type(heap.ObjectID(u)))
		if v, ok := g.Value(heap.ObjectID(u)); ok {
			s += " value " + v
		}
		return s
	}
	edge := func(e heap.Edge, target string) string { return fmt.Sprintf("%d:%s", e.Label, target) }
	multiset := func(parts []string) string { slices.Sort(parts); return strings.Join(parts, ",") }
	for {
		progress := false
		for u := range n {
			if done[u] {
				continue
			}
			// A component is ready when every edge leaving it is done.
			var comp []int
			for v := range n {
				if !done[v] && same(u, v) {
					comp = append(comp, v)
				}
			}
			ready := true
			for _, v := range comp {
				for _, e := range g.Edges(heap.ObjectID(v)) {
					if inner(e) && !same(u, int(e.To)) && !done[e.To] {
						ready = false
					}
				}
			}
			if !ready {
				continue
			}
			progress = true
			if len(comp) == 1 && !cyclic(u) {
				var parts []string
				for _, e := range g.Edges(heap.ObjectID(u)) {
					if e.Label.Kind() == heap.Weak {
						parts = append(parts, edge(e, fmt.Sprintf("identity %d", e.To)))
					} else {
						parts = append(parts, edge(e, fmt.Sprint(val[e.To])))
					}
				}
				val[u] = id(base(u) + " | " + multiset(parts))
				done[u] = true
				continue
			}
			in := func(e heap.Edge) bool { return inner(e) && same(u, int(e.To)) }
			outside := map[int]string{}
			cur := map[int]string{}
			for _, v := range comp {
				var out, ins []string
				for _, e := range g.Edges(heap.ObjectID(v)) {
					switch {
					case in(e):
						ins = append(ins, edge(e, "seed"))
					case e.Label.Kind() == heap.Weak:
						out = append(out, edge(e, fmt.Sprintf("identity %d", e.To)))
					default:
						out = append(out, edge(e, fmt.Sprint(val[e.To])))
					}
				}
				outside[v] = fmt.Sprintf("%s size %d | %s", base(v), len(comp), multiset(out))
				cur[v] = fmt.Sprint(id(outside[v] + " || " + multiset(ins)))
			}
			classes := func(c map[int]string) int {
				seen := map[string]bool{}
				for _, x := range c {
					seen[x] = true
				}
				return len(seen)
			}
			for range min(len(comp), valueRounds) {
				nxt := map[int]string{}
				for _, v := range comp {
					var ins []string
					for _, e := range g.Edges(heap.ObjectID(v)) {
						if in(e) {
							ins = append(ins, edge(e, cur[int(e.To)]))
						}
					}
					nxt[v] = fmt.Sprint(id(outside[v] + " || round " + multiset(ins)))
				}
				stable := classes(nxt) == classes(cur)
				cur = nxt
				if stable {
					break
				}
			}
			var all []string
			for _, v := range comp {
				all = append(all, cur[v])
			}
			whole := multiset(all)
			for _, v := range comp {
				val[v] = id(cur[v] + " in " + whole)
				done[v] = true
			}
		}
		if !progress {
			return val
		}
	}
}
