package metrics

import (
	"strconv"
	"sync/atomic"
)

// Counter is a monotonically increasing count. Counts are integers here
// (requests, bytes), which keeps Add a single atomic instruction.
type Counter struct{ v atomic.Uint64 }

// Inc adds one.
func (c *Counter) Inc() { c.v.Add(1) }

// Add adds n.
func (c *Counter) Add(n uint64) { c.v.Add(n) }

// Value returns the current count.
func (c *Counter) Value() uint64 { return c.v.Load() }

// CounterVec is a counter family partitioned by labels.
type CounterVec struct {
	meta
	v *vec[Counter]
}

// Counter registers a counter family. It panics on an invalid or
// duplicate name or labels.
func (r *Registry) Counter(name, help string, labels ...string) *CounterVec {
	c := &CounterVec{meta: newMeta(name, help, "counter", labels)}
	c.v = newVec(c.labels, func() *Counter { return new(Counter) })
	r.register(c, name)
	return c
}

// With returns the counter for the given label values, in the order the
// labels were registered, creating it on first use. Keep the result when
// the values are fixed, to skip the lookup.
func (c *CounterVec) With(labelValues ...string) *Counter { return c.v.with(labelValues) }

func (c *CounterVec) appendText(b []byte) []byte {
	ss := c.v.sorted()
	if len(ss) == 0 {
		return b
	}
	b = c.appendHeader(b)
	for _, s := range ss {
		b = appendSeries(b, c.metricName, c.labels, s.values, "", "")
		b = strconv.AppendUint(b, s.m.Value(), 10)
		b = append(b, '\n')
	}
	return b
}
