//go:build !unix

package servertest

import "time"

// cpuTime is unknown here: the benchmarks report 0 cpu-s/op.
func cpuTime() time.Duration { return 0 }
