// Package box puts decoded values into interfaces (any) without one
// allocation each.
//
// Converting a string, an int64, a float64 or a slice to an interface
// allocates a copy of the value for the interface to point to (the runtime
// skips this only for small integers, zero and the empty string). A decoder
// that boxes thousands of values pays one allocation for each. A Slab
// instead copies the values into chunks ([]string, []int64, ... of a few
// dozen to a thousand elements) and makes each interface point to its
// element, so a chunk costs one allocation for all the values in it.
//
// The interfaces are ordinary ones: the garbage collector follows their
// data pointer into the chunk (an interior pointer) and keeps the whole
// chunk alive while any of them is; type switches, assertions, reflect and
// DeepEqual see a string, int64, float64 or []any as usual.
//
// The invariant that makes this sound: an element of a chunk is written
// once, before its interface is made, and never again. Go gives no way to
// change the value an interface holds (an assertion copies it, and
// reflect.ValueOf of an interface is not addressable), so nothing outside
// this package can write the element either; the package hands out no
// pointer to it. Boxing a []any copies the slice header, not the elements:
// the elements stay writable through the slice, as with any []any in an
// interface.
//
// The cost is retention: a chunk stays in memory as long as any value
// boxed in it, so a value kept long after the others pins its neighbours
// (at most one chunk). A Slab is not safe for concurrent use; the
// interfaces it returns are values like any other and can be shared.
package box

import (
	"math"
	"unsafe"
)

// eface is the runtime's layout of an interface without methods.
type eface struct {
	typ  unsafe.Pointer
	data unsafe.Pointer
}

func typeOf(v any) unsafe.Pointer { return (*eface)(unsafe.Pointer(&v)).typ }

var (
	stringType = typeOf("")
	int64Type  = typeOf(int64(0))
	floatType  = typeOf(float64(0))
	sliceType  = typeOf([]any(nil))
)

// iface returns the interface of type typ whose value is at p.
func iface(typ, p unsafe.Pointer) (v any) {
	e := (*eface)(unsafe.Pointer(&v))
	e.typ = typ
	e.data = p
	return v
}

// Chunk sizes: the first chunk of each kind is small, so that a small
// object wastes little, and each next one twice the size of the last, up
// to maxChunk. Hint sizes the first chunks of strings and slices.
const (
	minChunk = 4
	maxChunk = 512
)

func grow(n, first int) int {
	if n == 0 {
		return max(first, minChunk)
	}
	return min(2*n, maxChunk)
}

// Slab boxes values into chunks. The zero Slab is ready to use.
type Slab struct {
	strs   []string
	ints   []int64
	floats []float64
	slices [][]any
	// The sizes of the first chunks of strings and slices (Hint).
	firstStrs, firstSlices int
}

// Hint sizes the first chunks for decoding n bytes of JSON. Kubernetes
// objects (the corpus, written compactly) hold one non-empty string in
// every 25 to 55 bytes and one array in every 60 to 300: the first chunks
// hold one string for every 20 bytes and one slice for every 96, so that
// most objects fill one chunk of each, wasting a few slots, rather than
// start a second (a chunk too small costs an allocation and, as the next
// is twice its size, wastes more than the first chunk would have).
func (b *Slab) Hint(n int) {
	b.firstStrs = min(n/20, maxChunk)
	b.firstSlices = min(n/96, maxChunk)
}

// String returns s as an interface.
func (b *Slab) String(s string) any {
	if s == "" {
		return ""
	}
	if len(b.strs) == cap(b.strs) {
		b.strs = make([]string, 0, grow(cap(b.strs), b.firstStrs))
	}
	b.strs = append(b.strs, s)
	return iface(stringType, unsafe.Pointer(&b.strs[len(b.strs)-1]))
}

// Int64 returns i as an interface.
func (b *Slab) Int64(i int64) any {
	if uint64(i) < 256 {
		return i // the runtime boxes these without allocating
	}
	if len(b.ints) == cap(b.ints) {
		b.ints = make([]int64, 0, grow(cap(b.ints), 0))
	}
	b.ints = append(b.ints, i)
	return iface(int64Type, unsafe.Pointer(&b.ints[len(b.ints)-1]))
}

// Float64 returns f as an interface.
func (b *Slab) Float64(f float64) any {
	if f == 0 && !math.Signbit(f) {
		return f
	}
	if len(b.floats) == cap(b.floats) {
		b.floats = make([]float64, 0, grow(cap(b.floats), 0))
	}
	b.floats = append(b.floats, f)
	return iface(floatType, unsafe.Pointer(&b.floats[len(b.floats)-1]))
}

// Slice returns s as an interface.
func (b *Slab) Slice(s []any) any {
	if len(b.slices) == cap(b.slices) {
		b.slices = make([][]any, 0, grow(cap(b.slices), b.firstSlices))
	}
	b.slices = append(b.slices, s)
	return iface(sliceType, unsafe.Pointer(&b.slices[len(b.slices)-1]))
}
