package main

import (
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/crdkit/crdkit/rules"
)

// heapCap keeps a long validate run's memory where compiling its CRDs
// left it, so that peak memory does not grow with the number of documents.
//
// Without it, the collector lets the heap grow to twice what is live after
// each collection. Compiling the CRDs leaves a lot of garbage and a heap
// grown to about twice the compiled CRDs; a short run ends there, but a
// long one checks documents for many collections, and the heap keeps
// reaching twice what is live then (the compiled CRDs and the documents in
// flight), more than the compilation needed, while the pages it frees are
// given back to the system slowly: with the 34 corpus CRDs, 160 MB of peak
// RSS on 1,000 documents and 190-220 MB on 10,000.
//
// Once the CRDs are compiled, heapCap empties the rules package's
// process-wide caches (the CEL compilations are done; a CRD compiled later
// fills them again) and sets a soft memory limit (debug.SetMemoryLimit) at
// the memory the process then holds: the collector runs a little more
// often instead of growing the heap, and the runtime gives freed pages
// back sooner. A limit is soft: a document that needs more memory gets it
// (the runtime bounds the collector's share of the CPU), and an input file
// raises the limit by a multiple of its size before it is checked. A
// GOMEMLIMIT the user set is left alone (the caches are still emptied).
type heapCap struct {
	mu    sync.Mutex
	on    bool  // a limit is set
	ended bool  // release was called
	prev  int64 // the limit before (restored by release)
	base  int64 // the memory held when the CRDs were compiled
	extra int64 // headroom for the largest input seen
}

// heapCapFloor is the lowest limit heapCap sets (a few small CRDs leave
// little behind); heapCapPerByte the memory an input byte may need while
// its documents are checked (decoded, defaulted, encoded) at most.
const (
	heapCapFloor   = 64 << 20
	heapCapPerByte = 16
)

// newHeapCap sets the limit once compiled is closed, until release.
func newHeapCap(compiled <-chan struct{}) *heapCap {
	h := &heapCap{}
	userLimit := os.Getenv("GOMEMLIMIT") != ""
	go func() {
		<-compiled
		rules.DropCaches()
		if userLimit {
			return
		}
		h.mu.Lock()
		defer h.mu.Unlock()
		if h.ended {
			return
		}
		if h.base = heldMemory(); h.base == 0 {
			return
		}
		limits.Lock()
		defer limits.Unlock()
		h.on, limits.capped = true, true
		h.prev = debug.SetMemoryLimit(-1)
		if limits.starting {
			h.prev = limits.prev
		}
		h.apply()
	}()
	return h
}

// release puts back the limit there was before (the run is over: what
// follows in the process, tests among them, is not held to it).
func (h *heapCap) release() {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.ended = true
	if h.on {
		limits.Lock()
		defer limits.Unlock()
		h.on, limits.capped = false, false
		if limits.starting {
			debug.SetMemoryLimit(startHeapLimit)
		} else {
			debug.SetMemoryLimit(h.prev)
		}
	}
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
		limits.Lock()
		defer limits.Unlock()
		h.apply()
	}
}

// apply sets the limit; h.mu and limits are held.
func (h *heapCap) apply() {
	debug.SetMemoryLimit(max(h.base, heapCapFloor) + h.extra)
}

// heldMemory is the memory the Go runtime holds from the system (what the
// memory limit counts): all it mapped less what it gave back.
func heldMemory() int64 {
	s := []metrics.Sample{{Name: "/memory/classes/total:bytes"}, {Name: "/memory/classes/heap/released:bytes"}}
	metrics.Read(s)
	if s[0].Value.Kind() != metrics.KindUint64 || s[1].Value.Kind() != metrics.KindUint64 {
		return 0
	}
	return int64(s[0].Value.Uint64() - s[1].Value.Uint64())
}

// startHeapLimit is the memory the runtime may hold before the first
// collection of a crdkit process (startHeap).
const startHeapLimit = 96 << 20

// startHeapMinMemory is the least memory a process's cgroup must allow for
// startHeap to let the heap grow: in a small container the collector keeps
// its usual pace.
const startHeapMinMemory = 512 << 20

