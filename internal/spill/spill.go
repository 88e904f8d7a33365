// Package spill keeps large arrays within a memory budget: below it they
// are ordinary memory; beyond it, memory-mapped files on disk, so that a
// snapshot larger than the machine's memory still opens, slower but in
// bounded memory (heapscope's --max-memory).
//
// [Make] decides per array: once the Go heap's objects (runtime/metrics)
// and the new array together would pass a third of the budget, an array
// of a page or more is mapped (MAP_SHARED) from a temporary file instead,
// created in the temporary directory (TMPDIR) and unlinked at once, so
// that nothing is left behind whatever ends the process. The Go runtime
// is asked to keep its own memory under half the budget (a soft limit,
// debug.SetMemoryLimit), which leaves its garbage collector room above
// the third the arrays in memory may take.
//
// A mapped file's pages count in the process's resident set while they
// are mapped in. From the first file on, a watchdog reads the resident
// set every few milliseconds and, past 3/4 of the budget, drops every
// mapped page from the process (madvise MADV_DONTNEED: on a shared file
// mapping the contents stay in the file and the page cache, from which
// the next access reads them back), so the resident set stays near the
// budget, and the page cache is the kernel's to write out and reclaim.
// The watchdog gets a P of its own (GOMAXPROCS goes up by one when it
// starts), so that busy goroutines do not delay it.
// It does so only when file-backed pages are over 1/16 of the budget:
// dropping fewer would gain little and cost their reads back.
//
// Arrays from Make hold plain data (a type with pointers always gets
// ordinary memory: the garbage collector does not look into files), and
// must not be grown by append, which would copy them into the Go heap
// unbounded: [Grow] grows them. A mapped array lives until [Free] or
// Grow releases it, or the process ends.
//
// Without a budget ([SetLimit] never called, or 0), Make is make, and
// the runtime's memory limit is left as it was. On systems other than
// Linux, Make is make whatever the budget.
package spill

import (
	"math"
	"os"
	"reflect"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"sync"
	"sync/atomic"
	"unsafe"
)

// minSpill is the smallest array that goes to a file: one page.
const minSpill = 4096

var (
	limit   atomic.Int64 // the budget in bytes; 0: none
	spilled atomic.Int64 // bytes ever mapped, for Spilled
	trims   atomic.Int64 // times the watchdog dropped the mapped pages

	mu      sync.Mutex             // guards maps and started
	maps    = map[uintptr][]byte{} // the live mappings by first byte
	started bool                   // the watchdog runs

	sampleMu sync.Mutex // guards sample
	sample   = []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}

	plain sync.Map // reflect.Type -> bool: holds no pointers
)

// SetLimit sets the budget to n bytes (0 or less: none). With a budget,
// the Go runtime's soft memory limit becomes half of it (at least 64
// MiB); without, no limit.
func SetLimit(n int64) {
	n = max(n, 0)
	if limit.Swap(n) == n {
		return
	}
	if n > 0 {
		debug.SetMemoryLimit(max(n/2, 64<<20))
	} else {
		debug.SetMemoryLimit(math.MaxInt64)
	}
}

// Limit returns the budget in bytes (0: none).
func Limit() int64 { return limit.Load() }

// Spilled returns how many bytes of arrays have been placed in files
// since the process started (released ones included): 0 when the budget
// has never been reached.
func Spilled() int64 { return spilled.Load() }

// Mapped returns how many bytes of arrays are in files now.
func Mapped() int64 {
	mu.Lock()
	defer mu.Unlock()
	var n int64
	for _, b := range maps {
		n += int64(len(b))
	}
	return n
}

// Trims returns how many times the watchdog has dropped the mapped
// pages from the process.
func Trims() int64 { return trims.Load() }

// Make returns a zeroed slice of n elements of T: see the package's doc
// for where it lives.
func Make[T any](n int) []T { return MakeCap[T](n, n) }

