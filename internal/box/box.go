// Package box puts decoded values into interfaces (any) without one
// allocation each.
//
// Converting a string, an int64, a float64 or a slice to an interface
// allocates a copy of the value for the interface to point to (the runtime
// skips this only for small integers, zero and the empty string). A decoder
// that boxes thousands of values pays one allocation for each. A Slab
// instead copies the values into chunks ([]string, []int64, ... of 4 to
// 512 elements, sized by what the input probably holds: Hint) and makes
// each interface point to its element, so a chunk costs one allocation for
// all the values in it.
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

// Chunk sizes: between minChunk and maxChunk values. Without a Hint each
// chunk is twice the size of the last, from minChunk; with one, the next
// chunk is what the rest of the input probably needs (next).
const (
	minChunk = 4
	maxChunk = 512
	firstMax = 16 // a first chunk sized by Hint, before the density is known
)

// Slab boxes values into chunks. The zero Slab is ready to use.
type Slab struct {
	strs   []string
	ints   []int64
	floats []float64
	slices [][]any
	// Pos is where the reader of the input is (Hint): a decoder sets it
	// before it boxes a value.
	Pos int
	n   int // the input's length (Hint); 0 without one
	// How many values of each kind the chunks filled so far held.
	nstrs, nints, nfloats, nslices int
}

// Hint tells b that it boxes the values of n bytes of JSON, read by a
// decoder that keeps b.Pos at its position: each chunk then holds about
// as many values as the rest of the input will need if it goes on as it
// went (the values so far for the bytes so far), rather than double the
// last. So an object with few values wastes few slots, and one with many
// takes few chunks; bodies with pruned or preserved parts, whose density differs from
// the kept values', are estimated from what they actually hold. The first
// chunks, before anything is known, are sized for one string in 20 bytes
// and one array in 96 (Kubernetes objects written compactly, the corpus,
// hold a string in 25 to 55 bytes, an array in 60 to 300), at most 16.
func (b *Slab) Hint(n int) {
	b.n = n
}

// next is the size of the next chunk of a kind of which done values were
// boxed in chunks before one of last slots; with a Hint, the first chunk
// holds one value per bytesPer bytes of input.
func (b *Slab) next(done, last, bytesPer int) int {
	switch {
	case b.n == 0:
		if last == 0 {
			return minChunk
		}
		return min(2*last, maxChunk)
	case done == 0:
		return min(max(b.n/bytesPer, minChunk), firstMax)
	}
	at := max(b.Pos, 1)
	rest := max(b.n-at, 0)
	// done*rest/at, with a quarter more (and one) for the estimate's
	// error; both factors are capped so that the product cannot overflow.
	est := min(rest, 1<<31) * 5 / 4 * min(done, 1<<31) / at
	return min(max(est+1, minChunk), maxChunk)
}

// String returns s as an interface.
func (b *Slab) String(s string) any {
	if s == "" {
		return ""
	}
	if len(b.strs) == cap(b.strs) {
		b.nstrs += len(b.strs)
		b.strs = make([]string, 0, b.next(b.nstrs, cap(b.strs), 20))
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
		b.nints += len(b.ints)
		b.ints = make([]int64, 0, b.next(b.nints, cap(b.ints), 1<<30))
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
		b.nfloats += len(b.floats)
		b.floats = make([]float64, 0, b.next(b.nfloats, cap(b.floats), 1<<30))
	}
	b.floats = append(b.floats, f)
	return iface(floatType, unsafe.Pointer(&b.floats[len(b.floats)-1]))
}

// Slice returns s as an interface.
func (b *Slab) Slice(s []any) any {
	if len(b.slices) == cap(b.slices) {
		b.nslices += len(b.slices)
		b.slices = make([][]any, 0, b.next(b.nslices, cap(b.slices), 96))
	}
	b.slices = append(b.slices, s)
	return iface(sliceType, unsafe.Pointer(&b.slices[len(b.slices)-1]))
}
