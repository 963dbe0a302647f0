package box

import "unsafe"

// Arena copies strings into chunks of bytes, so that a decoder keeps only
// the strings it returns (not its whole input) and pays one allocation for
// many of them. Each string it returns points into a chunk (unsafe.String
// over the chunk's bytes).
//
// The invariant that makes this sound is Slab's: the bytes of a string are
// written once, into the chunk's spare capacity, before the string is
// made, and never again (a chunk only grows by append, and the package
// hands out no slice of it). The cost is retention: a chunk stays in
// memory as long as any string in it. An Arena is not safe for concurrent
// use; the strings it returns are ordinary strings.
type Arena struct {
	buf  []byte
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
	if len(s) > cap(a.buf)-len(a.buf) {
		if len(s) > maxArenaChunk/4 {
			return string([]byte(s)) // its own allocation
		}
		n := max(a.size, minArenaChunk)
		a.size = min(2*n, maxArenaChunk)
		a.buf = make([]byte, 0, n)
	}
	i := len(a.buf)
	a.buf = append(a.buf, s...)
	return unsafe.String(&a.buf[i], len(s))
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
