// Package par runs independent pieces of work on all cores.
package par

import (
	"runtime"
	"sync"
)

// Each calls f(0), ..., f(n-1) on up to GOMAXPROCS goroutines (the caller's
// among them) and returns when all have returned. A panic in any call is
// raised again in the caller, once the others have finished.
func Each(n int, f func(i int)) {
	workers := min(n, runtime.GOMAXPROCS(0))
	if workers <= 1 {
		for i := range n {
			f(i)
		}
		return
	}
	var (
		mu       sync.Mutex
		next     int
		panicked any
		wg       sync.WaitGroup
	)
	work := func() {
		defer func() {
			if r := recover(); r != nil {
				mu.Lock()
				if panicked == nil {
					panicked = r
				}
				next = n // the others stop at their next call
				mu.Unlock()
			}
		}()
		for {
			mu.Lock()
			i := next
			next++
			mu.Unlock()
			if i >= n {
				return
			}
			f(i)
		}
	}
	for range workers - 1 {
		wg.Go(work)
	}
	work()
	wg.Wait()
	if panicked != nil {
		panic(panicked)
	}
}