// MakeCap returns a zeroed slice of n elements of T with capacity c
// (n <= c).
func MakeCap[T any](n, c int) []T {
	var zero T
	size := int64(c) * int64(unsafe.Sizeof(zero))
	if !spills(size) || !isPlain[T]() {
		return make([]T, n, c)
	}
	b, ok := mapFile(size)
	if !ok {
		return make([]T, n, c) // no room on disk: memory it is
	}
	return unsafe.Slice((*T)(unsafe.Pointer(&b[0])), c)[:n]
}

// Grow returns s with room for at least more elements beyond its length,
// at least doubling its capacity when it must grow, as append would: the
// new array is Make's, with s's elements copied in. When it grows, s
// itself is released (see [Free]) and must not be used again; the
// returned slice replaces it.
func Grow[T any](s []T, more int) []T {
	if cap(s)-len(s) >= more {
		return s
	}
	n := MakeCap[T](len(s), max(len(s)+more, 2*cap(s)))
	copy(n, s)
	Free(s)
	return n
}

// Free releases s's file and mapping, when s (from its first element) is
// an array Make placed in a file; ordinary memory is left to the garbage
// collector. s, and every slice of its array, must not be used again.
func Free[T any](s []T) {
	if cap(s) == 0 {
		return
	}
	p := uintptr(unsafe.Pointer(unsafe.SliceData(s)))
	mu.Lock()
	b, ok := maps[p]
	delete(maps, p)
	mu.Unlock()
	if ok {
		unmap(b)
	}
}

// spills reports whether an array of size bytes goes to a file.
func spills(size int64) bool {
	l := limit.Load()
	if l == 0 || size < minSpill || !canMap {
		return false
	}
	sampleMu.Lock()
	metrics.Read(sample)
	heap := int64(sample[0].Value.Uint64())
	sampleMu.Unlock()
	return heap+size > l/3
}

// mapFile maps a new temporary file of size bytes, and starts the
// watchdog with the first.
func mapFile(size int64) ([]byte, bool) {
	if size != int64(int(size)) {
		return nil, false
	}
	f, err := os.CreateTemp("", "heapscope-spill-*")
	if err != nil {
		return nil, false
	}
	os.Remove(f.Name())
	defer f.Close() // the mapping outlives the descriptor
	if f.Truncate(size) != nil {
		return nil, false
	}
	b, err := mmap(f, int(size))
	if err != nil {
		return nil, false
	}
	spilled.Add(size)
	mu.Lock()
	defer mu.Unlock()
	maps[uintptr(unsafe.Pointer(&b[0]))] = b
	if !started && canMap {
		started = true
		// One more P than the work uses, so that the watchdog runs when
		// it wakes, not when the scheduler next preempts a busy
		// goroutine (10 ms or more): two goroutines clearing mapped
		// arrays on two Ps outran it by 400 MB.
		runtime.GOMAXPROCS(runtime.GOMAXPROCS(0) + 1)
		go watch()
	}
	return b, true
}

// trim drops every mapped page from the process; the next access reads
// it back from the page cache or the file.
func trim() {
	mu.Lock()
	defer mu.Unlock()
	for _, b := range maps {
		dontNeed(b)
	}
	trims.Add(1)
}

// isPlain reports whether T holds no pointers, so that an array of it
// may live where the garbage collector does not look.
func isPlain[T any]() bool {
	t := reflect.TypeFor[T]()
	if v, ok := plain.Load(t); ok {
		return v.(bool)
	}
	ok := noPointers(t)
	plain.Store(t, ok)
	return ok
}

func noPointers(t reflect.Type) bool {
	switch t.Kind() {
	case reflect.Bool, reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr,
		reflect.Float32, reflect.Float64, reflect.Complex64, reflect.Complex128:
		return true
	case reflect.Array:
		return t.Len() == 0 || noPointers(t.Elem())
	case reflect.Struct:
		for i := range t.NumField() {
			if !noPointers(t.Field(i).Type) {
				return false
			}
		}
		return true
	}
	return false
}
