//go:build !unix

package testsvc

import "time"

// CPUTime is not measured here: 0, and benchmarks report no CPU time.
func CPUTime() time.Duration { return 0 }
