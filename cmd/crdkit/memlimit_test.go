package main

import (
	"math"
	"runtime/debug"
	"testing"
	"time"
)

func TestHeapCap(t *testing.T) {
	t.Setenv("GOMEMLIMIT", "")
	defer debug.SetMemoryLimit(debug.SetMemoryLimit(-1))
	debug.SetMemoryLimit(math.MaxInt64)

	compiled := make(chan struct{})
	h := newHeapCap(compiled)
	h.input(1 << 20) // before the CRDs are compiled: remembered, no limit yet
	if got := debug.SetMemoryLimit(-1); got != math.MaxInt64 {
		t.Fatalf("limit before the CRDs are compiled = %d, want none", got)
	}
	close(compiled)
	deadline := time.Now().Add(10 * time.Second)
	for {
		h.mu.Lock()
		on, base := h.on, h.base
		h.mu.Unlock()
		if on {
			want := max(base, heapCapFloor) + 16<<20
			if got := debug.SetMemoryLimit(-1); got != want {
				t.Fatalf("limit = %d, want %d (held memory %d plus 16 times the 1 MiB input)", got, want, base)
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("no limit 10 s after the CRDs were compiled")
		}
		time.Sleep(time.Millisecond)
	}
	h.input(4 << 20)
	if got, want := debug.SetMemoryLimit(-1), max(h.base, heapCapFloor)+64<<20; got != want {
		t.Errorf("limit after a 4 MiB input = %d, want %d", got, want)
	}
	h.input(1 << 10) // smaller than the largest seen: no change
	if got, want := debug.SetMemoryLimit(-1), max(h.base, heapCapFloor)+64<<20; got != want {
		t.Errorf("limit after a small input = %d, want %d", got, want)
	}
	h.release()
	if got := debug.SetMemoryLimit(-1); got != math.MaxInt64 {
		t.Errorf("limit after release = %d, want the one before (none)", got)
	}
}

func TestHeapCapReleasedFirst(t *testing.T) {
	t.Setenv("GOMEMLIMIT", "")
	defer debug.SetMemoryLimit(debug.SetMemoryLimit(-1))
	debug.SetMemoryLimit(math.MaxInt64)
	compiled := make(chan struct{})
	h := newHeapCap(compiled)
	h.release() // the run ended before its CRDs were compiled
	close(compiled)
	time.Sleep(50 * time.Millisecond)
	if got := debug.SetMemoryLimit(-1); got != math.MaxInt64 {
		t.Errorf("limit set after release: %d", got)
	}
}

func TestHeapCapLeavesUserLimit(t *testing.T) {
	t.Setenv("GOMEMLIMIT", "1GiB")
	defer debug.SetMemoryLimit(debug.SetMemoryLimit(-1))
	debug.SetMemoryLimit(1 << 30)
	compiled := make(chan struct{})
	h := newHeapCap(compiled)
	defer h.release()
	close(compiled)
	h.input(1 << 20)
	time.Sleep(50 * time.Millisecond)
	h.mu.Lock()
	on := h.on
	h.mu.Unlock()
	if got := debug.SetMemoryLimit(-1); on || got != 1<<30 {
		t.Errorf("with GOMEMLIMIT set: limit %d, on %v; want the user's 1 GiB, off", got, on)
	}
}
