//go:build unix

package server

import (
	"syscall"
	"time"
)

// cpuTime is the CPU time the process has used, user and system (the
// kernel's share of a write or an fsync included): on a shared machine
// what an operation costs, where wall time also says how busy the
// neighbours were.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
