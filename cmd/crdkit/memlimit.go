package main

import (
	"os"
	"runtime"
	"runtime/debug"
	"runtime/pprof"
	"runtime/metrics"
	"sync"
)

// heapCap keeps a long validate run's memory where compiling its CRDs
// left it, so that peak memory does not grow with the number of documents.
//
// Without it, the collector lets the heap grow to twice what is live: the
// compiled CRDs are most of what is live, and each document's garbage then
// fills the heap up to that goal, which a short run never reaches (with the
// 34 corpus CRDs: 160 MB peak RSS on 1,000 documents, 210-235 MB on
// 10,000). Once the CRDs are compiled, heapCap sets a soft memory limit
// (debug.SetMemoryLimit) at the memory the process then holds, plus
// headroom for the documents being checked; the collector then runs more
// often instead of growing the heap. A limit is soft: a document that
// needs more memory gets it (the runtime bounds the collector's share of
// the CPU), and a large input file raises the limit by a multiple of its
// size before it is checked. A GOMEMLIMIT the user set is left alone.
type heapCap struct {
	mu    sync.Mutex
	on    bool  // a limit is set
	base  int64 // the memory held when the CRDs were compiled
	extra int64 // headroom for the largest input seen
}

// heapCapHeadroom is the limit's margin over what the process holds when
// the CRDs are compiled; heapCapPerByte the memory an input byte may need
// while its documents are checked (decoded, defaulted, encoded) at most.
const (
	heapCapHeadroom = 16 << 20
	heapCapPerByte  = 16
)

// newHeapCap sets the limit once compiled is closed, unless done is closed
// first or the user chose a limit (GOMEMLIMIT).
func newHeapCap(compiled, done <-chan struct{}) *heapCap {
	h := &heapCap{}
	if os.Getenv("GOMEMLIMIT") != "" {
		return h
	}
	go func() {
		select {
		case <-compiled:
		case <-done:
			return
		}
		h.mu.Lock()
		defer h.mu.Unlock()
		if p := os.Getenv("CRDKIT_HEAPAT"); p != "" {
			runtime.GC()
			f, _ := os.Create(p)
			pprof.WriteHeapProfile(f)
			f.Close()
		}
		if os.Getenv("CRDKIT_GCP") != "" {
			debug.SetGCPercent(50)
			return
		}
		if h.base = heldMemory(); h.base == 0 {
			return
		}
		h.on = true
		if os.Getenv("CRDKIT_HEAPDEBUG") != "" {
			println("heapcap base", h.base>>20, "MiB")
		}
		h.apply()
	}()
	return h
}

// input raises the limit, when one is set, for an input of size bytes.
func (h *heapCap) input(size int) {
	need := int64(size) * heapCapPerByte
	h.mu.Lock()
	defer h.mu.Unlock()
	if need <= h.extra {
		return
	}
	h.extra = need
	if h.on {
		h.apply()
	}
}

// apply sets the limit; h.mu is held.
func (h *heapCap) apply() {
	debug.SetMemoryLimit(h.base + heapCapHeadroom + h.extra)
}

// heldMemory is the memory the Go runtime holds from the system (what the
// memory limit counts): all it mapped less what it gave back.
func heldMemory() int64 {
	s := []metrics.Sample{{Name: "/memory/classes/total:bytes"}, {Name: "/memory/classes/heap/released:bytes"}}
	metrics.Read(s)
	if s[0].Value.Kind() != metrics.KindUint64 || s[1].Value.Kind() != metrics.KindUint64 {
		return 0
	}
	if os.Getenv("CRDKIT_LIVE") != "" {
		l := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
		metrics.Read(l)
		return int64(l[0].Value.Uint64()) * 3 / 2
	}
	return int64(s[0].Value.Uint64() - s[1].Value.Uint64())
}
