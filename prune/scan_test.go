package prune

import (
	"math/bits"
	"math/rand/v2"
	"testing"
)

// firstSpecial is the index of the first byte of w that is not plainByte,
// or 8, one byte at a time.
func firstSpecial(w string) int {
	for i := range len(w) {
		if !plainByte[w[i]] {
			return i
		}
	}
	return 8
}

// specialAt is what the scanner makes of special's mask: the index of the
// first marked byte, or 8.
func specialAt(w string) int {
	m := special(load8(w, 0))
	if m == 0 {
		return 8
	}
	return bits.TrailingZeros64(m) >> 3
}

// TestSpecial checks the word-at-a-time scan of strings against plainByte:
// every byte value at every position of a word of plain bytes, of a word
// of any bytes after it, and random words biased to the bytes near the
// edges.
func TestSpecial(t *testing.T) {
	for c := range 256 {
		for p := range 8 {
			for _, fill := range []byte{'a', ' ', '~', 0x7f, '!', '#', '[', ']'} {
				w := []byte{fill, fill, fill, fill, fill, fill, fill, fill}
				w[p] = byte(c)
				for q := p + 1; q < 8; q++ {
					w[q] = byte(c + q) // whatever follows
				}
				if got, want := specialAt(string(w)), firstSpecial(string(w)); got != want {
					t.Fatalf("%q: special at %d, want %d", w, got, want)
				}
			}
		}
	}
	edges := []byte{0, 1, 0x1f, 0x20, 0x21, 0x22, 0x23, 0x5b, 0x5c, 0x5d, 0x7e, 0x7f, 0x80, 0x81, 0x9f, 0xa0, 0xc3, 0xff}
	r := rand.New(rand.NewPCG(1, 2))
	w := make([]byte, 8)
	for range 1_000_000 {
		for i := range w {
			if r.IntN(4) == 0 {
				w[i] = edges[r.IntN(len(edges))]
			} else {
				w[i] = byte(r.IntN(256))
			}
		}
		if got, want := specialAt(string(w)), firstSpecial(string(w)); got != want {
			t.Fatalf("%q: special at %d, want %d", w, got, want)
		}
	}
}

// TestStrWords checks str on strings whose special byte falls at every
// offset from the start of the input and of the string, so that both the
// word loop and the byte loop meet it.
func TestStrWords(t *testing.T) {
	for pad := range 9 {
		for n := range 20 {
			body := make([]byte, n)
			for i := range body {
				body[i] = 'a' + byte(i%26)
			}
			for _, tail := range []string{`"`, `\n"`, `é"`, "\x01\"", "\xff\""} {
				in := string(make([]byte, pad)) + `"` + string(body) + tail + "xxxxxxxxxx"
				d := decoder{s: in, i: pad}
				got := d.str()
				switch tail {
				case `"`:
					if d.bad || got != string(body) || d.i != pad+n+2 {
						t.Fatalf("str(%q) = %q bad=%v i=%d", in, got, d.bad, d.i)
					}
				case `\n"`:
					if d.bad || got != string(body)+"\n" {
						t.Fatalf("str(%q) = %q bad=%v", in, got, d.bad)
					}
				case `é"`:
					if d.bad || got != string(body)+"é" {
						t.Fatalf("str(%q) = %q bad=%v", in, got, d.bad)
					}
				default:
					if !d.bad {
						t.Fatalf("str(%q) = %q, want a give-up", in, got)
					}
				}
			}
		}
	}
}

// TestLess checks less against the string comparison.
func TestLess(t *testing.T) {
	words := []string{"", "a", "b", "ab", "a.b", "a-b", "a[1]", "a[10]", "a[9]", ".x", ".x.y", "\xff", "a\x00"}
	for _, x := range words {
		for _, y := range words {
			if got, want := less([]byte(x), []byte(y)), x < y; got != want {
				t.Errorf("less(%q, %q) = %v, want %v", x, y, got, want)
			}
		}
	}
}
