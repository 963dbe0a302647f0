package box

import (
	"strings"
	"unsafe"
)

// Arena copies strings into chunks of bytes, so that a decoder keeps only
// the strings it returns (not its whole input) and pays one allocation for
// many of them. Each string it returns is a slice of its chunk's string.
//
// A chunk is a strings.Builder grown once to its size and never past it:
// its String shares the builder's bytes, and writing within the capacity
// only appends, so the bytes of a string returned are written once,
// before the string is made, and never again (Slab's invariant). The
// chunk is not zeroed when it is allocated. The cost is retention: a
// chunk stays in memory as long as any string in it. An Arena is not
// safe for concurrent use; the strings it returns are ordinary strings.
type Arena struct {
	b    strings.Builder
	size int // the size of the next chunk
}

const (
	minArenaChunk = 256
	maxArenaChunk = 32 << 10
)

// Hint sets the size of the first chunk to about n bytes, the number of
// bytes the caller expects to copy.
func (a *Arena) Hint(n int) {
	a.size = min(max(n, minArenaChunk), maxArenaChunk)
}

// String returns a copy of s.
func (a *Arena) String(s string) string {
	if len(s) == 0 {
		return ""
	}
	if len(s) > a.b.Cap()-a.b.Len() {
		if len(s) > maxArenaChunk/4 {
			return strings.Clone(s) // its own allocation
		}
		n := max(a.size, minArenaChunk)
		a.size = min(2*n, maxArenaChunk)
		a.b.Reset() // the strings cut from the last chunk keep it
		a.b.Grow(n)
	}
	i := a.b.Len()
	a.b.WriteString(s)
	return a.b.String()[i:]
}

// Bytes returns a copy of b as a string.
func (a *Arena) Bytes(b []byte) string {
	return a.String(View(b))
}

// View returns the bytes of b as a string, without copying them. The
// string is valid only as long as b is not written: a caller reads it
// while b stays as it is and keeps no part of it (it copies what it
// keeps, with an Arena).
func View(b []byte) string {
	return unsafe.String(unsafe.SliceData(b), len(b))
}
