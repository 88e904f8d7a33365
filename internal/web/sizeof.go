package web

import "reflect"

// sizeOf estimates the bytes v holds: the headers and contents of its
// strings, slices and maps, followed through pointers and interfaces
// (each pointer once). A slice of elements without pointers counts as
// its length times the element's size, without a look at each. It is
// what the result cache bounds its memory by; the estimate leaves out
// allocator overhead and map buckets' slack.
func sizeOf(v any) int64 {
	if v == nil {
		return 0
	}
	s := sizer{seen: map[uintptr]bool{}}
	rv := reflect.ValueOf(v)
	return int64(rv.Type().Size()) + s.inner(rv)
}

type sizer struct{ seen map[uintptr]bool }

// inner returns what v refers to beyond its own size.
func (s *sizer) inner(v reflect.Value) int64 {
	switch v.Kind() {
	case reflect.String:
		return int64(v.Len())
	case reflect.Pointer:
		if v.IsNil() || s.seen[v.Pointer()] {
			return 0
		}
		s.seen[v.Pointer()] = true
		e := v.Elem()
		return int64(e.Type().Size()) + s.inner(e)
	case reflect.Interface:
		if v.IsNil() {
			return 0
		}
		e := v.Elem()
		return int64(e.Type().Size()) + s.inner(e)
	case reflect.Slice:
		if v.IsNil() {
			return 0
		}
		n := int64(v.Cap()) * int64(v.Type().Elem().Size())
		if !hasPointers(v.Type().Elem()) {
			return n
		}
		for i := range v.Len() {
			n += s.inner(v.Index(i))
		}
		return n
	case reflect.Array:
		var n int64
		if hasPointers(v.Type().Elem()) {
			for i := range v.Len() {
				n += s.inner(v.Index(i))
			}
		}
		return n
	case reflect.Struct:
		var n int64
		for i := range v.NumField() {
			n += s.inner(v.Field(i))
		}
		return n
	case reflect.Map:
		if v.IsNil() {
			return 0
		}
		kt, et := v.Type().Key(), v.Type().Elem()
		n := int64(v.Len()) * int64(kt.Size()+et.Size())
		it := v.MapRange()
		for it.Next() {
			n += s.inner(it.Key()) + s.inner(it.Value())
		}
		return n
	}
	return 0
}

// hasPointers reports whether values of t refer to other memory.
func hasPointers(t reflect.Type) bool {
	switch t.Kind() {
	case reflect.String, reflect.Pointer, reflect.Interface, reflect.Slice, reflect.Map, reflect.Chan, reflect.Func, reflect.UnsafePointer:
		return true
	case reflect.Array:
		return hasPointers(t.Elem())
	case reflect.Struct:
		for i := range t.NumField() {
			if hasPointers(t.Field(i).Type) {
				return true
			}
		}
	}
	return false
}
