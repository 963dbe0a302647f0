package main

import (
	"os"
	"runtime"
	"slices"
	"sync"
	"testing"
	"time"
)

// TestLoad sends AdmissionReviews from 8 concurrent clients to the running
// example for CRDKIT_LOAD_TEST (a duration, at most 10m; 60s when it does
// not parse) over loopback TLS, then prints requests/s, p50 and p99
// latency and the heap after warm-up and at the end. It fails on any
// failed request or answer that differs from the expected verdict, and on
// a heap that grew by more than half after warm-up.
func TestLoad(t *testing.T) {
	env := os.Getenv("CRDKIT_LOAD_TEST")
	if env == "" {
		t.Skip("load test: set CRDKIT_LOAD_TEST=60s to run it (8 clients for that long over loopback TLS)")
	}
	d, err := time.ParseDuration(env)
	if err != nil || d <= 0 {
		d = 60 * time.Second
	}
	d = min(d, 10*time.Minute)
	base, c := start(t)
	type job struct {
		path    string
		body    []byte
		allowed bool
	}
	jobs := []job{
		{"/validate", reviewOf(cronTab), true},
		{"/validate", reviewOf(badCronTab), false},
		{"/validate", reviewOf(bundle(cronTab, cronTab, badCronTab)), false},
		{"/validate", reviewOf(bundle(cronTab, frozen)), false},
		{"/mutate", reviewOf(bundle(cronTab, cronTab)), true},
		{"/mutate", reviewOf(cronTab), true},
	}
	const clients = 8
	start := time.Now()
	warm := start.Add(d / 10)
	end := start.Add(d)
	var mu sync.Mutex
	var lat []time.Duration
	var failed int
	var warmHeap uint64
	var once sync.Once
	var wg sync.WaitGroup
	for g := 0; g < clients; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var mine []time.Duration
			for i := g; time.Now().Before(end); i++ {
				if time.Now().After(warm) {
					once.Do(func() { warmHeap = heap() })
				}
				j := jobs[i%len(jobs)]
				t0 := time.Now()
				r := sendQuiet(c, base+j.path, j.body)
				mine = append(mine, time.Since(t0))
				if r == nil || r.Allowed != j.allowed {
					mu.Lock()
					failed++
					mu.Unlock()
				}
			}
			mu.Lock()
			lat = append(lat, mine...)
			mu.Unlock()
		}()
	}
	wg.Wait()
	elapsed := time.Since(start)
	endHeap := heap()
	slices.Sort(lat)
	p := func(q float64) time.Duration { return lat[int(q*float64(len(lat)-1))] }
	t.Logf("load: %d clients, %d requests in %s: %.0f req/s, p50 %s, p99 %s, failed %d, heap after warm-up %.1f MiB, at the end %.1f MiB",
		clients, len(lat), elapsed.Round(time.Millisecond), float64(len(lat))/elapsed.Seconds(), p(0.50), p(0.99), failed,
		float64(warmHeap)/(1<<20), float64(endHeap)/(1<<20))
	if failed > 0 {
		t.Errorf("%d requests failed", failed)
	}
	if endHeap > warmHeap+warmHeap/2 {
		t.Errorf("heap grew from %d to %d bytes after warm-up", warmHeap, endHeap)
	}
}

// heap is the live heap after a collection.
func heap() uint64 {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}