// limits records what startHeap changed, so that its end and heapCap do
// not undo each other's memory limit.
var limits struct {
	sync.Mutex
	starting bool  // startHeap's phase: no collection has run yet
	pct      int   // GOGC before it
	prev     int64 // the memory limit before it
	capped   bool  // heapCap's limit is set
}

// startHeap lets a crdkit process grow to startHeapLimit before its first
// collection, as the Go compiler lets its heap grow to a starting size; the
// collector then runs as GOGC says. main calls it once, before anything
// else. A GOGC or GOMEMLIMIT the user set is left alone, and so is a
// process whose cgroup allows it less than startHeapMinMemory.
//
// Without it, the collector runs from 4 MB on, a dozen times while a run
// reads and compiles its CRDs, and runs most of that time. While a
// collection is under way, a fresh heap page is read before it is written
// (the write barrier, and the header of objects over 512 bytes), which maps
// the kernel's zero page first; the write that follows then replaces it,
// and on two cores every such replacement interrupts the other core to
// flush its TLB (BENCHMARKS.md, "Session 18"). With no collection during
// the heap's growth, a fresh page's first access is a write.
func startHeap() { startHeapWith(cgroupMemoryLimit("/")) }

// startHeapWith is startHeap in a cgroup allowing cgroupLimit bytes (0: no
// limit).
func startHeapWith(cgroupLimit int64) {
	if os.Getenv("GOGC") != "" || os.Getenv("GOMEMLIMIT") != "" {
		return
	}
	if cgroupLimit > 0 && cgroupLimit < startHeapMinMemory {
		return
	}
	limits.Lock()
	defer limits.Unlock()
	if limits.starting {
		return
	}
	limits.starting = true
	limits.pct = debug.SetGCPercent(-1)
	limits.prev = debug.SetMemoryLimit(startHeapLimit)
	// The finalizer runs after the first collection (the object is not
	// reachable once startHeap returns; at 16 bytes it is not a tiny
	// allocation, whose finalizers may never run).
	runtime.SetFinalizer(new([2]*byte), func(*[2]*byte) { endStartHeap() })
}

// endStartHeap puts GOGC back and, unless heapCap set a limit meanwhile,
// the memory limit.
func endStartHeap() {
	limits.Lock()
	defer limits.Unlock()
	if !limits.starting {
		return
	}
	limits.starting = false
	debug.SetGCPercent(limits.pct)
	if !limits.capped {
		debug.SetMemoryLimit(limits.prev)
	}
}

// cgroupMemoryLimit is the lowest memory limit set on the process's own
// cgroup (cgroup v2's memory.max, v1's memory.limit_in_bytes, under the
// process's path or at the mount's root, as a container sees it), or 0
// when there is none or none can be read. root is the file system's root
// ("/"; a directory standing for it in tests).
func cgroupMemoryLimit(root string) int64 {
	data, err := os.ReadFile(filepath.Join(root, "proc", "self", "cgroup"))
	if err != nil {
		return 0
	}
	var files []string
	for line := range strings.SplitSeq(string(data), "\n") {
		id, rest, ok1 := strings.Cut(line, ":")
		controllers, path, ok2 := strings.Cut(rest, ":")
		switch {
		case !ok1 || !ok2:
		case id == "0" && controllers == "":
			files = append(files, filepath.Join(root, "sys", "fs", "cgroup", path, "memory.max"),
				filepath.Join(root, "sys", "fs", "cgroup", "memory.max"))
		case slices.Contains(strings.Split(controllers, ","), "memory"):
			files = append(files, filepath.Join(root, "sys", "fs", "cgroup", "memory", path, "memory.limit_in_bytes"),
				filepath.Join(root, "sys", "fs", "cgroup", "memory", "memory.limit_in_bytes"))
		}
	}
	var limit int64
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			continue
		}
		n, err := strconv.ParseInt(strings.TrimSpace(string(b)), 10, 64)
		if err != nil || n <= 0 || n >= 1<<62 { // "max", or v1's "no limit" (a page short of 2^63)
			continue
		}
		if limit == 0 || n < limit {
			limit = n
		}
	}
	return limit
}
