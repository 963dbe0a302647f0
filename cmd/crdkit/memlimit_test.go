package main

import (
	"math"
	"os"
	"path/filepath"
	"runtime"
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

// waitStartHeapEnd waits (bounded) for startHeap's phase to end after a
// collection.
func waitStartHeapEnd(t *testing.T) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		runtime.GC()
		limits.Lock()
		starting := limits.starting
		limits.Unlock()
		if !starting {
			return
		}
		if time.Now().After(deadline) {
			t.Fatal("startHeap's phase did not end 10 s after a collection")
		}
		time.Sleep(time.Millisecond)
	}
}

// collectorSettings runs a test with GOGC and GOMEMLIMIT unset in the
// environment, the collector at pct and no memory limit, and puts the
// process's settings back after it.
func collectorSettings(t *testing.T, pct int) {
	t.Setenv("GOGC", "")
	t.Setenv("GOMEMLIMIT", "")
	prevPct, prevLimit := debug.SetGCPercent(pct), debug.SetMemoryLimit(math.MaxInt64)
	t.Cleanup(func() {
		debug.SetGCPercent(prevPct)
		debug.SetMemoryLimit(prevLimit)
	})
}

func TestStartHeap(t *testing.T) {
	collectorSettings(t, 70)

	startHeapWith(0)
	limits.Lock()
	pct := debug.SetGCPercent(-1)
	limit := debug.SetMemoryLimit(-1)
	limits.Unlock()
	if pct != -1 || limit != startHeapLimit {
		t.Fatalf("in startHeap's phase: GOGC %d, limit %d; want off, %d", pct, limit, startHeapLimit)
	}
	waitStartHeapEnd(t)
	if pct, limit := debug.SetGCPercent(-1), debug.SetMemoryLimit(-1); pct != 70 || limit != math.MaxInt64 {
		t.Errorf("after the first collection: GOGC %d, limit %d; want 70 and none (as before)", pct, limit)
	}
	debug.SetGCPercent(70)
}

// TestStartHeapThenCap: heapCap's limit, set while startHeap's phase runs,
// outlives the phase; released before the phase ends, the phase's own
// limit is back until it ends.
func TestStartHeapThenCap(t *testing.T) {
	collectorSettings(t, 100)

	for _, releaseFirst := range []bool{false, true} {
		startHeapWith(0)
		compiled := make(chan struct{})
		h := newHeapCap(compiled)
		close(compiled)
		deadline := time.Now().Add(10 * time.Second)
		for {
			h.mu.Lock()
			on := h.on
			h.mu.Unlock()
			if on {
				break
			}
			if time.Now().After(deadline) {
				t.Fatal("no limit 10 s after the CRDs were compiled")
			}
			time.Sleep(time.Millisecond)
		}
		limits.Lock()
		capLimit := debug.SetMemoryLimit(-1)
		limits.Unlock()
		if capLimit == startHeapLimit || capLimit == math.MaxInt64 {
			t.Fatalf("heapCap's limit not set in startHeap's phase: %d", capLimit)
		}
		if releaseFirst {
			h.release()
			limits.Lock()
			got := debug.SetMemoryLimit(-1)
			limits.Unlock()
			if got != startHeapLimit {
				t.Errorf("released in startHeap's phase: limit %d, want the phase's %d", got, startHeapLimit)
			}
			waitStartHeapEnd(t)
		} else {
			waitStartHeapEnd(t)
			if got := debug.SetMemoryLimit(-1); got != capLimit {
				t.Errorf("after startHeap's phase: limit %d, want heapCap's %d", got, capLimit)
			}
			h.release()
		}
		if pct, limit := debug.SetGCPercent(-1), debug.SetMemoryLimit(-1); pct != 100 || limit != math.MaxInt64 {
			t.Errorf("releaseFirst=%v: at the end GOGC %d, limit %d; want 100 and none", releaseFirst, pct, limit)
		}
		debug.SetGCPercent(100)
	}
}

// TestStartHeapSmallCgroup: in a cgroup allowing less than 512 MB the
// collector keeps its pace; from 512 MB on the phase runs.
func TestStartHeapSmallCgroup(t *testing.T) {
	collectorSettings(t, 100)
	startHeapWith(256 << 20)
	limits.Lock()
	starting := limits.starting
	limits.Unlock()
	if pct := debug.SetGCPercent(100); starting || pct != 100 {
		t.Errorf("in a 256 MB cgroup: phase %v, GOGC %d; want no phase, 100", starting, pct)
	}
	startHeapWith(512 << 20)
	limits.Lock()
	starting = limits.starting
	limits.Unlock()
	if !starting {
		t.Error("in a 512 MB cgroup: no start phase")
	}
	waitStartHeapEnd(t)
}

func TestStartHeapLeavesUserGOGC(t *testing.T) {
	t.Setenv("GOGC", "50")
	t.Setenv("GOMEMLIMIT", "")
	defer debug.SetGCPercent(debug.SetGCPercent(-1))
	debug.SetGCPercent(50)
	startHeapWith(0)
	limits.Lock()
	starting := limits.starting
	limits.Unlock()
	if pct := debug.SetGCPercent(50); starting || pct != 50 {
		t.Errorf("with GOGC set: phase %v, GOGC %d; want no phase, the user's 50", starting, pct)
	}
}

func TestCgroupMemoryLimit(t *testing.T) {
	write := func(t *testing.T, root, name, content string) {
		t.Helper()
		p := filepath.Join(root, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, c := range []struct {
		name  string
		files map[string]string
		want  int64
	}{
		{"no cgroup file", nil, 0},
		{"v2, a container's own (namespaced)", map[string]string{
			"proc/self/cgroup": "0::/\n", "sys/fs/cgroup/memory.max": "268435456\n"}, 256 << 20},
		{"v2, no limit", map[string]string{
			"proc/self/cgroup": "0::/\n", "sys/fs/cgroup/memory.max": "max\n"}, 0},
		{"v2, under the process's path", map[string]string{
			"proc/self/cgroup":                "0::/ci/job\n",
			"sys/fs/cgroup/memory.max":        "max\n",
			"sys/fs/cgroup/ci/job/memory.max": "1073741824\n"}, 1 << 30},
		{"v1, the lower of the path's and the root's", map[string]string{
			"proc/self/cgroup":                                      "12:cpu,cpuacct:/x\n4:memory:/docker/abc\n1:name=systemd:/\n",
			"sys/fs/cgroup/memory/memory.limit_in_bytes":            "9223372036854771712\n",
			"sys/fs/cgroup/memory/docker/abc/memory.limit_in_bytes": "134217728\n"}, 128 << 20},
		{"v1, no limit", map[string]string{
			"proc/self/cgroup": "4:memory:/\n", "sys/fs/cgroup/memory/memory.limit_in_bytes": "9223372036854771712\n"}, 0},
		{"unreadable values", map[string]string{
			"proc/self/cgroup": "0::/\n", "sys/fs/cgroup/memory.max": "lots\n"}, 0},
	} {
		t.Run(c.name, func(t *testing.T) {
			root := t.TempDir()
			for name, content := range c.files {
				write(t, root, name, content)
			}
			if got := cgroupMemoryLimit(root); got != c.want {
				t.Errorf("cgroupMemoryLimit = %d, want %d", got, c.want)
			}
		})
	}
}
