//go:build unix

package testsvc

import (
	"syscall"
	"time"
)

// CPUTime is the CPU time the process has used, user and system (the
// kernel's share of a write or an fsync included).
func CPUTime() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
