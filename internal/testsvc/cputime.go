package testsvc

import (
	"testing"
	"time"
)

// CPU starts a measurement of the process's CPU time for a benchmark; the
// function it returns reports it as "cpu-µs/op". On a shared machine that
// is what an operation costs, where wall time also says how busy the
// neighbours were. Where CPU time is not measured (not unix) nothing is
// reported.
//
//	defer testsvc.CPU(b)()
func CPU(b *testing.B) func() {
	c0 := CPUTime()
	return func() {
		if c0 > 0 {
			b.ReportMetric(float64(CPUTime()-c0)/float64(b.N)/float64(time.Microsecond), "cpu-µs/op")
		}
	}
}
