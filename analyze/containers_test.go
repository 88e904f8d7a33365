package analyze

import (
	"reflect"
	"testing"

	"github.com/heapscope/heapscope/internal/heaptest"
)

func TestContainersPython(t *testing.T) {
	g := heaptest.MustParse(t, `
runtime python
root module m mod
m module 10 -> .cache=d .queue=l .memo=lru .seen=s .refs=wv
d dict 100 -> <key>=k1 ['a']=v1 <key>=k2 ['b']=v2 [3]=v3
k1 str 50
k2 str 50
v1 Obj 1000
v2 Obj 1000
v3 Obj 1000
l list 80 -> [0]=e1 [1]=e2 [2]=e3 [3]=e1
e1 Obj 10
e2 Obj 10
e3 Obj 10
lru functools._lru_cache_wrapper 60 -> cache=cd
cd dict 30 -> ['x']=v4
v4 Obj 7
s set 200 -> e1 e2
wv weakref.WeakValueDictionary 48 -> .data=wd
wd dict 30 -> ['p']=e3 weak:['q']=e1
`)
	dt := Dominators(g, DomOptions{})
	got := Containers(dt, 0)
	want := []Container{
		{Object: 1, Type: "dict", Entries: 3, Retained: 100 + 100 + 3000},
		{Object: 14, Type: "set", Entries: 2, Retained: 200},
		{Object: 11, Type: "functools._lru_cache_wrapper", Entries: 1, Retained: 97},
		{Object: 7, Type: "list", Entries: 4, Retained: 80}, // its items are shared
		{Object: 15, Type: "weakref.WeakValueDictionary", Entries: 1, Retained: 78},
		{Object: 12, Type: "dict", Entries: 1, Retained: 37},
		{Object: 16, Type: "dict", Entries: 1, Retained: 30},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Containers =\n%+v\nwant\n%+v", got, want)
	}
	if top := Containers(dt, 2); len(top) != 2 || top[1].Object != 14 {
		t.Errorf("Containers(top 2) = %+v", top)
	}
}

func TestContainersJava(t *testing.T) {
	g := heaptest.MustParse(t, `
runtime java
root global m statics
m Holder 10 -> map=hm list=al set=hs
hm java.util.HashMap 48 -> table=tab
tab java.util.HashMap$Node[] 80 -> [0]=n1 [5]=n3
n1 java.util.HashMap$Node 32 -> key=x next=n2
n2 java.util.HashMap$Node 32 -> key=x
n3 java.util.HashMap$Node 32 -> key=x
x java.lang.String 24
al java.util.ArrayList 24 -> elementData=arr
arr java.lang.Object[] 56 -> [0]=x [1]=x
hs java.util.HashSet 16 -> map=hm2
hm2 java.util.HashMap 48 -> table=tab2
tab2 java.util.HashMap$Node[] 80 -> [1]=n4
n4 java.util.HashMap$Node 32 -> key=x
`)
	dt := Dominators(g, DomOptions{})
	got := map[string]int{}
	for _, c := range Containers(dt, 0) {
		got[c.Type] += c.Entries
	}
	want := map[string]int{
		"java.util.HashMap":        3 + 1, // hm, and hm2 inside the HashSet
		"java.util.HashSet":        1,
		"java.util.ArrayList":      2,
		"java.lang.Object[]":       2,
		"java.util.HashMap$Node[]": 2 + 1, // slots, as plain arrays
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("entries by type = %v, want %v", got, want)
	}
}

func TestContainersV8(t *testing.T) {
	src := "runtime v8\nroot vm r root\nr Window 1 -> o=small dd=d a=arr\nsmall Object 10 -> x=v\narr Array 16 -> [0]=v [1]=v\nv Number 8\nd Object 20 ->"
	for i := range 70 {
		src += " p" + string(rune('A'+i/26)) + string(rune('a'+i%26)) + "=v"
	}
	g := heaptest.MustParse(t, src)
	dt := Dominators(g, DomOptions{})
	got := Containers(dt, 0)
	if len(got) != 2 || got[0].Type != "Object" || got[0].Entries != 70 || got[1].Type != "Array" || got[1].Entries != 2 {
		t.Errorf("Containers = %+v", got)
	}
}
